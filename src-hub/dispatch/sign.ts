/**
 * The signed header set the Hub sends with every business request: BailingHub's v1 signature
 * (src-shared/signing.ts) and, beside it, signature v2 (./sign-v2.ts; docs/business-systems.md)
 * over the same timestamp. Headers whose value is empty (the spec GET has no on-behalf-of subject
 * and no job) are left out; a verifier reads a missing one as ''.
 */
import { SIGNATURE_HEADERS, computeSignature } from '../../src-shared/signing.js';
import { signatureV2Headers } from './sign-v2.js';

export interface SignHeadersInput {
  secret: string;
  /** The system id the Hub registered the system under (v2's audience). */
  audience: string;
  method: string;
  /** The path the signature covers (see signed-path.ts); not necessarily the request target sent. */
  pathWithQuery: string;
  body: string;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string | null;
  nowSeconds?: number;
  /** v2's nonce (tests only; a fresh random one per request otherwise). */
  nonce?: string;
}

export function signedHeaders(input: SignHeadersInput): Record<string, string> {
  const timestamp = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const signature = computeSignature({
    secret: input.secret,
    timestamp,
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    body: input.body,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
  });
  const headers: Record<string, string> = {
    [SIGNATURE_HEADERS.timestamp]: String(timestamp),
    [SIGNATURE_HEADERS.signature]: signature,
    ...signatureV2Headers({
      secret: input.secret,
      audience: input.audience,
      method: input.method,
      pathWithQuery: input.pathWithQuery,
      body: input.body,
      onBehalfOf: input.onBehalfOf,
      jobId: input.jobId,
      idempotencyKey: input.idempotencyKey,
      timestamp,
      ...(input.nonce ? { nonce: input.nonce } : {}),
    }),
  };
  if (input.onBehalfOf !== '') headers[SIGNATURE_HEADERS.onBehalfOf] = input.onBehalfOf;
  if (input.jobId !== '') headers[SIGNATURE_HEADERS.jobId] = input.jobId;
  if (input.idempotencyKey !== null) headers[SIGNATURE_HEADERS.idempotencyKey] = input.idempotencyKey;
  return headers;
}
