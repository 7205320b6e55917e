/** Per-launch access token for the browser host, compared in constant time. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newLaunchToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenMatches(expected: string, presented: unknown): boolean {
  if (typeof presented !== 'string' || presented.length === 0 || presented.length > 512) return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(presented).digest();
  return timingSafeEqual(a, b);
}
