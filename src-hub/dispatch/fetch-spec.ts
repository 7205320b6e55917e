/**
 * Fetches a business system's published OpenAPI document (GET, bounded size). With `secret` (the
 * system's `spec_signing: signed`, the default) the GET carries the same signature headers as a
 * call: empty body, no on-behalf-of subject and no job id, signed over the request target sent.
 */
import { httpExchange } from './http.js';
import { signedHeaders } from './sign.js';
import { requestTarget } from './signed-path.js';

export const DEFAULT_SPEC_PATH = '/.well-known/bailing/tools.json';
export const MAX_SPEC_BYTES = 4 * 1024 * 1024;

export type FetchSpecResult =
  | { ok: true; doc: unknown }
  | {
      ok: false;
      code: 'system_unreachable' | 'spec_invalid';
      message: string;
      /** The exact transport reason, for the Hub's log only (never in an answer). */
      reason?: string;
    };

/**
 * One wording for every way a connection can fail: a refused, filtered, reset or non-HTTP port all
 * read alike, so registration cannot be used to learn which ports of a host answer what. The exact
 * reason goes to the Hub's log. A refused destination is policy, not the network: it is said.
 */
const NO_ANSWER = 'the system did not answer (no connection, no answer in time, or not HTTP)';

export interface FetchSpecInput {
  baseUrl: string;
  /** The system id it is (being) registered under (signature v2's audience). */
  systemId: string;
  /** The admin allowed plain http to a host that is not loopback (destination.ts). */
  allowInsecureHttp: boolean;
  specPath?: string;
  timeoutMs?: number;
  /** The signing secret when the spec GET is signed; null for `spec_signing: unsigned`. */
  secret: string | null;
}

export async function fetchSpec(input: FetchSpecInput): Promise<FetchSpecResult> {
  const specPath = input.specPath ?? DEFAULT_SPEC_PATH;
  let origin: URL;
  try {
    origin = new URL(input.baseUrl);
  } catch {
    return { ok: false, code: 'system_unreachable', message: 'invalid base URL' };
  }
  const target = requestTarget(origin, specPath);
  const headers =
    input.secret === null
      ? {}
      : signedHeaders({
          secret: input.secret,
          audience: input.systemId,
          method: 'GET',
          pathWithQuery: target,
          body: '',
          onBehalfOf: '',
          jobId: '',
          idempotencyKey: null,
        });
  const result = await httpExchange({
    origin,
    target,
    method: 'GET',
    headers,
    body: '',
    allowInsecureHttp: input.allowInsecureHttp,
    timeoutMs: input.timeoutMs ?? 10_000,
    maxBodyBytes: MAX_SPEC_BYTES,
  });
  if (result.kind !== 'response') {
    return {
      ok: false,
      code: 'system_unreachable',
      message:
        result.kind === 'not_sent' && result.reason === 'destination_refused'
          ? `spec fetch refused: ${result.detail}`
          : `spec fetch failed: ${NO_ANSWER}`,
      reason: `${result.kind}:${result.reason}`,
    };
  }
  if (result.status < 200 || result.status >= 300) {
    const hint =
      result.status === 401 && input.secret === null
        ? ' (the system may require a signed spec GET: spec_signing signed)'
        : '';
    return {
      ok: false,
      code: 'system_unreachable',
      message: `spec fetch answered HTTP ${result.status}${hint}`,
    };
  }
  if (result.truncated)
    return { ok: false, code: 'spec_invalid', message: `spec exceeds ${MAX_SPEC_BYTES} bytes` };
  if (result.body === null || typeof result.body !== 'object' || Array.isArray(result.body)) {
    return { ok: false, code: 'spec_invalid', message: 'spec is not a JSON object' };
  }
  return { ok: true, doc: result.body };
}
