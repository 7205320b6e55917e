/**
 * The conversation archive's own vocabulary. The archive is a generic, ordered event log per
 * session: it knows sequence numbers, kinds and JSON payloads, not what they mean (the runtime
 * gives payloads their types). Its failure state is its own, independent of the invocation journal.
 */
import type { ArchiveState } from '../../src-shared/states.js';

export interface NewArchiveEvent {
  eventId: string;
  turnId: string | null;
  at: string;
  kind: string;
  payload: Record<string, unknown>;
}

export interface StoredArchiveEvent extends NewArchiveEvent {
  seq: number;
  sessionId: string;
}

export interface ArchiveUnsaved {
  eventId: string;
  kind: string;
  reason: string;
  since: string;
}

export interface ArchiveGap {
  afterSeq: number;
  nextSeq: number;
  detail: string;
}

export interface ArchiveStatusRecord {
  state: ArchiveState;
  unsavedEvents: ArchiveUnsaved[];
  recoveryGap: ArchiveGap | null;
  reason: string | null;
}

export type AppendResult =
  | { saved: true; event: StoredArchiveEvent }
  /** Not saved: kept in memory as an unsaved event (retried by flush), never emitted as saved. */
  | { saved: false; reason: string; status: ArchiveStatusRecord };

export interface ArchiveSessionRecord {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  settings: Record<string, unknown>;
}

export interface ArchiveStore {
  /** Saves the event durably (after any earlier unsaved events of the session) and returns it. */
  append(sessionId: string, event: NewArchiveEvent): AppendResult;
  /** Reads every event in order and checks the sequence; a hole becomes a visible `recovery_gap`. */
  load(sessionId: string, opts?: { afterSeq?: number; limit?: number }): { events: StoredArchiveEvent[]; status: ArchiveStatusRecord };
  status(sessionId: string): ArchiveStatusRecord;
  /** Retry saving unsaved events in order. */
  flush(sessionId: string): ArchiveStatusRecord;
  upsertSession(record: ArchiveSessionRecord): void;
  getSession(sessionId: string): ArchiveSessionRecord | null;
  listSessions(): ArchiveSessionRecord[];
  eventCount(sessionId: string): number;
  close(): void;
}
