/**
 * What a failed model request means, as a code the renderer words (never by matching English):
 * which failures a retry may help (429, 500–504, 408, a connection error or timeout — only while no
 * token has arrived) and which end the turn at once (a bad key, no such model, a refused request).
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ModelRetryReason } from '../../../src-shared/states.js';
import { retryAfterMs } from './retry-after.js';

export const MODEL_ERROR_CODES = [
  'model_not_configured',
  'model_auth_failed',
  'model_forbidden',
  'model_not_found',
  'model_rate_limited',
  'model_unavailable',
  'model_unreachable',
  'model_timeout',
  'model_request_rejected',
  'model_stream_interrupted',
  'model_stream_incomplete',
  'model_reply_truncated',
  'model_error',
] as const;
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[number];

/** Why a request is retried (shown to the operator with the wait). */
export type RetryReason = ModelRetryReason;

export class ModelRequestError extends Error {
  override name = 'ModelRequestError';
  constructor(
    readonly code: ModelErrorCode,
    /** The provider's own words or the transport's, bounded (redacted by the caller before it is saved). */
    readonly detail: string,
    readonly status: number | null = null,
  ) {
    super(`${code}: ${detail}`);
  }
}

/**
 * The provider sent nothing for longer than the client's idle bound while a stream was open (the
 * SDK's own timeout ends once the headers arrive, so a stream that goes silent would hang the turn).
 */
export class ModelStreamStalledError extends Error {
  override name = 'ModelStreamStalledError';
  constructor(readonly idleMs: number) {
    super(
      `the provider sent nothing for ${idleMs >= 1000 ? `${Math.round(idleMs / 1000)} s` : `${idleMs} ms`}`,
    );
  }
}

export interface ClassifiedFailure {
  /** Retry may help (only ever asked while no token has arrived). */
  retry: RetryReason | null;
  /** The code the request ends with if it is not (or no longer) retried. */
  code: ModelErrorCode;
  status: number | null;
  detail: string;
  /** What the provider asked us to wait (retry-after / retry-after-ms), if it said. */
  askedMs: number | null;
}

const MAX_DETAIL = 300;
const bounded = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, MAX_DETAIL);

export function isAbort(err: unknown): boolean {
  return err instanceof APIUserAbortError || (err instanceof Error && err.name === 'AbortError');
}

function providerWords(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined;
  return bounded(typeof body?.message === 'string' ? body.message : err.message);
}

/** A failure as the retry loop sees it (a helper, so each line below reads as a rule). */
function failure(
  code: ModelErrorCode,
  retry: RetryReason | null,
  detail: string,
  status: number | null = null,
  askedMs: number | null = null,
): ClassifiedFailure {
  return { code, retry, detail, status, askedMs };
}

export function classifyFailure(err: unknown): ClassifiedFailure {
  // Only ever raised before any token arrived: retried like a request that timed out.
  if (err instanceof ModelStreamStalledError) return failure('model_timeout', 'timeout', err.message);
  if (err instanceof APIConnectionTimeoutError)
    return failure('model_timeout', 'timeout', 'the request timed out');
  if (err instanceof APIConnectionError)
    return failure(
      'model_unreachable',
      'connection',
      bounded(err.cause instanceof Error ? err.cause.message : err.message),
    );
  if (err instanceof APIError) {
    const status = typeof err.status === 'number' ? err.status : null;
    const detail = providerWords(err);
    const asked = retryAfterMs(err.headers);
    // An error event inside a stream (no HTTP status): retried only while nothing has arrived.
    if (status === null) return failure('model_stream_interrupted', 'server_error', detail, status, asked);
    if (status === 401) return failure('model_auth_failed', null, detail, status, asked);
    if (status === 403) return failure('model_forbidden', null, detail, status, asked);
    if (status === 404) return failure('model_not_found', null, detail, status, asked);
    if (status === 429) return failure('model_rate_limited', 'rate_limited', detail, status, asked);
    if (status === 408) return failure('model_timeout', 'timeout', detail, status, asked);
    if (status >= 500 && status <= 504)
      return failure('model_unavailable', 'server_error', detail, status, asked);
    if (status >= 400 && status < 500) return failure('model_request_rejected', null, detail, status, asked);
    return failure('model_error', null, detail, status, asked);
  }
  // A stream that broke without an HTTP error (a reset connection, a chunk that is not JSON).
  return failure(
    'model_stream_interrupted',
    'connection',
    bounded(err instanceof Error ? err.message : String(err)),
  );
}
