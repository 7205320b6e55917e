/**
 * Why a demo system's data file cannot be used, as a code (src-shared/states.ts DEMO_DATA_PROBLEMS),
 * decided from SQLite's result codes and errno codes, never from message text.
 */
import type { DemoDataProblem } from '../../src-shared/states.js';

export class DemoDataError extends Error {
  override name = 'DemoDataError';
  constructor(
    readonly problem: DemoDataProblem,
    message: string,
    /** The SQLite or errno code, or the failed check (for the technical detail). */
    readonly detail: string,
  ) {
    super(message);
  }
}

/** A failed write to the data file (disk full, I/O error): nothing of it was committed. */
export class DemoDataWriteError extends Error {
  override name = 'DemoDataWriteError';
  constructor(readonly code: string) {
    super(`the demo data file could not be written (${code || 'unknown error'})`);
  }
}

/** The SQLite or errno code of an error ('' when it has none). */
export const errorCodeOf = (err: unknown): string =>
  err && typeof err === 'object' && 'code' in err ? String((err as { code: unknown }).code) : '';

/** An error met while opening or reading a data file, as the problem it stands for. */
export function asDemoDataError(err: unknown, file: string): DemoDataError {
  if (err instanceof DemoDataError) return err;
  const code = errorCodeOf(err);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT'))
    return new DemoDataError('corrupt', `${file} is not a readable demo data file (${code})`, code);
  return new DemoDataError('unreadable', `${file} cannot be opened or read (${code || 'error'})`, code);
}
