/** Opens the Hub's SQLite file (WAL, synchronous=FULL) and applies/verifies numbered migrations. */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../../src-shared/digest.js';
import { MIGRATIONS, type Migration } from '../migrations.js';

export const SQLITE_DURABILITY =
  'SQLite WAL, synchronous=FULL, busy_timeout=5000 (every state change is fsynced before the Hub acts on it)';

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

export function openDatabase(
  dataDir: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Database.Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, 'hub.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  try {
    migrate(db, migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const applied = db
    .prepare('SELECT version, name, checksum FROM schema_migrations ORDER BY version')
    .all() as Array<{
    version: number;
    name: string;
    checksum: string;
  }>;
  const byVersion = new Map(migrations.map((m) => [m.version, m]));
  for (const row of applied) {
    const m = byVersion.get(row.version);
    if (!m)
      throw new Error(
        `the database has migration ${row.version} (${row.name}) that this Hub does not know; refusing to start`,
      );
    if (migrationChecksum(m) !== row.checksum) throw new MigrationChecksumError(row.version, row.name);
  }
  const done = new Set(applied.map((r) => r.version));
  const insert = db.prepare(
    'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)',
  );
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (done.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      insert.run(m.version, m.name, migrationChecksum(m), new Date().toISOString());
    })();
  }
}
