/** The Hub's one error type; the HTTP error handler turns it into `{"error": code, "message": text}`. */
import type { HubErrorCode } from '../src-shared/hub-api.js';

export class HubError extends Error {
  constructor(
    readonly status: number,
    readonly code: HubErrorCode,
    message: string,
    /** For a 429 that can be retried: how long to wait (also sent as `retry_after_ms`). */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export const notFound = (code: HubErrorCode, message: string) => new HubError(404, code, message);
export const conflict = (code: HubErrorCode, message: string) => new HubError(409, code, message);
export const badRequest = (message: string) => new HubError(400, 'invalid_request', message);
