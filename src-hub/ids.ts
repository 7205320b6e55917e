/**
 * Server-made identifiers: a readable prefix, then 32 hex digits — the creation time in
 * milliseconds (12 digits) and 80 random bits (20 digits). Ids made later sort after earlier ones,
 * so the store's indexes keyed by them (permits, tasks, runs, approvals) take each new id at their
 * right edge: a commit of many permits changes one index page, not one page per permit, as random
 * keys did. 80 random bits keep them unguessable; the time they show is in the record anyway.
 */
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'run' | 'apr' | 'task' | 'prm' | 'cli';

export const newId = (prefix: IdPrefix, nowMs: number = Date.now()): string =>
  `${prefix}_${nowMs.toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`;
