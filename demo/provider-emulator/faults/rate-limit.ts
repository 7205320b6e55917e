/**
 * A 429 as the providers send it: `retry-after` in seconds (OpenAI, DeepSeek, DashScope) and/or
 * `retry-after-ms` (OpenAI), with the body `{"error": {"type": "requests", "code":
 * "rate_limit_exceeded", …}}`.
 */
import { refusal, type ProviderRefusal } from '../types.js';

export interface RateLimitFault {
  retryAfterSeconds?: number;
  retryAfterMs?: number;
}

export function rateLimited(f: RateLimitFault): ProviderRefusal {
  const headers: Record<string, string> = {};
  if (f.retryAfterSeconds !== undefined) headers['retry-after'] = String(f.retryAfterSeconds);
  if (f.retryAfterMs !== undefined) headers['retry-after-ms'] = String(f.retryAfterMs);
  const wait =
    f.retryAfterMs !== undefined
      ? `${f.retryAfterMs}ms`
      : f.retryAfterSeconds !== undefined
        ? `${f.retryAfterSeconds}s`
        : 'a moment';
  return refusal('rate-limit', 429, `Rate limit reached for requests. Please try again in ${wait}.`, {
    type: 'requests',
    code: 'rate_limit_exceeded',
    headers,
  });
}
