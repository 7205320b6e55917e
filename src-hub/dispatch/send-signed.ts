/** Sends one signed business request exactly once. */
import { signedHeaders } from './sign.js';
import { httpExchange, type DispatchResult } from './http.js';
import type { BuiltRequest } from './build-request.js';

export type { DispatchResult } from './http.js';

export interface SendSignedInput {
  baseUrl: string;
  secret: string;
  request: BuiltRequest;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
  maxBodyBytes?: number;
}

/**
 * The request target is the base URL's path (without a trailing slash) + pathWithQuery; that exact
 * string is both signed and sent, so a system behind a path prefix verifies what it receives.
 */
export function requestTarget(baseUrl: URL, pathWithQuery: string): string {
  const prefix = baseUrl.pathname.replace(/\/+$/, '');
  return `${prefix}${pathWithQuery.startsWith('/') ? '' : '/'}${pathWithQuery}`;
}

export async function sendSigned(input: SendSignedInput): Promise<DispatchResult> {
  let origin: URL;
  try {
    origin = new URL(input.baseUrl);
  } catch {
    return {
      kind: 'no_response',
      reason: 'connect_refused',
      detail: 'invalid base URL',
      request_sent: false,
    };
  }
  const target = requestTarget(origin, input.request.pathWithQuery);
  const headers = signedHeaders({
    secret: input.secret,
    method: input.request.method,
    pathWithQuery: target,
    body: input.request.body,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
    idempotencyKey: input.idempotencyKey,
  });
  return httpExchange({
    origin,
    target,
    method: input.request.method,
    headers,
    body: input.request.body,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    maxBodyBytes: input.maxBodyBytes,
  });
}
