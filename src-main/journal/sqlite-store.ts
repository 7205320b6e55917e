/**
 * SQLite invocation store (the default). better-sqlite3, WAL, synchronous=FULL.
 *
 * Entries are stored as rows, so a save writes only the entries that changed plus the record row:
 * its cost does not grow with the record's size. `load` still returns the complete record, and
 * `save` still compares the previous revision atomically (inside one IMMEDIATE transaction) and
 * acknowledges only after the commit. Entries a save has persisted are frozen, so an unchanged
 * entry is recognized by identity; anything else is compared by its serialized form.
 */
import Database from 'better-sqlite3';
import { ensurePrivateFile } from '../../src-shared/private-files.js';
import { JournalError } from './errors.js';
import {
  JOURNAL_SCHEMA_V1,
  JOURNAL_SCHEMA_V2,
  MAX_RECORD_BYTES,
  combinedByteSize,
  headerByteSize,
  validateEntry,
  validateRecord,
  type StoredJournalRecord,
} from './record.js';
import type { InvocationStore } from './store.js';

interface CachedEntry {
  pos: number;
  ref: object;
  json: string;
  bytes: number;
}
interface SessionCache {
  revision: number;
  schema: StoredJournalRecord['schema'];
  entries: Map<string, CachedEntry>;
  /** Sum of the serialized entry sizes (for the exact 8 MiB check without re-serializing). */
  entryBytes: number;
}
interface RecordRow {
  schema: string;
  revision: number;
}

export interface SqliteInvocationStoreOptions {
  path: string;
  /** How long a writer waits for another process's transaction (ms). */
  busyTimeoutMs?: number;
}

function unavailable(err: unknown): JournalError {
  if (err instanceof JournalError) return err;
  const code = (err as { code?: unknown })?.code;
  return new JournalError(
    'invocation_store_unavailable',
    `sqlite invocation store failed${typeof code === 'string' ? ` (${code})` : ''}`,
  );
}

/** The statements of the store, prepared once. */
function prepareStatements(db: Database.Database) {
  const selRecord = db.prepare<[string], RecordRow>(
    'SELECT schema, revision FROM journal_records WHERE session_id = ?',
  );
  const selEntries = db.prepare<[string], { invocation_id: string; pos: number; body: string }>(
    'SELECT invocation_id, pos, body FROM journal_entries WHERE session_id = ? ORDER BY pos',
  );
  const upsertRecord = db.prepare(
    'INSERT INTO journal_records (session_id, schema, revision) VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET schema = excluded.schema, revision = excluded.revision',
  );
  const upsertEntry = db.prepare(
    'INSERT INTO journal_entries (session_id, invocation_id, pos, body) VALUES (?, ?, ?, ?) ON CONFLICT(session_id, invocation_id) DO UPDATE SET pos = excluded.pos, body = excluded.body',
  );
  const deleteEntry = db.prepare('DELETE FROM journal_entries WHERE session_id = ? AND invocation_id = ?');
  const deleteAllEntries = db.prepare('DELETE FROM journal_entries WHERE session_id = ?');
  return { selRecord, selEntries, upsertRecord, upsertEntry, deleteEntry, deleteAllEntries };
}
type Statements = ReturnType<typeof prepareStatements>;

function readCache(st: Statements, sessionId: string, row: RecordRow): SessionCache {
  const entries = new Map<string, CachedEntry>();
  for (const r of st.selEntries.all(sessionId)) {
    entries.set(r.invocation_id, {
      pos: r.pos,
      ref: {},
      json: r.body,
      bytes: Buffer.byteLength(r.body, 'utf8'),
    });
  }
  let entryBytes = 0;
  for (const e of entries.values()) entryBytes += e.bytes;
  return {
    revision: row.revision,
    schema: row.schema as StoredJournalRecord['schema'],
    entries,
    entryBytes,
  };
}

