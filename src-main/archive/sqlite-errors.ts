/** How the SQLite archive tells bad input from a storage failure, and words a failure as a code. */

/** Bad input (too large, duplicate id): the caller's mistake, not a storage failure. */
export class ArchiveInputError extends Error {
  override name = 'ArchiveInputError';
}

/** A UNIQUE constraint refused the row; which one is for the caller to check in the data. */
export function isUniqueViolation(err: unknown): boolean {
  return (
    err instanceof Error && 'code' in err && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE'
  );
}

export function reasonOf(err: unknown): string {
  const code = err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : '';
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'archive_store_busy';
  if (code === 'SQLITE_FULL') return 'archive_store_full';
  return 'archive_store_unavailable';
}
