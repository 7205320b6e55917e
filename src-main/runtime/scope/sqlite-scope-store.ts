/**
 * SQLite scope store: each session's fixed scope (members, fingerprint, revision, task binding).
 * A scope is fixed: saving a different scope under the same revision, or an older revision, is refused.
 */
import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../../../src-shared/private-files.js';
import type { ScopeStore, SessionScope } from '../invocation-ports.js';
import { SessionScopeSchema } from './schema.js';

export class ScopeStoreError extends Error {
  override readonly name = 'ScopeStoreError';
  constructor(
    readonly code: 'scope_store_unavailable' | 'scope_invalid' | 'scope_conflict' | 'scope_corrupt',
    message: string,
  ) {
    super(message);
  }
}

export interface SqliteScopeStore extends ScopeStore {
  close(): void;
}

export function createSqliteScopeStore(options: { path: string }): SqliteScopeStore {
  let db: Database.Database;
  try {
    // 0600 before SQLite opens it: its -wal and -shm files take the database file's mode
    ensurePrivateFile(options.path);
    db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec(
      'CREATE TABLE IF NOT EXISTS session_scopes (session_id TEXT PRIMARY KEY, revision INTEGER NOT NULL, body TEXT NOT NULL) WITHOUT ROWID',
    );
  } catch {
    throw new ScopeStoreError('scope_store_unavailable', 'cannot open the scope store');
  }
  const sel = db.prepare<[string], { revision: number; body: string }>(
    'SELECT revision, body FROM session_scopes WHERE session_id = ?',
  );
  const upsert = db.prepare(
    'INSERT INTO session_scopes (session_id, revision, body) VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET revision = excluded.revision, body = excluded.body',
  );

  const saveTx = db.transaction((scope: SessionScope) => {
    const row = sel.get(scope.sessionId);
    const body = JSON.stringify(scope);
    if (row) {
      if (row.revision > scope.revision)
        throw new ScopeStoreError('scope_conflict', 'a newer scope revision is stored');
      if (row.revision === scope.revision && row.body !== body)
        throw new ScopeStoreError('scope_conflict', 'a different scope is stored under this revision');
    }
    upsert.run(scope.sessionId, scope.revision, body);
  });

  return {
    async load(sessionId) {
      let row: { revision: number; body: string } | undefined;
      try {
        row = sel.get(sessionId);
      } catch {
        throw new ScopeStoreError('scope_store_unavailable', 'cannot read the scope store');
      }
      if (!row) return null;
      let value: unknown;
      try {
        value = JSON.parse(row.body);
      } catch {
        throw new ScopeStoreError('scope_corrupt', 'stored scope is not valid JSON');
      }
      const parsed = SessionScopeSchema.safeParse(value);
      if (!parsed.success || parsed.data.sessionId !== sessionId)
        throw new ScopeStoreError('scope_corrupt', 'stored scope does not match its schema');
      return parsed.data;
    },
    async save(scope) {
      const parsed = SessionScopeSchema.safeParse(scope);
      if (!parsed.success)
        throw new ScopeStoreError(
          'scope_invalid',
          `scope rejected: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
        );
      try {
        saveTx.immediate(parsed.data);
      } catch (err) {
        if (err instanceof ScopeStoreError) throw err;
        throw new ScopeStoreError('scope_store_unavailable', 'cannot write the scope store');
      }
    },
    close() {
      db.close();
    },
  };
}

export function createMemoryScopeStore(): ScopeStore {
  const scopes = new Map<string, SessionScope>();
  return {
    async load(sessionId) {
      const s = scopes.get(sessionId);
      return s ? structuredClone(s) : null;
    },
    async save(scope) {
      scopes.set(scope.sessionId, structuredClone(SessionScopeSchema.parse(scope)));
    },
  };
}
