/**
 * Invocation ids made by Bailing (the desk's runtime, the Hub's MCP endpoint for calls that bring
 * no idempotency key, and the benchmarks that model them): `inv_`, the creation time in milliseconds
 * as 12 lowercase hex digits, then 128 random bits as 22 base64url characters — 38 characters in all
 * (docs/journal.md#invocation-ids).
 *
 * Time first, so ids sort by creation: the Hub's indexes keyed by invocation id (the invocations
 * table's key, the audit's invocation index, the operation dispatches' key) take each new id at their
 * right edge, and a commit of many calls changes a few index pages instead of one page per call.
 * The random part keeps them unguessable: the id is also the business idempotency key and a handle
 * to inspect, resume and attest the call.
 */
import { randomBytes } from 'node:crypto';

export const INVOCATION_ID_PREFIX = 'inv_';
/** Hex digits of the creation time: milliseconds up to 2^48, the year 10889. */
export const INVOCATION_ID_TIME_DIGITS = 12;
export const INVOCATION_ID_RANDOM_BYTES = 16;
/** `inv_`, 12 hex digits of time, 22 base64url characters (16 random bytes, the last carrying 2 bits of them and 4 zero bits). */
export const INVOCATION_ID_PATTERN = /^inv_[0-9a-f]{12}[A-Za-z0-9_-]{21}[AQgw]$/;

export function newInvocationId(nowMs: number = Date.now()): string {
  const ms = Math.min(Math.max(0, Math.trunc(nowMs)), 2 ** 48 - 1);
  return `${INVOCATION_ID_PREFIX}${ms.toString(16).padStart(INVOCATION_ID_TIME_DIGITS, '0')}${randomBytes(
    INVOCATION_ID_RANDOM_BYTES,
  ).toString('base64url')}`;
}
