export { createSqliteArchive, ArchiveInputError, type SqliteArchiveOptions } from './sqlite-archive.js';
export { redactPayload, REDACTED } from './redact.js';
export { createStreamRedactor, type StreamRedactor } from './stream-redactor.js';
export type {
  AppendResult,
  ArchiveAttachmentRecord,
  NewArchiveAttachment,
  SaveAttachmentResult,
  ArchiveGap,
  ArchiveSessionRecord,
  ArchiveStatusRecord,
  ArchiveStore,
  ArchiveUnsaved,
  NewArchiveEvent,
  StoredArchiveEvent,
} from './types.js';
