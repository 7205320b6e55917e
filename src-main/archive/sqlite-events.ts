/**
 * The archive's event log. An event is durable when `append` returns `saved: true`; only then may
 * the runtime show it. A failed save keeps the event in memory as an unsaved event (state
 * `storage_error`) until a flush succeeds; later events queue behind it so the order never changes.
 */
import type Database from 'better-sqlite3';
import { redactPayload } from './redact.js';
import { ArchiveInputError, isUniqueViolation, reasonOf } from './sqlite-errors.js';
import type {
  ArchiveGap,
  ArchiveStatusRecord,
  ArchiveStore,
  ArchiveUnsaved,
  NewArchiveEvent,
  StoredArchiveEvent,
} from './types.js';

interface Pending {
  event: NewArchiveEvent;
  unsaved: ArchiveUnsaved;
}

export interface EventLogOptions {
  maxPayloadBytes: number;
  now: () => string;
  secrets: () => readonly string[];
}

export type EventLog = Pick<ArchiveStore, 'append' | 'load' | 'status' | 'flush' | 'eventCount'> & {
  /** Tries to save every queued event once more (at close); what still fails stays unsaved. */
  flushAll(): void;
};

type EventRow = {
  seq: number;
  event_id: string;
  turn_id: string | null;
  at: string;
  kind: string;
  payload: string;
};

/** A stored row as an event, or null when its payload cannot be read back. */
function eventOf(sessionId: string, r: EventRow): StoredArchiveEvent | null {
  let payload: unknown;
  try {
    payload = JSON.parse(r.payload);
  } catch {
    return null;
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || typeof r.kind !== 'string')
    return null;
  return {
    seq: r.seq,
    sessionId,
    eventId: r.event_id,
    turnId: r.turn_id,
    at: r.at,
    kind: r.kind,
    payload: payload as Record<string, unknown>,
  };
}

