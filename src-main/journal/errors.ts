/** Coded journal errors. `code` is the stable public identifier; messages never carry record contents. */
export const JOURNAL_ERROR_CODES = [
  'invocation_store_unavailable', // I/O failure, database error, lock held by another writer
  'invocation_store_conflict', // CAS: the stored revision is not the expected one
  'invocation_record_invalid', // shape, unknown field, wrong revision arithmetic
  'invocation_record_too_large', // the 8 MiB bound
  'invocation_record_corrupt', // what is stored cannot be read back as a valid record
] as const;
export type JournalErrorCode = (typeof JOURNAL_ERROR_CODES)[number];

export class JournalError extends Error {
  override readonly name = 'JournalError';
  constructor(
    readonly code: JournalErrorCode,
    message: string,
    /** For a CAS conflict: the revision found in the store (null = absent). */
    readonly storedRevision?: number | null,
  ) {
    super(message);
  }
}

export function isJournalError(err: unknown): err is JournalError {
  return err instanceof JournalError;
}

/** Any failure from a store (including a custom one) mapped to a journal code. */
export function journalCodeOf(err: unknown): JournalErrorCode {
  if (err instanceof JournalError) return err.code;
  return 'invocation_store_unavailable';
}
