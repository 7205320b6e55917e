/** Sends one signed business request exactly once. */
import type { SignedPathMode } from '../../src-shared/hub-api.js';
import { signedHeaders } from './sign.js';
import { requestTarget, signedPathOf } from './signed-path.js';
import { httpExchange, type DispatchResult } from './http.js';
import type { BuiltRequest } from './build-request.js';

export type { DispatchResult } from './http.js';
export { requestTarget } from './signed-path.js';

export interface SendSignedInput {
  baseUrl: string;
  /** The system id the Hub registered the system under (signature v2's audience). */
  systemId: string;
  /** The admin allowed plain http to a host that is not loopback (destination.ts). */
  allowInsecureHttp: boolean;
  secret: string;
  request: BuiltRequest;
  /** Which path the signature covers (the system's `signed_path`). */
  signedPath: SignedPathMode;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string | null;
  timeoutMs: number;
  signal?: AbortSignal;
  maxBodyBytes?: number;
}

export async function sendSigned(input: SendSignedInput): Promise<DispatchResult> {
  let origin: URL;
  try {
    origin = new URL(input.baseUrl);
  } catch {
    return { kind: 'not_sent', reason: 'invalid_request', detail: 'invalid base URL' };
  }
  const target = requestTarget(origin, input.request.pathWithQuery);
  const headers = signedHeaders({
    secret: input.secret,
    audience: input.systemId,
    method: input.request.method,
    pathWithQuery: signedPathOf(input.signedPath, origin, input.request.pathWithQuery),
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
    allowInsecureHttp: input.allowInsecureHttp,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    maxBodyBytes: input.maxBodyBytes,
  });
}
