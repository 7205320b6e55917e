/**
 * Hub client errors. Every failure becomes a HubClientError {status, code, message}.
 * The token never appears in an error: messages come from the Hub's error body or from fixed text.
 */
export type HubClientErrorKind =
  | 'http' // the Hub answered with a non-2xx status
  | 'invalid_response' // the Hub answered 2xx but the body does not match the contract
  | 'timeout' // no answer within the client's timeout
  | 'aborted' // the caller's AbortSignal fired
  | 'network' // connection refused/reset, DNS, ... (`notSent` says whether it provably never left)
  | 'invalid_request'; // the request failed its own contract and was NOT sent

export class HubClientError extends Error {
  override readonly name = 'HubClientError';
  constructor(
    readonly kind: HubClientErrorKind,
    /** HTTP status when the Hub answered; null otherwise. */
    readonly status: number | null,
    /** The Hub's `error` code from a well-formed error body; null when absent or malformed. */
    readonly code: string | null,
    message: string,
    readonly method: string,
    readonly path: string,
    /**
     * True only when the request provably never left this host: its connection could not even be
     * opened (refused, name not resolved, no route, connect timeout). Any failure after a
     * connection was open — a reset, a timeout while waiting — may have reached the Hub.
     */
    readonly notSent: boolean = false,
  ) {
    super(message);
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      kind: this.kind,
      status: this.status,
      code: this.code,
      message: this.message,
      method: this.method,
      path: this.path,
      notSent: this.notSent,
    };
  }
}

/**
 * The code each kind of failure is reported under when the Hub gave none of its own (an `http`
 * failure without a well-formed error body is `hub_http_error`): one table, so no code is built
 * from a kind's name.
 */
export const HUB_FAILURE_CODES = {
  http: 'hub_http_error',
  invalid_response: 'hub_invalid_response',
  timeout: 'hub_timeout',
  aborted: 'hub_aborted',
  network: 'hub_network',
  invalid_request: 'hub_invalid_request',
} as const satisfies Record<HubClientErrorKind, string>;
export type HubFailureCode = (typeof HUB_FAILURE_CODES)[HubClientErrorKind];

export function isHubClientError(err: unknown): err is HubClientError {
  return err instanceof HubClientError;
}

/**
 * Authoritative "this invocation does not exist at the Hub": ONLY an HTTP 404 whose well-formed
 * error body says `invocation_not_found`. Any other 404, a message that merely contains the
 * words, a missing code, a timeout or a network failure is not.
 */
export function isAuthoritativeNotFound(err: unknown): boolean {
  return (
    err instanceof HubClientError &&
    err.kind === 'http' &&
    err.status === 404 &&
    err.code === 'invocation_not_found'
  );
}

/** True when the request may have reached the Hub and we do not know what it did. */
export function isOutcomeUnknown(err: unknown): boolean {
  if (!(err instanceof HubClientError)) return true;
  if (err.kind === 'invalid_request') return false;
  if (err.kind === 'network' && err.notSent) return false;
  if (
    err.kind === 'timeout' ||
    err.kind === 'network' ||
    err.kind === 'aborted' ||
    err.kind === 'invalid_response'
  )
    return true;
  return err.status === null || err.status >= 500 || err.code === null;
}
