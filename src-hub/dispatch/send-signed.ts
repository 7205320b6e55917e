/** Sends one signed business request exactly once. */
import type { SignedPathMode } from '../../src-shared/hub-api.js';
import { signedHeaders } from './sign.js';
import { signedPathFor, targetWithPrefix } from './signed-path.js';
import { systemOrigin } from './system-origin.js';
import { prepareExchange, runExchange, type DispatchResult, type PreparedExchange } from './http.js';
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

/** A signed request ready to send (nothing sent yet): `send` sends it exactly once. */
export interface PreparedSigned {
  send(signal?: AbortSignal): Promise<DispatchResult>;
}

/**
 * Signed longer ago than this when sent, a prepared request is signed again (fresh timestamp and
 * nonce): preparing happens just before the send is allowed (while `dispatching` commits), and a
 * store that stalls should not make the request go out with an old signature.
 */
export const PREPARED_FRESH_MS = 1_000;

function signAndLayOut(input: Omit<SendSignedInput, 'signal'>, nowMs: number): PreparedExchange {
  // the base URL parsed once per system (and again when it changes)
  const system = systemOrigin(input.systemId, input.baseUrl);
  if (system === null)
    return { ready: false, refusal: { reason: 'invalid_request', detail: 'invalid base URL' } };
  const origin = system.url;
  const target = targetWithPrefix(system.prefix, input.request.pathWithQuery);
  const headers = signedHeaders({
    secret: input.secret,
    audience: input.systemId,
    method: input.request.method,
    pathWithQuery: signedPathFor(input.signedPath, target, input.request.pathWithQuery),
    body: input.request.body,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
    idempotencyKey: input.idempotencyKey,
    nowSeconds: Math.floor(nowMs / 1000),
  });
  return prepareExchange({
    origin,
    target,
    method: input.request.method,
    headers,
    body: input.request.body,
    allowInsecureHttp: input.allowInsecureHttp,
    timeoutMs: input.timeoutMs,
    maxBodyBytes: input.maxBodyBytes,
  });
}

/**
 * Signs and lays out the request now; sends it when asked (signed again if it has grown stale).
 * `now` is the clock the signature's timestamp and the staleness are read from.
 */
export function prepareSigned(
  input: Omit<SendSignedInput, 'signal'>,
  now: () => number = Date.now,
): PreparedSigned {
  const preparedAt = now();
  const prepared = signAndLayOut(input, preparedAt);
  let sent = false;
  return {
    send(signal) {
      if (sent) throw new Error('a prepared request is sent once');
      sent = true;
      const at = now();
      return runExchange(at - preparedAt <= PREPARED_FRESH_MS ? prepared : signAndLayOut(input, at), signal);
    },
  };
}

export function sendSigned(input: SendSignedInput): Promise<DispatchResult> {
  return prepareSigned(input).send(input.signal);
}
