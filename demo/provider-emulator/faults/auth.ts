/**
 * The provider's key check: without `Authorization: Bearer <key>` or with another key, a 401
 * (OpenAI: "Incorrect API key provided: sk-ab***…", code `invalid_api_key`). The emulator logs only
 * whether a key came and whether it was the right one, never the key.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { refusal, type ProviderRefusal } from '../types.js';

export type KeySeen = 'none' | 'expected' | 'other';

export function keySeen(headers: IncomingHttpHeaders, expected: string | null): KeySeen {
  const h = headers.authorization;
  if (typeof h !== 'string' || h.length === 0) return 'none';
  if (expected === null) return 'other';
  const a = Buffer.from(h);
  const b = Buffer.from(`Bearer ${expected}`);
  return a.length === b.length && timingSafeEqual(a, b) ? 'expected' : 'other';
}

export function unauthorized(seen: KeySeen): ProviderRefusal {
  return refusal(
    'auth',
    401,
    seen === 'none'
      ? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth."
      : 'Incorrect API key provided. You can find your API key in your account settings.',
    { code: seen === 'none' ? null : 'invalid_api_key' },
  );
}
