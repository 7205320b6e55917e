/**
 * The signed header set the Hub sends with every business request: BailingHub's v1 signature
 * (src-shared/signing.ts) and, beside it, signature v2 (./sign-v2.ts; docs/business-systems.md)
 * over the same timestamp. Headers whose value is empty (the spec GET has no on-behalf-of subject
 * and no job) are left out; a verifier reads a missing one as ''.
 */
import { sha256Hex } from '../../src-shared/digest.js';
import { SIGNATURE_HEADERS, computeSignature } from '../../src-shared/signing.js';
import { hmacKey } from './hmac-key.js';
import { addSignatureV2Headers, type SignV2Input } from './sign-v2.js';

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
  // filled key by key, with no spread: an object literal that spreads and then adds keys costs
  // 1-2 µs on this V8 (its map is made anew every time), and every business request is signed
  const headers: Record<string, string> = {};
  headers[SIGNATURE_HEADERS.timestamp] = String(timestamp);
  headers[SIGNATURE_HEADERS.signature] = computeSignature({
    secret: key,
    timestamp,
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    body: input.body,
    bodySha256,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
  });
  addSignatureV2Headers(headers, {
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
    nonce: input.nonce ? input.nonce : undefined,
  });
  if (input.onBehalfOf !== '') headers[SIGNATURE_HEADERS.onBehalfOf] = input.onBehalfOf;
  if (input.jobId !== '') headers[SIGNATURE_HEADERS.jobId] = input.jobId;
  if (input.idempotencyKey !== null) headers[SIGNATURE_HEADERS.idempotencyKey] = input.idempotencyKey;
  return headers;
}
