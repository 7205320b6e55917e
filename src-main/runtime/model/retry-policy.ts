/**
 * Retries of model requests only (never of tool calls): at most `maxRetries` more attempts, waiting
 * what the provider asked for (retry-after) or an exponential backoff with jitter, all within
 * `maxTotalWaitMs`. A wait the provider asks for that would go past that bound ends the retries at
 * once (the operator is told how long the provider wanted).
 */
export interface RetryPolicy {
  maxRetries: number;
  maxTotalWaitMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  maxTotalWaitMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
};

export type RetryDecision =
  | { retry: true; waitMs: number; fromProvider: boolean }
  | { retry: false; because: 'attempts' | 'budget'; askedMs: number | null };

/** `retryNumber` counts from 1 (the first retry); `waitedMs` is what earlier retries already waited. */
export function nextRetry(
  policy: RetryPolicy,
  retryNumber: number,
  askedMs: number | null,
  waitedMs: number,
  random: () => number = Math.random,
): RetryDecision {
  if (retryNumber > policy.maxRetries) return { retry: false, because: 'attempts', askedMs };
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retryNumber - 1));
  const waitMs = askedMs ?? Math.round(backoff * (0.5 + random() / 2));
  if (waitedMs + waitMs > policy.maxTotalWaitMs) return { retry: false, because: 'budget', askedMs };
  return { retry: true, waitMs, fromProvider: askedMs !== null };
}
