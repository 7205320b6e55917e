/** The meta table (hub id, token salt, admin token hash) and the applied migrations. */
import type { MigrationStatus } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toMigration } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';
import { noteConfigChange, readConfigGeneration } from './config-generation.js';

/** The meta key of the admin token's salted hash. */
export const ADMIN_TOKEN_META = 'admin_token_hash';

export function* readMeta(s: SqlSession, key: string): Step<string | null> {
  const row = yield* io(s.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]));
  return row ? String(row.value) : null;
}

export function* getMeta({ sql }: OpEnv, key: string): Step<string | null> {
  return yield* readMeta(sql, key);
}

export function* setMeta({ sql }: OpEnv, key: string, value: string): Step<void> {
  if (key === ADMIN_TOKEN_META) throw new Error('the admin token is set with setAdminTokenHash');
  yield* writeMeta(sql, key, value);
}

function* writeMeta(sql: SqlSession, key: string, value: string): Step<void> {
  yield* io(
    sql.run(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    ),
  );
}

/**
 * The admin token's salted hash, with a new configuration generation in the same transaction (a
 * Hub keeps the tokens it verified against it: http/auth.ts).
 */
export function* setAdminTokenHash({ sql }: OpEnv, hash: string): Step<void> {
  yield* writeMeta(sql, ADMIN_TOKEN_META, hash);
  yield* noteConfigChange(sql);
}

/** The configuration generation alone (ops/config-generation.ts). */
export function* configGeneration({ sql }: OpEnv): Step<string | null> {
  return yield* readConfigGeneration(sql);
}

/** The Hub's identity, created on first open (the candidates are used only if none is stored yet). */
export function* ensureIdentity(
  { sql }: OpEnv,
  candidates: { hub_id: string; token_salt: string },
): Step<{ hub_id: string; token_salt: string }> {
  for (const [key, value] of Object.entries(candidates)) {
    yield* io(
      sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, value]),
    );
  }
  return {
    hub_id: (yield* readMeta(sql, 'hub_id')) as string,
    token_salt: (yield* readMeta(sql, 'token_salt')) as string,
  };
}

export function* listMigrations({ sql }: OpEnv): Step<MigrationStatus[]> {
  return (yield* io(sql.all<Row>('SELECT * FROM schema_migrations ORDER BY version'))).map(toMigration);
}
