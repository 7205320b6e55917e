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
  if (c && UNAVAILABLE_CODES.has(c)) return true;
  const message = String((err as { message?: unknown } | null)?.message ?? '');
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|Cannot use a pool after calling end/i.test(
    message,
  );
}

export const isRetryable = (err: unknown): boolean => code(err) === '40001' || code(err) === '40P01';

/** The error the Hub sees: StoreUnavailableError (503) or the operation's own error with its SQLSTATE. */
export function toStoreError(err: unknown): Error {
  if (err instanceof StoreUnavailableError || err instanceof StoreOperationError) return err;
  if (isUnavailable(err)) return new StoreUnavailableError('the PostgreSQL store is unavailable', err);
  const c = code(err);
  // an error PostgreSQL raised (SQLSTATE): keep its code; anything else is the Hub's own error
  if (c && /^[0-9A-Z]{5}$/.test(c)) return new StoreOperationError(String((err as Error).message), c);
  return err instanceof Error ? err : new Error(String(err));
}
