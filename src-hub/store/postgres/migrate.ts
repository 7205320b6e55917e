/**
 * Brings a PostgreSQL database up to date: the numbered migrations (migrations/postgres.ts), each
 * verified by checksum, applied in one transaction under an advisory lock so instances starting
 * together migrate once.
 */
import type { Pool } from 'pg';
import {
  type AppliedMigration,
  migrationChecksum,
  pendingMigrations,
  SCHEMA_MIGRATIONS_TABLE,
  type Migration,
} from '../migrations/index.js';
import { POSTGRES_MIGRATIONS } from '../migrations/postgres.js';

const MIGRATION_LOCK = 7_531_021_904;

export async function migratePostgres(
  pool: Pool,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(SCHEMA_MIGRATIONS_TABLE);
    const { rows } = await client.query<AppliedMigration>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    for (const m of pendingMigrations(rows, migrations)) {
      await client.query(m.sql);
      await client.query(
        'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
        [m.version, m.name, migrationChecksum(m), new Date().toISOString()],
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    broken = err as Error;
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release(broken);
  }
}
