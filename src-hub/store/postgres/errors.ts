/**
 * Which PostgreSQL failures mean "the store is unavailable" (connection refused or lost, the
 * server shutting down or out of connections, a pool timeout) and which transaction failures are
 * safe to retry (serialization failure, deadlock: PostgreSQL rolled the whole transaction back).
 */
import { StoreOperationError, StoreUnavailableError } from '../errors.js';

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '08P01',
]);

const code = (err: unknown): string | undefined => {
  const c = (err as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : undefined;
};

export function isUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return true;
  const c = code(err);
  return c !== undefined && UNAVAILABLE_CODES.has(c);
}

/**
 * What a failed pg call (connect or query) means. The server's errors carry a SQLSTATE and the
 * socket's an errno code; the driver's own failures (connection terminated, client not queryable,
 * connect timeout, pool ended) carry no code at all, and they all mean the connection is gone.
 * Decided by the code and by where the error came from, never by its words.
 */
export function fromDriver(err: unknown): unknown {
  const c = code(err);
  if (err instanceof StoreUnavailableError || err instanceof StoreOperationError) return err;
  if (c === undefined || UNAVAILABLE_CODES.has(c))
    return new StoreUnavailableError('the PostgreSQL store is unavailable', err);
  return err;
}

export const isRetryable = (err: unknown): boolean => code(err) === '40001' || code(err) === '40P01';

/**
 * The connection lost its prepared statements (SQLSTATE 26000, invalid_sql_statement_name: a
 * `DISCARD ALL` on it, or a pooler's reset of the server connection behind it). pg still believes
 * them parsed there and would send only Bind for each, so every later statement would fail the
 * same way: the connection is dropped, and what failed runs again on another (nothing of it was
 * done: the statement was refused before it ran, and its transaction rolls back).
 */
export const lostPreparedStatements = (err: unknown): boolean => code(err) === '26000';

/** The error the Hub sees: StoreUnavailableError (503) or the operation's own error with its SQLSTATE. */
export function toStoreError(err: unknown): Error {
  if (err instanceof StoreUnavailableError || err instanceof StoreOperationError) return err;
  if (isUnavailable(err)) return new StoreUnavailableError('the PostgreSQL store is unavailable', err);
  const c = code(err);
  // an error PostgreSQL raised (SQLSTATE): keep its code; anything else is the Hub's own error
  if (c && /^[0-9A-Z]{5}$/.test(c)) return new StoreOperationError(String((err as Error).message), c);
  return err instanceof Error ? err : new Error(String(err));
}