function checkHeader(sessionId: string, next: StoredJournalRecord, expectedRevision: number | null): void {
  if (next === null || typeof next !== 'object')
    throw new JournalError('invocation_record_invalid', 'record must be an object');
  const keys = Object.keys(next).filter((k) => !['schema', 'sessionId', 'revision', 'entries'].includes(k));
  if (keys.length > 0)
    throw new JournalError(
      'invocation_record_invalid',
      `invocation record rejected: (record): field not allowed (${keys.join(', ')})`,
    );
  if (next.schema !== JOURNAL_SCHEMA_V2 && next.schema !== JOURNAL_SCHEMA_V1)
    throw new JournalError('invocation_record_invalid', 'unknown record schema');
  if (next.sessionId !== sessionId)
    throw new JournalError(
      'invocation_record_invalid',
      'record sessionId does not match the session it is saved under',
    );
  const want = (expectedRevision ?? 0) + 1;
  if (!Number.isInteger(next.revision) || next.revision !== want)
    throw new JournalError('invocation_record_invalid', `next revision must be ${want}`);
  if (!Array.isArray(next.entries))
    throw new JournalError('invocation_record_invalid', 'entries must be an array');
}

interface Change {
  id: string;
  pos: number;
  ref: object;
  json: string;
  bytes: number;
  write: boolean; // false: same content under a new object (only the cache learns the new ref)
}
interface Plan {
  cache: SessionCache;
  changes: Change[];
  deleted: string[];
  entryBytes: number;
}

/**
 * Works out what a save changes. Unchanged entries (the same frozen object at the same position)
 * cost one map lookup each; only changed entries are validated and serialized.
 */
function plan(cache: SessionCache, next: StoredJournalRecord): Plan {
  const schemaChanged = cache.schema !== next.schema;
  const changes: Change[] = [];
  const changedIds = new Set<string>();
  let matchedExisting = 0;
  let entryBytes = cache.entryBytes;
  const entries = next.entries as unknown[];
  for (let pos = 0; pos < entries.length; pos++) {
    const entry = entries[pos];
    const idValue = (entry as { invocation_id?: unknown } | null)?.invocation_id;
    const cached = typeof idValue === 'string' ? cache.entries.get(idValue) : undefined;
    if (cached && !schemaChanged && cached.ref === entry && cached.pos === pos && Object.isFrozen(entry)) {
      matchedExisting += 1;
      continue;
    }
    const valid = validateEntry(entry, next.schema);
    const id = valid.invocation_id;
    const duplicate =
      changedIds.has(id) ||
      (cached !== undefined &&
        cached.pos !== pos &&
        (entries[cached.pos] as { invocation_id?: unknown } | undefined)?.invocation_id === id);
    if (duplicate)
      throw new JournalError(
        'invocation_record_invalid',
        'invocation record rejected: duplicate invocation_id',
      );
    changedIds.add(id);
    const json = JSON.stringify(valid);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (cached) {
      matchedExisting += 1;
      entryBytes -= cached.bytes;
    }
    entryBytes += bytes;
    changes.push({
      id,
      pos,
      ref: entry as object,
      json,
      bytes,
      write: !(cached && cached.json === json && cached.pos === pos),
    });
  }
  let deleted: string[] = [];
  if (matchedExisting !== cache.entries.size) {
    const present = new Set(entries.map((e) => (e as { invocation_id: string }).invocation_id));
    deleted = [...cache.entries.keys()].filter((id) => !present.has(id));
    for (const id of deleted) entryBytes -= cache.entries.get(id)!.bytes;
  }
  return { cache, changes, deleted, entryBytes };
}

/** After the commit only: the cache learns the new revision and entries. */
function applyPlan(
  caches: Map<string, SessionCache>,
  sessionId: string,
  next: StoredJournalRecord,
  p: Plan,
): void {
  const cache = p.cache;
  for (const id of p.deleted) cache.entries.delete(id);
  for (const c of p.changes) {
    Object.freeze(c.ref);
    cache.entries.set(c.id, { pos: c.pos, ref: c.ref, json: c.json, bytes: c.bytes });
  }
  cache.revision = next.revision;
  cache.schema = next.schema;
  cache.entryBytes = p.entryBytes;
  caches.set(sessionId, cache);
}

