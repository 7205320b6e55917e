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

/**
 * A text file attached to a user message: the conversation's attachment space, kept in the archive
 * file beside the events (never in the invocation journal). Events refer to it by id only.
 */
export interface ArchiveAttachmentRecord {
  attachmentId: string;
  sessionId: string;
  name: string;
  mediaType: string;
  /** UTF-8 bytes of `text` as stored. */
  sizeBytes: number;
  /** sha256 (hex) of the stored UTF-8 text. */
  sha256: string;
  createdAt: string;
  text: string;
}

export interface NewArchiveAttachment {
  attachmentId: string;
  name: string;
  mediaType: string;
  text: string;
  createdAt: string;
}

export type SaveAttachmentResult =
  { saved: true; attachments: ArchiveAttachmentRecord[] } | { saved: false; reason: string };

export interface ArchiveStore {
  /** Saves the event durably (after any earlier unsaved events of the session) and returns it. */
  append(sessionId: string, event: NewArchiveEvent): AppendResult;
  /** Reads every event in order and checks the sequence; a hole becomes a visible `recovery_gap`. */
  load(
    sessionId: string,
    opts?: { afterSeq?: number; limit?: number },
  ): { events: StoredArchiveEvent[]; status: ArchiveStatusRecord };
  status(sessionId: string): ArchiveStatusRecord;
  /** Retry saving unsaved events in order. */
  flush(sessionId: string): ArchiveStatusRecord;
  upsertSession(record: ArchiveSessionRecord): void;
  getSession(sessionId: string): ArchiveSessionRecord | null;
  listSessions(): ArchiveSessionRecord[];
  eventCount(sessionId: string): number;
  /**
   * Saves a message's attachments durably in one transaction, all or none (secret values masked
   * like event payloads). A storage failure returns `saved: false` with the archive's reason code
   * (nothing is kept in memory: the caller refuses the message); bad input (too large, NUL,
   * duplicate id) throws ArchiveInputError.
   */
  saveAttachments(sessionId: string, attachments: readonly NewArchiveAttachment[]): SaveAttachmentResult;
  /** The attachment of this session with this id (null for an unknown id or another session's). */
  getAttachment(sessionId: string, attachmentId: string): ArchiveAttachmentRecord | null;
  close(): void;
}
