/**
 * Server-made identifiers: a readable prefix, then 32 hex digits — the creation time in
 * milliseconds (12 digits) and 80 random bits (20 digits). Ids made later sort after earlier ones,
 * so the store's indexes keyed by them (permits, tasks, runs, approvals) take each new id at their
 * right edge: a commit of many permits changes one index page, not one page per permit, as random
 * keys did. 80 random bits keep them unguessable; the time they show is in the record anyway.
 */
import { randomUUID } from 'node:crypto';

export type IdPrefix = 'run' | 'apr' | 'task' | 'prm' | 'cli';

/**
 * 80 random bits as 20 hex digits: the last 48 and the first 32 bits of a random UUID (none of them
 * its version or variant digits). randomUUID draws from a cached pool of entropy, which is several
 * times cheaper per call than randomBytes.
 */
const random80 = (): string => {
  const u = randomUUID();
  return u.slice(24, 36) + u.slice(0, 8);
};

export const newId = (prefix: IdPrefix, nowMs: number = Date.now()): string =>
  `${prefix}_${nowMs.toString(16).padStart(12, '0')}${random80()}`;
