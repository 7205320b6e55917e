/**
 * The v2 signature headers of one business request (src-shared/signing-v2.ts): a fresh nonce, the
 * system id as the audience, and the idempotency key inside the signed text.
 */
import type { KeyObject } from 'node:crypto';
import { computeSignatureV2, newNonce, SIGNATURE_V2_HEADERS } from '../../src-shared/signing-v2.js';

export interface SignV2Input {
  secret: string | KeyObject;
  /** The system id the Hub registered the system under. */
  audience: string;
  method: string;
  /** The same path v1 covers (the system's `signed_path`, signed-path.ts). */
  pathWithQuery: string;
  body: string;
  /** sha256 hex of `body`, when the caller has it already. */
  bodySha256?: string;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string | null;
  timestamp: number;
  /** A fresh random one per request unless a test fixes it. */
  nonce?: string;
}

export function signatureV2Headers(input: SignV2Input): Record<string, string> {
  return addSignatureV2Headers({}, input);
}

/** Sets the v2 headers on `headers` (in the order signatureV2Headers gives them) and returns it. */
export function addSignatureV2Headers(
  headers: Record<string, string>,
  input: SignV2Input,
): Record<string, string> {
  const nonce = input.nonce ?? newNonce();
  headers[SIGNATURE_V2_HEADERS.timestamp] = String(input.timestamp);
  headers[SIGNATURE_V2_HEADERS.nonce] = nonce;
  headers[SIGNATURE_V2_HEADERS.audience] = input.audience;
  headers[SIGNATURE_V2_HEADERS.signature] = computeSignatureV2(input.secret, {
    timestamp: input.timestamp,
    nonce,
    audience: input.audience,
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    body: input.body,
    bodySha256: input.bodySha256,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
    idempotencyKey: input.idempotencyKey ?? '',
  });
  return headers;
}
