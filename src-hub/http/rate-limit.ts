/**
 * Request rate limits of the HTTP APIs (not the task or operation rate limits, which govern
 * business calls: tasks/policy.ts):
 *
 * - a token bucket per authenticated client on the agent API and one for the admin token on the
 *   admin API (`per_second` sustained, `burst` at once) → 429 `rate_limited` with `retry_after_ms`;
 * - a bound on failed token attempts per remote address in a fixed window → 429
 *   `too_many_auth_failures` with `retry_after_ms`: while it lasts, tokens from that address are
 *   not checked at all, except tokens this Hub already verified (so an attacker on a shared
 *   address cannot lock a working client out).
 *
 * Both keep at most `maxKeys` entries (least recently used first out), so a flood of addresses or
 * ids cannot grow them without bound. Configured in docs/hub-api.md ("Rate limits").
 */
import { HubError } from '../errors.js';

export interface BucketRule {
  perSecond: number;
  burst: number;
}

export interface FailureRule {
  count: number;
  windowMs: number;
}

export interface RateLimitSettings {
  agent: BucketRule | null;
  admin: BucketRule | null;
  authFailures: FailureRule | null;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  agent: { perSecond: 100, burst: 200 },
  admin: { perSecond: 50, burst: 100 },
  authFailures: { count: 30, windowMs: 60_000 },
};

const MAX_KEYS = 10_000;

function touch<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_KEYS) map.delete(map.keys().next().value as string);
}

/** Token buckets by key; `take` spends one token or throws 429 `rate_limited`. */
export function createBuckets(rule: BucketRule | null, nowMs: () => number = Date.now) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key: string, what: string): void {
      if (!rule) return;
      const now = nowMs();
      const b = buckets.get(key) ?? { tokens: rule.burst, at: now };
      const tokens = Math.min(rule.burst, b.tokens + ((now - b.at) * rule.perSecond) / 1000);
      if (tokens >= 1) {
        touch(buckets, key, { tokens: tokens - 1, at: now });
        return;
      }
      touch(buckets, key, { tokens, at: now });
      const retryAfterMs = Math.ceil(((1 - tokens) * 1000) / rule.perSecond);
      throw new HubError(
        429,
        'rate_limited',
        `${what} is limited to ${rule.perSecond} requests a second (bursts of ${rule.burst}); retry after ${retryAfterMs} ms`,
        retryAfterMs,
      );
    },
  };
}

/** Failed token attempts per address in fixed windows. */
export function createFailureBound(rule: FailureRule | null, nowMs: () => number = Date.now) {
  const windows = new Map<string, { start: number; count: number }>();
  const current = (address: string, now: number) => {
    const w = windows.get(address);
    return w && rule && now - w.start < rule.windowMs ? w : null;
  };
  return {
    /** Throws 429 `too_many_auth_failures` while this address is over the bound. */
    check(address: string): void {
      if (!rule) return;
      const now = nowMs();
      const w = current(address, now);
      if (!w || w.count < rule.count) return;
      const retryAfterMs = w.start + rule.windowMs - now;
      throw new HubError(
        429,
        'too_many_auth_failures',
        `${w.count} failed token attempts from this address in ${rule.windowMs / 1000} s; tokens are not checked for ${retryAfterMs} ms`,
        retryAfterMs,
      );
    },
    fail(address: string): void {
      if (!rule) return;
      const now = nowMs();
      const w = current(address, now) ?? { start: now, count: 0 };
      touch(windows, address, { start: w.start, count: w.count + 1 });
    },
  };
}
