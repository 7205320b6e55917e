/**
 * The configuration generation: a `meta` row that every write of a system, its declarations, an
 * authorization or a grant sets to a fresh value in its own transaction, whichever process writes
 * it (this Hub's writer, the operator CLI, another instance on PostgreSQL). A reader that finds the
 * value it read before knows none of those rows changed since: the invoke path keeps them in
 * memory against it (sql/invoke-cache.ts) and reads this one row per call instead of four.
 */
import { randomUUID } from 'node:crypto';
import { io, type SqlSession, type Step } from '../session.js';

export const CONFIG_GENERATION_KEY = 'config_generation';

/** Inside a write's transaction that changes a system, its operations, an authorization or a grant. */
export function* noteConfigChange(s: SqlSession): Step<void> {
  yield* io(
    s.run(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [CONFIG_GENERATION_KEY, randomUUID()],
    ),
  );
}

/** The current generation; null while no such write has ever committed. */
export function* readConfigGeneration(s: SqlSession): Step<string | null> {
  const row = yield* io(
    s.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [CONFIG_GENERATION_KEY]),
  );
  return row ? String(row.value) : null;
}
