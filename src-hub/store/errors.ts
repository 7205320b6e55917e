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

/**
 * A new call's system was retired (InvocationChange.live_system): the change is rolled back and
 * nothing is written. The code survives the SQLite writer thread (as `dbCode` on the revived
 * StoreOperationError) and PostgreSQL (this error itself); `isSystemRetiredError` reads both.
 */
export const SYSTEM_RETIRED = 'system_retired';

export class SystemRetiredError extends StoreOperationError {
  readonly code = SYSTEM_RETIRED;
  constructor(readonly systemId: string) {
    super(`system ${systemId} is retired`, SYSTEM_RETIRED);
    this.name = 'SystemRetiredError';
  }
}

export const isSystemRetiredError = (err: unknown): boolean =>
  err instanceof StoreOperationError && err.dbCode === SYSTEM_RETIRED;
