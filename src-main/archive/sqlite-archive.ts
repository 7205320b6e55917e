/**
 * SQLite conversation archive (better-sqlite3, WAL). One file holds every session's events.
 * An event is durable when `append` returns `saved: true`; only then may the runtime show it.
 * A failed save keeps the event in memory as an unsaved event (state `storage_error`) until
 * `flush` succeeds; later events queue behind it so the order never changes.
 */
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { redactPayload } from './redact.js';
import type {
  ArchiveAttachmentRecord,
  ArchiveGap,
  ArchiveSessionRecord,
  ArchiveStatusRecord,
  ArchiveStore,
  ArchiveUnsaved,
  NewArchiveEvent,
  StoredArchiveEvent,
} from './types.js';

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

interface Pending {
  event: NewArchiveEvent;
  unsaved: ArchiveUnsaved;
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

export function createSqliteArchive(opts: SqliteArchiveOptions): ArchiveStore {
  mkdirSync(dirname(opts.file), { recursive: true });
  const db = new Database(opts.file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 2000))}`);
  db.exec(SCHEMA);
  db.prepare(
    `INSERT OR IGNORE INTO archive_meta (key, value) VALUES ('schema', 'bailing.desk-archive.v1')`,
  ).run();
  const maxPayload = opts.maxPayloadBytes ?? 1024 * 1024;
  const now = opts.now ?? (() => new Date().toISOString());
  const secrets = opts.secrets ?? (() => []);
  const pending = new Map<string, Pending[]>();
  const lastFailure = new Map<string, string>();

  const nextSeqStmt = db.prepare<[string], { next: number }>(
    'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM archive_events WHERE session_id = ?',
  );
  const insertStmt = db.prepare(
    'INSERT INTO archive_events (session_id, seq, event_id, turn_id, at, kind, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const maxAttachmentBytes = opts.maxAttachmentBytes ?? 512 * 1024;
  const insertAttachmentStmt = db.prepare(
    'INSERT INTO archive_attachments (attachment_id, session_id, name, media_type, size_bytes, sha256, created_at, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertAttachmentsTx = db.transaction((records: ArchiveAttachmentRecord[]) => {
    for (const r of records)
      insertAttachmentStmt.run(
        r.attachmentId,
        r.sessionId,
        r.name,
        r.mediaType,
        r.sizeBytes,
        r.sha256,
        r.createdAt,
        r.text,
      );
  });
  const touchStmt = db.prepare('UPDATE archive_sessions SET updated_at = ? WHERE session_id = ?');
  const insertTx = db.transaction((sessionId: string, e: NewArchiveEvent, payloadText: string): number => {
    const seq = nextSeqStmt.get(sessionId)?.next ?? 1;
    insertStmt.run(sessionId, seq, e.eventId, e.turnId, e.at, e.kind, payloadText);
    touchStmt.run(e.at, sessionId);
    return seq;
  });

  function serialize(e: NewArchiveEvent): { text: string; payload: Record<string, unknown> } {
    const payload = redactPayload(e.payload, secrets()) as Record<string, unknown>;
    const text = JSON.stringify(payload);
    if (Buffer.byteLength(text) > maxPayload)
      throw new ArchiveInputError(`payload of ${e.kind} exceeds ${maxPayload} bytes`);
    return { text, payload };
  }

  function write(sessionId: string, e: NewArchiveEvent): StoredArchiveEvent {
    const { text, payload } = serialize(e);
    const seq = insertTx.immediate(sessionId, e, text);
    return { ...e, payload, seq, sessionId };
  }

  function flushQueue(sessionId: string): boolean {
    const queue = pending.get(sessionId);
    while (queue && queue.length > 0) {
      const head = queue[0] as Pending;
      try {
        write(sessionId, head.event);
      } catch (err) {
        if (err instanceof ArchiveInputError) throw err;
        if (isDuplicateEventId(err)) {
          // saved by an earlier attempt whose acknowledgement we never saw
        } else {
          head.unsaved.reason = reasonOf(err);
          lastFailure.set(sessionId, head.unsaved.reason);
          return false;
        }
      }
      queue.shift();
    }
    pending.delete(sessionId);
    lastFailure.delete(sessionId);
    return true;
  }

  function readGap(sessionId: string): ArchiveGap | null {
    const rows = db
      .prepare<[string], { seq: number }>('SELECT seq FROM archive_events WHERE session_id = ? ORDER BY seq')
      .all(sessionId);
    let expected = 1;
    for (const { seq } of rows) {
      if (seq !== expected)
        return { afterSeq: expected - 1, nextSeq: seq, detail: `events ${expected}..${seq - 1} are missing` };
      expected = seq + 1;
    }
    return null;
  }

  function statusOf(sessionId: string, extraGap: ArchiveGap | null = null): ArchiveStatusRecord {
    const unsavedEvents = (pending.get(sessionId) ?? []).map((p) => ({ ...p.unsaved }));
    let recoveryGap: ArchiveGap | null = extraGap;
    let reason: string | null = null;
    try {
      recoveryGap = recoveryGap ?? readGap(sessionId);
    } catch (err) {
      reason = reasonOf(err);
      return { state: 'storage_error', unsavedEvents, recoveryGap, reason };
    }
    if (unsavedEvents.length > 0)
      return {
        state: 'storage_error',
        unsavedEvents,
        recoveryGap,
        reason: lastFailure.get(sessionId) ?? 'archive_store_unavailable',
      };
    if (recoveryGap)
      return { state: 'recovery_gap', unsavedEvents, recoveryGap, reason: 'archive_recovery_gap' };
    return { state: 'ready', unsavedEvents, recoveryGap: null, reason: null };
  }

  return {
    append(sessionId, event) {
      serialize(event); // reject bad input before anything is queued
      const entry: Pending = {
        event,
        unsaved: { eventId: event.eventId, kind: event.kind, reason: '', since: now() },
      };
      const earlierSaved = pending.has(sessionId) ? flushQueue(sessionId) : true;
      if (!earlierSaved) {
        entry.unsaved.reason = lastFailure.get(sessionId) ?? 'archive_store_unavailable';
        pending.get(sessionId)?.push(entry);
        return { saved: false, reason: entry.unsaved.reason, status: statusOf(sessionId) };
      }
      try {
        const stored = write(sessionId, event);
        lastFailure.delete(sessionId);
        return { saved: true, event: stored };
      } catch (err) {
        if (isDuplicateEventId(err)) throw new ArchiveInputError(`event id ${event.eventId} already saved`);
        const reason = reasonOf(err);
        entry.unsaved.reason = reason;
        lastFailure.set(sessionId, reason);
        pending.set(sessionId, [entry]);
        return { saved: false, reason, status: statusOf(sessionId) };
      }
    },
    load(sessionId, loadOpts) {
      const rows = db
        .prepare<
          [string, number, number],
          { seq: number; event_id: string; turn_id: string | null; at: string; kind: string; payload: string }
        >(
          'SELECT seq, event_id, turn_id, at, kind, payload FROM archive_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
        )
        .all(sessionId, loadOpts?.afterSeq ?? 0, loadOpts?.limit ?? -1);
      const events: StoredArchiveEvent[] = [];
      let unreadable: ArchiveGap | null = null;
      for (const r of rows) {
        let payload: unknown;
        try {
          payload = JSON.parse(r.payload);
        } catch {
          payload = null;
        }
        if (
          payload === null ||
          typeof payload !== 'object' ||
          Array.isArray(payload) ||
          typeof r.kind !== 'string'
        ) {
          unreadable ??= { afterSeq: r.seq - 1, nextSeq: r.seq + 1, detail: `event ${r.seq} is unreadable` };
          continue;
        }
        events.push({
          seq: r.seq,
          sessionId,
          eventId: r.event_id,
          turnId: r.turn_id,
          at: r.at,
          kind: r.kind,
          payload: payload as Record<string, unknown>,
        });
      }
      return { events, status: statusOf(sessionId, unreadable) };
    },
    status: (sessionId) => statusOf(sessionId),
    flush(sessionId) {
      flushQueue(sessionId);
      return statusOf(sessionId);
    },
    upsertSession(record) {
      db.prepare(
        `INSERT INTO archive_sessions (session_id, title, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(session_id) DO UPDATE SET title = excluded.title, updated_at = excluded.updated_at, settings = excluded.settings`,
      ).run(
        record.sessionId,
        record.title,
        record.createdAt,
        record.updatedAt,
        JSON.stringify(redactPayload(record.settings, secrets())),
      );
    },
    getSession(sessionId) {
      const row = db
        .prepare<
          [string],
          { session_id: string; title: string; created_at: string; updated_at: string; settings: string }
        >('SELECT * FROM archive_sessions WHERE session_id = ?')
        .get(sessionId);
      return row ? toSession(row) : null;
    },
    listSessions() {
      return db
        .prepare<
          [],
          { session_id: string; title: string; created_at: string; updated_at: string; settings: string }
        >('SELECT * FROM archive_sessions ORDER BY updated_at DESC, session_id')
        .all()
        .map(toSession);
    },
    saveAttachments(sessionId, inputs) {
      // The same masking as message text: a known secret value never reaches the file.
      const records = inputs.map((input): ArchiveAttachmentRecord => {
        const masked = redactPayload({ name: input.name, text: input.text }, secrets()) as {
          name: string;
          text: string;
        };
        const sizeBytes = Buffer.byteLength(masked.text, 'utf8');
        if (sizeBytes > maxAttachmentBytes)
          throw new ArchiveInputError(`attachment ${input.attachmentId} exceeds ${maxAttachmentBytes} bytes`);
        if (masked.text.includes('\u0000') || masked.name.includes('\u0000'))
          throw new ArchiveInputError('an attachment may not contain NUL characters');
        return {
          attachmentId: input.attachmentId,
          sessionId,
          name: masked.name,
          mediaType: input.mediaType,
          sizeBytes,
          sha256: createHash('sha256').update(masked.text, 'utf8').digest('hex'),
          createdAt: input.createdAt,
          text: masked.text,
        };
      });
      try {
        insertAttachmentsTx.immediate(records); // all of a message's attachments, or none
      } catch (err) {
        if (
          err instanceof Error &&
          'code' in err &&
          String((err as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT_PRIMARYKEY')
        ) {
          throw new ArchiveInputError('attachment id already saved');
        }
        return { saved: false, reason: reasonOf(err) };
      }
      return { saved: true, attachments: records };
    },
    getAttachment(sessionId, attachmentId) {
      const row = db
        .prepare<[string, string], AttachmentRow>(
          'SELECT attachment_id, session_id, name, media_type, size_bytes, sha256, created_at, text FROM archive_attachments WHERE session_id = ? AND attachment_id = ?',
        )
        .get(sessionId, attachmentId);
      return row ? toAttachment(row) : null;
    },
    eventCount(sessionId) {
      return (
        db
          .prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM archive_events WHERE session_id = ?')
          .get(sessionId)?.n ?? 0
      );
    },
    close() {
      for (const sessionId of [...pending.keys()]) {
        try {
          flushQueue(sessionId);
        } catch {
          // stays unsaved; nothing else can be done at close
        }
      }
      db.close();
    },
  };
}

function toSession(row: {
  session_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  settings: string;
}): ArchiveSessionRecord {
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

interface AttachmentRow {
  attachment_id: string;
  session_id: string;
  name: string;
  media_type: string;
  size_bytes: number;
  sha256: string;
  created_at: string;
  text: string;
}

function toAttachment(row: AttachmentRow): ArchiveAttachmentRecord {
  return {
    attachmentId: row.attachment_id,
    sessionId: row.session_id,
    name: row.name,
    mediaType: row.media_type,
    sizeBytes: row.size_bytes,
    sha256: row.sha256,
    createdAt: row.created_at,
    text: row.text,
  };
}

/** Bad input (too large, duplicate id): the caller's mistake, not a storage failure. */
export class ArchiveInputError extends Error {
  override name = 'ArchiveInputError';
}

function isDuplicateEventId(err: unknown): boolean {
  return (
    err instanceof Error &&
    'code' in err &&
    (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' &&
    err.message.includes('event_id')
  );
}

function reasonOf(err: unknown): string {
  const code = err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : '';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'archive_store_busy';
  if (code === 'SQLITE_FULL') return 'archive_store_full';
  return 'archive_store_unavailable';
}
