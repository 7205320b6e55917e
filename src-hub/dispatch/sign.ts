/**
 * The signed header set the Hub sends with every business request: BailingHub's v1 signature
 * (src-shared/signing.ts) and, beside it, signature v2 (./sign-v2.ts; docs/business-systems.md)
 * over the same timestamp. Headers whose value is empty (the spec GET has no on-behalf-of subject
 * and no job) are left out; a verifier reads a missing one as ''.
 */
import { sha256Hex } from '../../src-shared/digest.js';
import { SIGNATURE_HEADERS, computeSignature } from '../../src-shared/signing.js';
import { hmacKey } from './hmac-key.js';
import { signatureV2Headers, type SignV2Input } from './sign-v2.js';

/** What both signatures cover (SignV2Input), with the clock read here unless a test fixes it. */
export type SignHeadersInput = Omit<SignV2Input, 'timestamp' | 'secret'> & {
  secret: string;
  nowSeconds?: number;
};

export function signedHeaders(input: SignHeadersInput): Record<string, string> {
  const timestamp = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  // both signatures cover the body's hash: computed once
  const bodySha256 = sha256Hex(input.body);
  const key = hmacKey(input.secret);
  const signature = computeSignature({
    secret: key,
    timestamp,
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    body: input.body,
    bodySha256,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
  });
  const headers: Record<string, string> = {
    [SIGNATURE_HEADERS.timestamp]: String(timestamp),
    [SIGNATURE_HEADERS.signature]: signature,
    ...signatureV2Headers({
      secret: key,
      audience: input.audience,
      method: input.method,
      pathWithQuery: input.pathWithQuery,
      body: input.body,
      bodySha256,
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