export function createSqliteInvocationStore(options: SqliteInvocationStoreOptions): InvocationStore {
  let db: Database.Database;
  try {
    // 0600 before SQLite opens it: its -wal and -shm files take the database file's mode
    ensurePrivateFile(options.path);
    db = new Database(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS journal_records (
        session_id TEXT PRIMARY KEY,
        schema TEXT NOT NULL,
        revision INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS journal_entries (
        session_id TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        pos INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (session_id, invocation_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS journal_entries_by_pos ON journal_entries (session_id, pos);
    `);
  } catch (err) {
    throw unavailable(err);
  }

  const st = prepareStatements(db);
  const caches = new Map<string, SessionCache>();

  const saveTx = db.transaction(
    (sessionId: string, next: StoredJournalRecord, expectedRevision: number | null): Plan => {
      const row = st.selRecord.get(sessionId);
      const current = row?.revision ?? null;
      if (current !== expectedRevision) {
        throw new JournalError(
          'invocation_store_conflict',
          `stored revision is ${current ?? 'absent'}, expected ${expectedRevision ?? 'absent'}`,
          current,
        );
      }
      let cache = caches.get(sessionId);
      if (!row) cache = { revision: 0, schema: next.schema, entries: new Map(), entryBytes: 0 };
      else if (!cache || cache.revision !== row.revision) cache = readCache(st, sessionId, row);
      const p = plan(cache, next);
      const size = combinedByteSize(headerByteSize(next), p.entryBytes, next.entries.length);
      if (size > MAX_RECORD_BYTES) {
        throw new JournalError(
          'invocation_record_too_large',
          `invocation record is ${size} bytes; the bound is ${MAX_RECORD_BYTES}`,
        );
      }
      if (next.entries.length === 0 && cache.entries.size > 0) st.deleteAllEntries.run(sessionId);
      else for (const id of p.deleted) st.deleteEntry.run(sessionId, id);
      for (const c of p.changes) if (c.write) st.upsertEntry.run(sessionId, c.id, c.pos, c.json);
      st.upsertRecord.run(sessionId, next.schema, next.revision);
      return p;
    },
  );

  return {
    kind: 'sqlite',
    persistent: true,
    async load(sessionId) {
      let row: RecordRow | undefined;
      let rows: { invocation_id: string; pos: number; body: string }[];
      try {
        const tx = db.transaction(() => {
          row = st.selRecord.get(sessionId);
          rows = row ? st.selEntries.all(sessionId) : [];
        });
        tx();
      } catch (err) {
        throw unavailable(err);
      }
      if (!row) return null;
      let entries: unknown[];
      try {
        entries = rows!.map((r) => JSON.parse(r.body) as unknown);
      } catch {
        throw new JournalError('invocation_record_corrupt', 'a stored invocation entry is not valid JSON');
      }
      const record = validateRecord(
        { schema: row.schema, sessionId, revision: row.revision, entries },
        'invocation_record_corrupt',
      );
      const cacheEntries = new Map<string, CachedEntry>();
      let entryBytes = 0;
      record.entries.forEach((e, pos) => {
        Object.freeze(e);
        const body = rows![pos]!.body;
        const bytes = Buffer.byteLength(body, 'utf8');
        entryBytes += bytes;
        cacheEntries.set(e.invocation_id, { pos, ref: e, json: body, bytes });
      });
      caches.set(sessionId, {
        revision: record.revision,
        schema: record.schema,
        entries: cacheEntries,
        entryBytes,
      });
      return record;
    },
    async save(sessionId, next, expectedRevision) {
      checkHeader(sessionId, next, expectedRevision);
      let p: Plan;
      try {
        p = saveTx.immediate(sessionId, next, expectedRevision);
      } catch (err) {
        // The cache may be stale now (another writer); it is re-read when its revision does not match.
        throw unavailable(err);
      }
      applyPlan(caches, sessionId, next, p);
      return next;
    },
    close() {
      caches.clear();
      db.close();
    },
  };
}
