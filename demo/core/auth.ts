/**
 * Verifies the Hub's request signature over the exact raw body a demo system received. The demo
 * systems require signature v2 (src-shared/signing-v2.ts, docs/business-systems.md): their own
 * system id as the audience, the idempotency key inside the signature, and a nonce cache for the
 * window, so a captured request cannot be sent again — not with a new idempotency key, not to
 * another system, not with its on-behalf-of and job id split differently. A request carrying only
 * BailingHub's v1 signature is refused.
 */
import { SIGNATURE_HEADERS } from '../../src-shared/signing.js';
import {
  SIGNATURE_V2_HEADERS,
  verifySignatureV2,
  type NonceCache,
  type SignatureV2Check,
} from '../../src-shared/signing-v2.js';

export interface SignedRequestFacts {
  method: string;
  url: string; // path with query, exactly as received
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
}

export function header(headers: SignedRequestFacts['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export interface VerifierIdentity {
  /** The system's own id: the audience it accepts (never the header's). */
  systemId: string;
  secret: string;
  nonces: NonceCache;
}

export function checkSignature(
  req: SignedRequestFacts,
  who: VerifierIdentity,
  nowSeconds: number,
): SignatureV2Check {
  return verifySignatureV2({
    secret: who.secret,
    audience: who.systemId,
    presented: {
      timestamp: header(req.headers, SIGNATURE_V2_HEADERS.timestamp),
      nonce: header(req.headers, SIGNATURE_V2_HEADERS.nonce),
      audience: header(req.headers, SIGNATURE_V2_HEADERS.audience),
      signature: header(req.headers, SIGNATURE_V2_HEADERS.signature),
    },
    method: req.method,
    pathWithQuery: req.url,
    body: req.rawBody,
    onBehalfOf: header(req.headers, SIGNATURE_HEADERS.onBehalfOf) ?? '',
    jobId: header(req.headers, SIGNATURE_HEADERS.jobId) ?? '',
    idempotencyKey: header(req.headers, SIGNATURE_HEADERS.idempotencyKey) ?? '',
    nowSeconds,
    nonces: who.nonces,
  });
}
