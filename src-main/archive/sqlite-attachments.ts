/**
 * The archive's attachment space: the text files of a message, saved all together or not at all,
 * masked like message text (a known secret value never reaches the file), read back per session.
 */
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { redactPayload } from './redact.js';
import { ArchiveInputError, reasonOf } from './sqlite-errors.js';
import type { ArchiveAttachmentRecord, ArchiveStore, NewArchiveAttachment } from './types.js';

export function createAttachmentRows(
  db: Database.Database,
  opts: { maxAttachmentBytes: number; secrets: () => readonly string[] },
): Pick<ArchiveStore, 'saveAttachments' | 'getAttachment'> {
  const insert = db.prepare(
    'INSERT INTO archive_attachments (attachment_id, session_id, name, media_type, size_bytes, sha256, created_at, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const insertAll = db.transaction((records: ArchiveAttachmentRecord[]) => {
    for (const r of records)
      insert.run(
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
  const one = db.prepare<[string, string], AttachmentRow>(
    'SELECT attachment_id, session_id, name, media_type, size_bytes, sha256, created_at, text FROM archive_attachments WHERE session_id = ? AND attachment_id = ?',
  );

  /** The record to save: masked, measured, checked (bad input throws ArchiveInputError). */
  const recordOf = (sessionId: string, input: NewArchiveAttachment): ArchiveAttachmentRecord => {
    const masked = redactPayload({ name: input.name, text: input.text }, opts.secrets()) as {
      name: string;
      text: string;
    };
    const sizeBytes = Buffer.byteLength(masked.text, 'utf8');
    if (sizeBytes > opts.maxAttachmentBytes)
      throw new ArchiveInputError(
        `attachment ${input.attachmentId} exceeds ${opts.maxAttachmentBytes} bytes`,
      );
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
  };

  return {
    saveAttachments(sessionId, inputs) {
      const records = inputs.map((input) => recordOf(sessionId, input));
      try {
        insertAll.immediate(records); // all of a message's attachments, or none
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
      const row = one.get(sessionId, attachmentId);
      return row ? toAttachment(row) : null;
    },
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
