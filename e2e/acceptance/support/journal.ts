/** Read-only look at the host's invocation journal file (what survived on disk). */
import Database from 'better-sqlite3';
import { join } from 'node:path';

export interface JournalRow {
  session_id: string;
  invocation_id: string;
  body: Record<string, unknown>;
}

export function journalFile(deskDir: string): string {
  return join(deskDir, 'host', 'invocations.sqlite');
}

export function readJournal(deskDir: string): JournalRow[] {
  const db = new Database(journalFile(deskDir), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare<[], { session_id: string; invocation_id: string; body: string }>(
        'SELECT session_id, invocation_id, body FROM journal_entries ORDER BY session_id, pos',
      )
      .all()
      .map((r) => ({
        session_id: r.session_id,
        invocation_id: r.invocation_id,
        body: JSON.parse(r.body) as Record<string, unknown>,
      }));
  } finally {
    db.close();
  }
}
