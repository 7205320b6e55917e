/**
 * Store failures the Hub reports with a code: the store could not be reached or could not take a
 * write (PostgreSQL down, the SQLite writer thread gone). The HTTP layer answers 503
 * `store_unavailable`; the call is not dispatched when the failure happens before its
 * `dispatching` record is committed.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'store_unavailable';
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** An error raised by the store's own operation, kept with its database error code when there is one. */
export class StoreOperationError extends Error {
  constructor(
    message: string,
    readonly dbCode: string | undefined,
  ) {
    super(message);
    this.name = 'StoreOperationError';
  }
}
