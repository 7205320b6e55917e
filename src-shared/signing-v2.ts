/**
 * Request signature v2 between the Hub and business systems (docs/business-systems.md, "Signature
 * v2"). v1 (./signing.ts, BailingHub's) covers neither the idempotency key nor the target system and
 * carries no nonce, and joins its fields with `.`, so a captured write can be sent again as a new
 * write within its window and a value's `.` can move a field boundary. v2 signs
 *
 *   for each field, in this order: its UTF-8 length in bytes, ':', the field, '\n'
 *   version ("v2"), timestamp, nonce, audience (the system id the Hub registered the system under),
 *   METHOD, path with query, sha256 hex of the body, on-behalf-of, job id, idempotency key
 *
 * with HMAC-SHA256 under the system's signing secret. A verifier uses its own system id as the
 * audience, refuses a timestamp 300 s or more away, and remembers every nonce it accepted until
 * its timestamp leaves the window (a nonce seen again is a replay).
 */
import { createHmac, randomFillSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import { sha256Hex } from './digest.js';

export const SIGNATURE_V2_HEADERS = {
  timestamp: 'x-bailing-v2-timestamp',
  nonce: 'x-bailing-v2-nonce',
  audience: 'x-bailing-v2-audience',
  signature: 'x-bailing-v2-signature',
} as const;

export const SIGNATURE_V2_VERSION = 'v2';
/** A timestamp this far (seconds) or more from the verifier's clock is stale, either way. */
export const SIGNATURE_V2_WINDOW_SECONDS = 300;

export interface SignatureV2Fields {
  timestamp: number; // unix seconds
  nonce: string; // 32 lowercase hex digits (16 random bytes)
  audience: string;
  method: string;
  pathWithQuery: string;
  body: string; // exact bytes sent ('' when none)
  /** sha256 hex of `body`, when the caller has it already (the Hub signs v1 and v2 over one body). */
  bodySha256?: string;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string; // '' when none (look-ups, the spec GET)
}

/** The exact text v2 signs: every field as `<byte length>:<value>\n`. */
export function canonicalV2(f: SignatureV2Fields): string {
  return [
    SIGNATURE_V2_VERSION,
    String(f.timestamp),
    f.nonce,
    f.audience,
    f.method.toUpperCase(),
    f.pathWithQuery,
    f.bodySha256 ?? sha256Hex(f.body),
    f.onBehalfOf,
    f.jobId,
    f.idempotencyKey,
  ]
    .map((v) => `${Buffer.byteLength(v, 'utf8')}:${v}\n`)
    .join('');
}

export function computeSignatureV2(secret: string | KeyObject, f: SignatureV2Fields): string {
  return 'v2=' + createHmac('sha256', secret).update(canonicalV2(f), 'utf8').digest('hex');
}

/** Random bytes drawn ahead, 16 per nonce: one call into the system's generator per 256 nonces. */
const noncePool = Buffer.alloc(16 * 256);
let noncePoolAt = noncePool.length;

export function newNonce(): string {
  if (noncePoolAt === noncePool.length) {
    randomFillSync(noncePool);
    noncePoolAt = 0;
  }
  const nonce = noncePool.toString('hex', noncePoolAt, noncePoolAt + 16);
  noncePoolAt += 16;
  return nonce;
}

export type SignatureV2Failure =
  'signature_missing' | 'signature_invalid' | 'timestamp_expired' | 'audience_mismatch' | 'nonce_reused';

export type SignatureV2Check = { ok: true } | { ok: false; code: SignatureV2Failure };

/** Nonces accepted within the window (a replay cache); in memory, for one process. */
export interface NonceCache {
  /** True when the nonce is new (and is now remembered until `expiresAt`, unix seconds). */
  remember(nonce: string, expiresAt: number, nowSeconds: number): boolean;
  size(): number;
}

export function createNonceCache(): NonceCache {
  const seen = new Map<string, number>();
  let lastPrune = 0;
  return {
    remember(nonce, expiresAt, now) {
      if (now !== lastPrune) {
        lastPrune = now;
        for (const [n, until] of seen) if (until <= now) seen.delete(n);
      }
      const until = seen.get(nonce);
      if (until !== undefined && until > now) return false;
      seen.set(nonce, expiresAt);
      return true;
    },
    size: () => seen.size,
  };
}

export interface PresentedV2 {
  timestamp: string | undefined;
  nonce: string | undefined;
  audience: string | undefined;
  signature: string | undefined;
}

/**
 * Verifies a v2 signature as a business system must: its own system id as the audience, the
 * window, a constant-time comparison, and — only for a valid signature — the nonce remembered, so
 * nobody can fill the cache with made-up nonces.
 */
export function verifySignatureV2(input: {
  secret: string;
  /** The verifier's own system id (never the header's). */
  audience: string;
  presented: PresentedV2;
  method: string;
  pathWithQuery: string;
  body: string;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string;
  nowSeconds: number;
  nonces: NonceCache;
  /** Timestamps before this (unix seconds) are refused: a verifier whose nonce cache started empty. */
  notBefore?: number;
}): SignatureV2Check {
  const p = input.presented;
  if (
    p.timestamp === undefined ||
    p.nonce === undefined ||
    p.signature === undefined ||
    !/^\d{1,12}$/.test(p.timestamp) ||
    !/^[0-9a-f]{32}$/.test(p.nonce)
  )
    return { ok: false, code: 'signature_missing' };
  const ts = Number(p.timestamp);
  if (Math.abs(input.nowSeconds - ts) >= SIGNATURE_V2_WINDOW_SECONDS)
    return { ok: false, code: 'timestamp_expired' };
  if (input.notBefore !== undefined && ts < input.notBefore) return { ok: false, code: 'timestamp_expired' };
  if (p.audience !== undefined && p.audience !== input.audience)
    return { ok: false, code: 'audience_mismatch' };
  const expected = Buffer.from(
    computeSignatureV2(input.secret, {
      timestamp: ts,
      nonce: p.nonce,
      audience: input.audience,
      method: input.method,
      pathWithQuery: input.pathWithQuery,
      body: input.body,
      onBehalfOf: input.onBehalfOf,
      jobId: input.jobId,
      idempotencyKey: input.idempotencyKey,
    }),
  );
  const presented = Buffer.from(p.signature);
  if (expected.length !== presented.length || !timingSafeEqual(expected, presented))
    return { ok: false, code: 'signature_invalid' };
  if (!input.nonces.remember(p.nonce, ts + SIGNATURE_V2_WINDOW_SECONDS, input.nowSeconds))
    return { ok: false, code: 'nonce_reused' };
  return { ok: true };
}