export function createEventLog(db: Database.Database, opts: EventLogOptions): EventLog {
  const pending = new Map<string, Pending[]>();
  const lastFailure = new Map<string, string>();
  const nextSeq = db.prepare<[string], { next: number }>(
    'SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM archive_events WHERE session_id = ?',
  );
  const insert = db.prepare(
    'INSERT INTO archive_events (session_id, seq, event_id, turn_id, at, kind, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const touch = db.prepare('UPDATE archive_sessions SET updated_at = ? WHERE session_id = ?');
  const insertTx = db.transaction((sessionId: string, e: NewArchiveEvent, payloadText: string): number => {
    const seq = nextSeq.get(sessionId)?.next ?? 1;
    insert.run(sessionId, seq, e.eventId, e.turnId, e.at, e.kind, payloadText);
    touch.run(e.at, sessionId);
    return seq;
  });
  const seqs = db.prepare<[string], { seq: number }>(
    'SELECT seq FROM archive_events WHERE session_id = ? ORDER BY seq',
  );
  const page = db.prepare<[string, number, number], EventRow>(
    'SELECT seq, event_id, turn_id, at, kind, payload FROM archive_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  const savedEventId = db.prepare<[string], { one: number }>(
    'SELECT 1 AS one FROM archive_events WHERE event_id = ?',
  );
  /** The event is already stored: a unique violation whose event id is in the log (not the seq). */
  const alreadySaved = (err: unknown, eventId: string) =>
    isUniqueViolation(err) && savedEventId.get(eventId) !== undefined;
  const count = db.prepare<[string], { n: number }>(
    'SELECT COUNT(*) AS n FROM archive_events WHERE session_id = ?',
  );

  /** The masked payload and its JSON text; a payload over the bound is bad input. */
  function serialize(e: NewArchiveEvent): { text: string; payload: Record<string, unknown> } {
    const payload = redactPayload(e.payload, opts.secrets()) as Record<string, unknown>;
    const text = JSON.stringify(payload);
    if (Buffer.byteLength(text) > opts.maxPayloadBytes)
      throw new ArchiveInputError(`payload of ${e.kind} exceeds ${opts.maxPayloadBytes} bytes`);
    return { text, payload };
  }

  function write(sessionId: string, e: NewArchiveEvent): StoredArchiveEvent {
    const { text, payload } = serialize(e);
    const seq = insertTx.immediate(sessionId, e, text);
    return { ...e, payload, seq, sessionId };
  }

  /** Saves the queued events in order; false (and the reason kept) at the first that still fails. */
  function flushQueue(sessionId: string): boolean {
    const queue = pending.get(sessionId);
    while (queue && queue.length > 0) {
      const head = queue[0] as Pending;
      try {
        write(sessionId, head.event);
      } catch (err) {
        if (err instanceof ArchiveInputError) throw err;
        if (!alreadySaved(err, head.event.eventId)) {
          head.unsaved.reason = reasonOf(err);
          lastFailure.set(sessionId, head.unsaved.reason);
          return false;
        }
        // a duplicate id: saved by an earlier attempt whose acknowledgement we never saw
      }
      queue.shift();
    }
    pending.delete(sessionId);
    lastFailure.delete(sessionId);
    return true;
  }

  /** A hole in the stored sequence (e.g. 7 followed by 9): kept visible, never "repaired". */
  function readGap(sessionId: string): ArchiveGap | null {
    let expected = 1;
    for (const { seq } of seqs.all(sessionId)) {
      if (seq !== expected)
        return { afterSeq: expected - 1, nextSeq: seq, detail: `events ${expected}..${seq - 1} are missing` };
      expected = seq + 1;
    }
    return null;
  }

  function statusOf(sessionId: string, extraGap: ArchiveGap | null = null): ArchiveStatusRecord {
    const unsavedEvents = (pending.get(sessionId) ?? []).map((p) => ({ ...p.unsaved }));
    let recoveryGap: ArchiveGap | null = extraGap;
    try {
      recoveryGap = recoveryGap ?? readGap(sessionId);
    } catch (err) {
      return { state: 'storage_error', unsavedEvents, recoveryGap, reason: reasonOf(err) };
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

  function append(sessionId: string, event: NewArchiveEvent): ReturnType<ArchiveStore['append']> {
    serialize(event); // reject bad input before anything is queued
    const entry: Pending = {
      event,
      unsaved: { eventId: event.eventId, kind: event.kind, reason: '', since: opts.now() },
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
      if (alreadySaved(err, event.eventId))
        throw new ArchiveInputError(`event id ${event.eventId} already saved`);
      const reason = reasonOf(err);
      entry.unsaved.reason = reason;
      lastFailure.set(sessionId, reason);
      pending.set(sessionId, [entry]);
      return { saved: false, reason, status: statusOf(sessionId) };
    }
  }

  function load(sessionId: string, loadOpts?: { afterSeq?: number; limit?: number }) {
    const events: StoredArchiveEvent[] = [];
    let unreadable: ArchiveGap | null = null;
    for (const r of page.all(sessionId, loadOpts?.afterSeq ?? 0, loadOpts?.limit ?? -1)) {
      const e = eventOf(sessionId, r);
      if (e) events.push(e);
      else unreadable ??= { afterSeq: r.seq - 1, nextSeq: r.seq + 1, detail: `event ${r.seq} is unreadable` };
    }
    return { events, status: statusOf(sessionId, unreadable) };
  }

  return {
    append,
    load,
    status: (sessionId) => statusOf(sessionId),
    flush(sessionId) {
      flushQueue(sessionId);
      return statusOf(sessionId);
    },
    eventCount: (sessionId) => count.get(sessionId)?.n ?? 0,
    flushAll() {
      for (const sessionId of [...pending.keys()]) {
        try {
          flushQueue(sessionId);
        } catch {
          // stays unsaved; nothing else can be done at close
        }
      }
    },
  };
}
