/**
 * Numbered schema migrations, one list per dialect with the same versions and names (sqlite.ts,
 * postgres.ts). Each applied migration's checksum (sha256 of version, name and that dialect's SQL)
 * is stored in `schema_migrations`; at every start the store verifies them and refuses to start
 * when an applied migration was changed or is unknown to this Hub. Never edit a released
 * migration: add a new one, in both dialects.
 */
import { sha256Hex } from '../../../src-shared/digest.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

export class MigrationChecksumError extends Error {
  constructor(
    readonly version: number,
    readonly migrationName: string,
  ) {
    super(
      `applied migration ${version} (${migrationName}) has been changed since it was applied; refusing to start`,
    );
  }
}

export function migrationChecksum(m: Migration): string {
  return sha256Hex(`${m.version}\n${m.name}\n${m.sql}`);
}

/** Verifies what the database has applied against what this Hub knows; answers what is left to apply, in order. */
export function pendingMigrations(
  applied: readonly AppliedMigration[],
  known: readonly Migration[],
): Migration[] {
  const byVersion = new Map(known.map((m) => [m.version, m]));
  for (const row of applied) {
    const m = byVersion.get(row.version);
    if (!m)
      throw new Error(
        `the database has migration ${row.version} (${row.name}) that this Hub does not know; refusing to start`,
      );
    if (migrationChecksum(m) !== row.checksum) throw new MigrationChecksumError(row.version, row.name);
  }
  const done = new Set(applied.map((r) => r.version));
  return [...known].sort((a, b) => a.version - b.version).filter((m) => !done.has(m.version));
}

export const SCHEMA_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`;
