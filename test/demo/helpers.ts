/** Test helpers: raw signed requests to demo systems, so signature failures can be crafted on purpose. */
import { computeSignature, SIGNATURE_HEADERS } from '../../src-shared/signing.js';
import { signatureV2Headers } from '../../src-hub/dispatch/sign-v2.js';
import type { DemoSystemHandle } from '../../demo/index.js';

export const SUBJECT = 'operator@demo.local';

export interface RawCall {
  method: string;
  path: string;
  body?: string;
  key?: string | null;
  jobId?: string;
  onBehalfOf?: string;
  secret?: string;
  timestamp?: number;
  /** Sign this body but send `body`. */
  signedBody?: string;
  /** Sign this path but send `path`. */
  signedPath?: string;
  omitSignature?: boolean;
  /** Only BailingHub's v1 signature, as a system built for BailingHub receives it. */
  v1Only?: boolean;
  /** v2's audience (default: the system's own id) and nonce (default: a fresh one). */
  audience?: string;
  nonce?: string;
}

export interface RawAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

export async function call(
  system: Pick<DemoSystemHandle, 'url' | 'secret' | 'systemId'>,
  c: RawCall,
): Promise<RawAnswer> {
  const body = c.body ?? '';
  const ts = c.timestamp ?? Math.floor(Date.now() / 1000);
  const jobId = c.jobId ?? 'run-test';
  const onBehalfOf = c.onBehalfOf ?? SUBJECT;
  const headers: Record<string, string> = {
    [SIGNATURE_HEADERS.timestamp]: String(ts),
    [SIGNATURE_HEADERS.onBehalfOf]: onBehalfOf,
    [SIGNATURE_HEADERS.jobId]: jobId,
  };
  if (!c.omitSignature) {
    headers[SIGNATURE_HEADERS.signature] = computeSignature({
      secret: c.secret ?? system.secret,
      timestamp: ts,
      method: c.method,
      pathWithQuery: c.signedPath ?? c.path,
      body: c.signedBody ?? body,
      onBehalfOf,
      jobId,
    });
    if (!c.v1Only)
      Object.assign(
        headers,
        signatureV2Headers({
          secret: c.secret ?? system.secret,
          audience: c.audience ?? system.systemId,
          method: c.method,
          pathWithQuery: c.signedPath ?? c.path,
          body: c.signedBody ?? body,
          onBehalfOf,
          jobId,
          idempotencyKey: c.key ?? null,
          timestamp: ts,
          ...(c.nonce ? { nonce: c.nonce } : {}),
        }),
      );
  }
  if (c.key) headers[SIGNATURE_HEADERS.idempotencyKey] = c.key;
  if (body !== '') headers['content-type'] = 'application/json';
  const res = await fetch(system.url + c.path, {
    method: c.method,
    headers,
    body: body === '' ? undefined : body,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export const json = (v: unknown) => JSON.stringify(v);

export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
