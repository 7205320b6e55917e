/**
 * SQLite conversation archive (better-sqlite3, WAL, synchronous FULL): one file holds every
 * session's rows (./sqlite-sessions.ts), events (./sqlite-events.ts: durable before they are
 * shown, unsaved ones queued in order) and the attachment space (./sqlite-attachments.ts).
 */
import Database from 'better-sqlite3';
import { ensurePrivateDir, ensurePrivateFile } from '../../src-shared/private-files.js';
import { dirname } from 'node:path';
import { createAttachmentRows } from './sqlite-attachments.js';
import { createEventLog } from './sqlite-events.js';
import { createSessionRows } from './sqlite-sessions.js';
import type { ArchiveStore } from './types.js';

export { ArchiveInputError } from './sqlite-errors.js';

export interface SqliteArchiveOptions {
  file: string;
  /** Known secret values (API key, Hub token) to mask if they ever appear in a payload. */
  secrets?: () => readonly string[];
  busyTimeoutMs?: number;
  /** Largest accepted payload (JSON text, bytes). */
  maxPayloadBytes?: number;
  /** Largest accepted attachment text (UTF-8 bytes). */
  maxAttachmentBytes?: number;
  now?: () => string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS archive_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS archive_sessions (
  session_id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS archive_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  turn_id TEXT,
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS archive_attachments (
  attachment_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  name TEXT NOT NULL,
  media_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at TEXT NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS archive_attachments_by_session ON archive_attachments (session_id, created_at);
`;

function openArchive(opts: SqliteArchiveOptions): Database.Database {
  ensurePrivateDir(dirname(opts.file));
  // 0600 before SQLite opens it: its -wal and -shm files take the database file's mode
  ensurePrivateFile(opts.file);
  const db = new Database(opts.file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 2000))}`);
  db.exec(SCHEMA);
  db.prepare(
    `INSERT OR IGNORE INTO archive_meta (key, value) VALUES ('schema', 'bailing.desk-archive.v1')`,
  ).run();
  return db;
}

export function createSqliteArchive(opts: SqliteArchiveOptions): ArchiveStore {
  const db = openArchive(opts);
  const secrets = opts.secrets ?? (() => []);
  const events = createEventLog(db, {
    maxPayloadBytes: opts.maxPayloadBytes ?? 1024 * 1024,
    now: opts.now ?? (() => new Date().toISOString()),
    secrets,
  });
  const { flushAll, ...eventOps } = events;
  return {
    ...eventOps,
    ...createSessionRows(db, secrets),
    ...createAttachmentRows(db, { maxAttachmentBytes: opts.maxAttachmentBytes ?? 512 * 1024, secrets }),
    close() {
      flushAll();
      db.close();
    },
  };
}
