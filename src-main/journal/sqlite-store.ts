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
  return new JournalError('invocation_store_unavailable', `sqlite invocation store failed${typeof code === 'string' ? ` (${code})` : ''}`);
}

export function createSqliteInvocationStore(options: SqliteInvocationStoreOptions): InvocationStore {
  let db: Database.Database;
  try {
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

  const selRecord = db.prepare<[string], RecordRow>('SELECT schema, revision FROM journal_records WHERE session_id = ?');
  const selEntries = db.prepare<[string], { invocation_id: string; pos: number; body: string }>(
    'SELECT invocation_id, pos, body FROM journal_entries WHERE session_id = ? ORDER BY pos',
  );
  const upsertRecord = db.prepare('INSERT INTO journal_records (session_id, schema, revision) VALUES (?, ?, ?) ON CONFLICT(session_id) DO UPDATE SET schema = excluded.schema, revision = excluded.revision');
  const upsertEntry = db.prepare('INSERT INTO journal_entries (session_id, invocation_id, pos, body) VALUES (?, ?, ?, ?) ON CONFLICT(session_id, invocation_id) DO UPDATE SET pos = excluded.pos, body = excluded.body');
  const deleteEntry = db.prepare('DELETE FROM journal_entries WHERE session_id = ? AND invocation_id = ?');
  const deleteAllEntries = db.prepare('DELETE FROM journal_entries WHERE session_id = ?');

  const caches = new Map<string, SessionCache>();

  function readCache(sessionId: string, row: RecordRow): SessionCache {
    const entries = new Map<string, CachedEntry>();
    for (const r of selEntries.all(sessionId)) {
      entries.set(r.invocation_id, { pos: r.pos, ref: {}, json: r.body, bytes: Buffer.byteLength(r.body, 'utf8') });
    }
    return { revision: row.revision, schema: row.schema as StoredJournalRecord['schema'], entries };
  }

  function checkHeader(sessionId: string, next: StoredJournalRecord, expectedRevision: number | null): void {
    if (next === null || typeof next !== 'object') throw new JournalError('invocation_record_invalid', 'record must be an object');
    const keys = Object.keys(next).filter((k) => !['schema', 'sessionId', 'revision', 'entries'].includes(k));
    if (keys.length > 0) throw new JournalError('invocation_record_invalid', `invocation record rejected: (record): field not allowed (${keys.join(', ')})`);
    if (next.schema !== JOURNAL_SCHEMA_V2 && next.schema !== JOURNAL_SCHEMA_V1) throw new JournalError('invocation_record_invalid', 'unknown record schema');
    if (next.sessionId !== sessionId) throw new JournalError('invocation_record_invalid', 'record sessionId does not match the session it is saved under');
    const want = (expectedRevision ?? 0) + 1;
    if (!Number.isInteger(next.revision) || next.revision !== want) throw new JournalError('invocation_record_invalid', `next revision must be ${want}`);
    if (!Array.isArray(next.entries)) throw new JournalError('invocation_record_invalid', 'entries must be an array');
  }

  const saveTx = db.transaction((sessionId: string, next: StoredJournalRecord, expectedRevision: number | null) => {
    const row = selRecord.get(sessionId);
    const current = row?.revision ?? null;
    if (current !== expectedRevision) {
      throw new JournalError('invocation_store_conflict', `stored revision is ${current ?? 'absent'}, expected ${expectedRevision ?? 'absent'}`, current);
    }
    let cache = caches.get(sessionId);
    if (!row) cache = { revision: 0, schema: next.schema, entries: new Map() };
    else if (!cache || cache.revision !== row.revision) cache = readCache(sessionId, row);
    const schemaChanged = cache.schema !== next.schema;

    const nextEntries = new Map<string, CachedEntry>();
    const writes: { id: string; pos: number; json: string }[] = [];
    let entryBytes = 0;
    next.entries.forEach((entry, pos) => {
      const idValue = (entry as { invocation_id?: unknown } | null)?.invocation_id;
      const cached = typeof idValue === 'string' ? cache.entries.get(idValue) : undefined;
      let item: CachedEntry;
      if (cached && !schemaChanged && cached.ref === entry && Object.isFrozen(entry)) {
        item = cached.pos === pos ? cached : { ...cached, pos };
      } else {
        const valid = validateEntry(entry, next.schema);
        const json = JSON.stringify(valid);
        item = cached && cached.json === json ? { ...cached, pos, ref: entry } : { pos, ref: entry, json, bytes: Buffer.byteLength(json, 'utf8') };
      }
      const key = (entry as { invocation_id: string }).invocation_id;
      if (nextEntries.has(key)) throw new JournalError('invocation_record_invalid', 'invocation record rejected: duplicate invocation_id');
      nextEntries.set(key, item);
      entryBytes += item.bytes;
      if (!cached || cached.json !== item.json || cached.pos !== pos) writes.push({ id: key, pos, json: item.json });
    });
    const size = combinedByteSize(headerByteSize(next), entryBytes, next.entries.length);
    if (size > MAX_RECORD_BYTES) {
      throw new JournalError('invocation_record_too_large', `invocation record is ${size} bytes; the bound is ${MAX_RECORD_BYTES}`);
    }
    if (nextEntries.size === 0 && cache.entries.size > 0) deleteAllEntries.run(sessionId);
    else for (const id of cache.entries.keys()) if (!nextEntries.has(id)) deleteEntry.run(sessionId, id);
    for (const w of writes) upsertEntry.run(sessionId, w.id, w.pos, w.json);
    upsertRecord.run(sessionId, next.schema, next.revision);
    return { revision: next.revision, schema: next.schema, entries: nextEntries } satisfies SessionCache;
  });

  return {
    kind: 'sqlite',
    persistent: true,
    async load(sessionId) {
      let row: RecordRow | undefined;
      let rows: { invocation_id: string; pos: number; body: string }[];
      try {
        const tx = db.transaction(() => {
          row = selRecord.get(sessionId);
          rows = row ? selEntries.all(sessionId) : [];
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
      const record = validateRecord({ schema: row.schema, sessionId, revision: row.revision, entries }, 'invocation_record_corrupt');
      const cacheEntries = new Map<string, CachedEntry>();
      record.entries.forEach((e, pos) => {
        Object.freeze(e);
        const body = rows![pos]!.body;
        cacheEntries.set(e.invocation_id, { pos, ref: e, json: body, bytes: Buffer.byteLength(body, 'utf8') });
      });
      caches.set(sessionId, { revision: record.revision, schema: record.schema, entries: cacheEntries });
      return record;
    },
    async save(sessionId, next, expectedRevision) {
      checkHeader(sessionId, next, expectedRevision);
      let cache: SessionCache;
      try {
        cache = saveTx.immediate(sessionId, next, expectedRevision);
      } catch (err) {
        throw unavailable(err);
      }
      caches.set(sessionId, cache);
      for (const e of next.entries) Object.freeze(e);
      return next;
    },
    close() {
      caches.clear();
      db.close();
    },
  };
}
