/**
 * Which SQLite failures mean "the store is unavailable" (HTTP 503 `store_unavailable`): the file
 * cannot be written, read or locked in time (busy, I/O error, disk full, read-only, corrupt). Any
 * other failure is the operation's own error, kept with its SQLite code.
 */
import { StoreOperationError, StoreUnavailableError } from '../errors.js';

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|CORRUPT|NOTADB|PROTOCOL|NOMEM)/;

export function toSqliteStoreError(message: string, code: string | undefined): Error {
  if (code && UNAVAILABLE.test(code))
    return new StoreUnavailableError(`the SQLite store is unavailable: ${message}`);
  return new StoreOperationError(message, code);
}

export function sqliteReadError(err: unknown): Error {
  const e = err as { message?: unknown; code?: unknown };
  if (typeof e?.code !== 'string') return err instanceof Error ? err : new Error(String(err));
  return toSqliteStoreError(String(e.message), e.code);
}
