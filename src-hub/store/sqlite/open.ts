/** Opens the Hub's SQLite file (WAL, synchronous=FULL) and applies/verifies the numbered migrations. */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { ensurePrivateDir, ensurePrivateFile } from '../../../src-shared/private-files.js';
import {
  type AppliedMigration,
  migrationChecksum,
  pendingMigrations,
  SCHEMA_MIGRATIONS_TABLE,
  type Migration,
} from '../migrations/index.js';
import { SQLITE_MIGRATIONS } from '../migrations/sqlite.js';

export { MigrationChecksumError } from '../migrations/index.js';

export const SQLITE_DURABILITY =
  'SQLite WAL, synchronous=FULL, busy_timeout=5000, group commit in a writer thread (every state change is fsynced before the Hub acts on it)';

export const sqliteFile = (dataDir: string) => join(dataDir, 'hub.sqlite');

/** One connection with the Hub's pragmas. */
export function connect(dataDir: string): Database.Database {
  const db = new Database(sqliteFile(dataDir));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * Pages the writer's WAL may hold before the COMMIT that crosses the mark copies them into the
 * database file (a checkpoint: page writes and two fsyncs, inside that commit). SQLite's default,
 * 1,000, put one in every ~10th batch of 16 permits (~100 pages each) and copied a page that many
 * batches rewrite once per checkpoint; 10,000 makes checkpoints ten times rarer. The WAL file grows
 * to ~40 MB (and stays that size: SQLite reuses it). Durability is the same: every commit's pages are
 * fsynced in the WAL before COMMIT returns.
 */
export const WRITER_WAL_AUTOCHECKPOINT_PAGES = 10_000;

/** The connection of the store's one writer (the writer thread). */
export function connectWriter(dataDir: string): Database.Database {
  const db = connect(dataDir);
  db.pragma(`wal_autocheckpoint = ${WRITER_WAL_AUTOCHECKPOINT_PAGES}`);
  // Inside a SAVEPOINT (a batch's task views; each write of a batch run again after one failed:
  // group-commit.ts) SQLite copies every page a write changes first into a statement journal, to
  // roll that write back alone. Past 64 KiB
  // that journal spilled into a temporary file: ~40 pwrite calls per permit. In memory it costs a
  // copy; a crash loses nothing (the journal only ever undoes the open transaction).
  db.pragma('temp_store = MEMORY');
  return db;
}

/** Creates the data directory and the file if needed and brings the schema up to date. */
export function openDatabase(
  dataDir: string,
  migrations: readonly Migration[] = SQLITE_MIGRATIONS,
): Database.Database {
  ensurePrivateDir(dataDir);
  // made 0600 before SQLite opens it: its -wal and -shm files take the database file's mode
  ensurePrivateFile(sqliteFile(dataDir));
  const db = connect(dataDir);
  try {
    migrate(db, migrations);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/** Applies what is pending in one IMMEDIATE transaction, so two processes opening a new file do not both migrate. */
function migrate(db: Database.Database, migrations: readonly Migration[]): void {
  db.exec(SCHEMA_MIGRATIONS_TABLE);
  const applied = db.prepare('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
  const insert = db.prepare(
    'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (const m of pendingMigrations(applied.all() as AppliedMigration[], migrations)) {
      db.exec(m.sql);
      insert.run(m.version, m.name, migrationChecksum(m), new Date().toISOString());
    }
  }).immediate();
}
