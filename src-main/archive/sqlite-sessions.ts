/** The archive's session rows: title, times and settings (secrets masked before they are written). */
import type Database from 'better-sqlite3';
import { redactPayload } from './redact.js';
import type { ArchiveSessionRecord, ArchiveStore } from './types.js';

type SessionRow = {
  session_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  settings: string;
};

export function createSessionRows(
  db: Database.Database,
  secrets: () => readonly string[],
): Pick<ArchiveStore, 'upsertSession' | 'getSession' | 'listSessions'> {
  const upsert = db.prepare(
    `INSERT INTO archive_sessions (session_id, title, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(session_id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at, settings = excluded.settings`,
  );
  const one = db.prepare<[string], SessionRow>('SELECT * FROM archive_sessions WHERE session_id = ?');
  const all = db.prepare<[], SessionRow>(
    'SELECT * FROM archive_sessions ORDER BY updated_at DESC, session_id',
  );
  return {
    upsertSession(record) {
      upsert.run(
        record.sessionId,
        record.title,
        record.createdAt,
        record.updatedAt,
        JSON.stringify(redactPayload(record.settings, secrets())),
      );
    },
    getSession(sessionId) {
      const row = one.get(sessionId);
      return row ? toSession(row) : null;
    },
    listSessions: () => all.all().map(toSession),
  };
}

function toSession(row: SessionRow): ArchiveSessionRecord {
  let settings: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.settings);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      settings = parsed as Record<string, unknown>;
  } catch {
    settings = {};
  }
  return {
    sessionId: row.session_id,
    title: row.title,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    settings,
  };
}
