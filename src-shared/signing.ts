/**
 * Request signing between the Hub and business systems (BailingHub-compatible):
 * x-bailing-signature = "sha256=" + hex HMAC-SHA256(secret,
 *   `${ts}.${METHOD}.${pathWithQuery}.${sha256hex(body)}.${onBehalfOf}.${jobId}`)
 */
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import { sha256Hex } from './digest.js';

export const SIGNATURE_HEADERS = {
  timestamp: 'x-bailing-timestamp',
  signature: 'x-bailing-signature',
  onBehalfOf: 'x-bailing-on-behalf-of',
  jobId: 'x-bailing-job-id',
  idempotencyKey: 'x-bailing-idempotency-key',
} as const;

export interface SignatureInput {
  /** The shared secret (a KeyObject made from it signs the same, without preparing the key per call). */
  secret: string | KeyObject;
  timestamp: number; // unix seconds
  method: string;
  pathWithQuery: string;
  body: string; // exact bytes sent ('' when none)
  /** sha256 hex of `body`, when the caller has it already (the Hub signs v1 and v2 over one body). */
  bodySha256?: string;
  onBehalfOf: string;
  jobId: string;
}

export function signatureBase(input: Omit<SignatureInput, 'secret'>): string {
  return `${input.timestamp}.${input.method.toUpperCase()}.${input.pathWithQuery}.${input.bodySha256 ?? sha256Hex(input.body)}.${input.onBehalfOf}.${input.jobId}`;
}

export function computeSignature(input: SignatureInput): string {
  return 'sha256=' + createHmac('sha256', input.secret).update(signatureBase(input)).digest('hex');
}

export type SignatureCheck =
  { ok: true } | { ok: false; code: 'signature_missing' | 'signature_invalid' | 'timestamp_expired' };

/**
 * Constant-time verification with a freshness window: a timestamp `toleranceSeconds` (default 300)
 * or more away from now, either way, is refused — exactly 300 s is already stale, as in
 * BailingHub's connect SDKs.
 */
export function verifySignature(
  input: SignatureInput & { presented: string | undefined },
  nowSeconds: number,
  toleranceSeconds = 300,
): SignatureCheck {
  if (!input.presented || !Number.isFinite(input.timestamp)) return { ok: false, code: 'signature_missing' };
  if (Math.abs(nowSeconds - input.timestamp) >= toleranceSeconds)
    return { ok: false, code: 'timestamp_expired' };
  const expected = Buffer.from(computeSignature(input));
  const presented = Buffer.from(input.presented);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented)) {
    return { ok: false, code: 'signature_invalid' };
  }
  return { ok: true };
}
