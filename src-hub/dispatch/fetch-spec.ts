/** Fetches a business system's published OpenAPI document (unsigned GET, bounded size). */
import { httpExchange } from './http.js';
import { requestTarget } from './send-signed.js';

export const DEFAULT_SPEC_PATH = '/.well-known/bailing/tools.json';
export const MAX_SPEC_BYTES = 4 * 1024 * 1024;

export type FetchSpecResult =
  { ok: true; doc: unknown } | { ok: false; code: 'system_unreachable' | 'spec_invalid'; message: string };

export async function fetchSpec(
  baseUrl: string,
  specPath = DEFAULT_SPEC_PATH,
  timeoutMs = 10_000,
): Promise<FetchSpecResult> {
  let origin: URL;
  try {
    origin = new URL(baseUrl);
  } catch {
    return { ok: false, code: 'system_unreachable', message: 'invalid base URL' };
  }
  const result = await httpExchange({
    origin,
    target: requestTarget(origin, specPath),
    method: 'GET',
    headers: {},
    body: '',
    timeoutMs,
    maxBodyBytes: MAX_SPEC_BYTES,
  });
  if (result.kind === 'no_response') {
    return {
      ok: false,
      code: 'system_unreachable',
      message: `spec fetch failed (${result.reason}): ${result.detail}`,
    };
  }
  if (result.status < 200 || result.status >= 300) {
    return { ok: false, code: 'system_unreachable', message: `spec fetch answered HTTP ${result.status}` };
  }
  if (result.truncated)
    return { ok: false, code: 'spec_invalid', message: `spec exceeds ${MAX_SPEC_BYTES} bytes` };
  if (result.body === null || typeof result.body !== 'object' || Array.isArray(result.body)) {
    return { ok: false, code: 'spec_invalid', message: 'spec is not a JSON object' };
  }
  return { ok: true, doc: result.body };
}
