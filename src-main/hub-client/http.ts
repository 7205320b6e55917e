/**
 * The request core shared by the agent and admin clients: bearer auth, JSON bodies, a timeout
 * combined with the caller's AbortSignal, error mapping and response validation.
 *
 * Connections (see transport.ts): a write (POST) goes out on a fresh TCP connection of its own,
 * never on a pooled keep-alive connection, and is sent at most once — never retried, whatever
 * fails. A read-only GET uses the keep-alive pool and is sent once more, through the same pool
 * (which has dropped the dead connection), only when its pooled connection turned out to be closed
 * before any answer. An injected `fetch` (tests) carries both reads and writes.
 */
import type { z } from 'zod';
import { HubErrorBodySchema } from '../../src-shared/hub-api.js';
import { HubClientError } from './errors.js';
import { freshConnectionFetch, pooledFetch, type FetchLike } from './transport.js';

export type { FetchLike } from './transport.js';

export interface HttpOptions {
  baseUrl: string;
  token: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface RequestSpec<T> {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  schema: z.ZodType<T>;
  signal?: AbortSignal | undefined;
  /**
   * A POST that changes nothing at the Hub (tool search: a query in a body). It is handled like a
   * GET: pooled connection, re-sent once on a stale one. Never set for anything that may act.
   */
  readOnly?: boolean;
}

export interface HttpCore {
  request<T>(spec: RequestSpec<T>): Promise<T>;
  /** Opens a streaming GET (SSE); the caller reads the body. Errors are mapped like request(). */
  open(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response>;
  readonly baseUrl: string;
  redact(text: string): string;
}

export function createHttpCore(options: HttpOptions): HttpCore {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: FetchLike = options.fetch ?? pooledFetch;
  const doWrite: FetchLike = options.fetch ?? freshConnectionFetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const token = options.token;

  const redact = (text: string) => (token.length > 0 ? text.split(token).join('[redacted]') : text);

  function url(path: string, query?: RequestSpec<unknown>['query']): string {
    const u = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {}))
      if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  function failure(
    err: unknown,
    method: string,
    path: string,
    callerSignal: AbortSignal | undefined,
    timeoutSignal: AbortSignal | null,
  ): HubClientError {
    if (err instanceof HubClientError) return err;
    if (callerSignal?.aborted)
      return new HubClientError('aborted', null, null, 'request aborted by the caller', method, path);
    if (timeoutSignal?.aborted)
      return new HubClientError(
        'timeout',
        null,
        null,
        `no answer from the Hub within ${timeoutMs} ms`,
        method,
        path,
      );
    const code = (err as { cause?: { code?: unknown } })?.cause?.code;
    const notSent = connectionNeverOpened(err);
    return new HubClientError(
      'network',
      null,
      null,
      `cannot reach the Hub${typeof code === 'string' ? ` (${code})` : ''}${notSent ? '; the request was not sent' : ''}`,
      method,
      path,
      notSent,
    );
  }

  async function errorFrom(res: Response, method: string, path: string): Promise<HubClientError> {
    let text = '';
    try {
      text = await res.text();
    } catch {
      // body unreadable: keep the status, no public code
    }
    let parsed: { error: string; message: string } | null = null;
    try {
      const r = HubErrorBodySchema.safeParse(JSON.parse(text));
      parsed = r.success ? r.data : null;
    } catch {
      parsed = null;
    }
    const message = parsed ? redact(parsed.message).slice(0, 1000) : `Hub answered HTTP ${res.status}`;
    return new HubClientError('http', res.status, parsed ? parsed.error : null, message, method, path);
  }

  return {
    baseUrl,
    redact,
    async request<T>(spec: RequestSpec<T>): Promise<T> {
      const timeoutSignal = AbortSignal.timeout(timeoutMs);
      const signal = spec.signal ? AbortSignal.any([spec.signal, timeoutSignal]) : timeoutSignal;
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
      };
      let body: string | undefined;
      if (spec.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(spec.body);
      }
      try {
        if (spec.signal?.aborted)
          throw new HubClientError(
            'aborted',
            null,
            null,
            'request aborted by the caller',
            spec.method,
            spec.path,
          );
        const target = url(spec.path, spec.query);
        const init: RequestInit = { method: spec.method, headers, body, signal, redirect: 'error' };
        let res: Response;
        if (spec.method !== 'GET' && spec.readOnly !== true) {
          // A write: one send on a connection of its own; any failure is final.
          res = await doWrite(target, init);
        } else {
          try {
            res = await doFetch(target, init);
          } catch (err) {
            // A read-only request whose pooled keep-alive connection had been closed by the peer (e.g.
            // a restarted Hub) is sent once more; the pool has dropped the dead connection.
            if (signal.aborted || !staleConnection(err)) throw err;
            res = await doFetch(target, init);
          }
        }
        if (!res.ok) throw await errorFrom(res, spec.method, spec.path);
        const text = await res.text();
        let json: unknown;
        try {
          json = text.length === 0 ? null : JSON.parse(text);
        } catch {
          throw new HubClientError(
            'invalid_response',
            res.status,
            null,
            'Hub answered with a body that is not JSON',
            spec.method,
            spec.path,
          );
        }
        const result = spec.schema.safeParse(json);
        if (!result.success) {
          const where = result.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.') || '(body)'}: ${i.code}`)
            .join('; ');
          throw new HubClientError(
            'invalid_response',
            res.status,
            null,
            `Hub response does not match the contract: ${where}`,
            spec.method,
            spec.path,
          );
        }
        return result.data;
      } catch (err) {
        throw failure(err, spec.method, spec.path, spec.signal, timeoutSignal);
      }
    },
    async open(path, extraHeaders, signal) {
      try {
        const res = await doFetch(url(path), {
          method: 'GET',
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...extraHeaders },
          signal,
          redirect: 'error',
        });
        if (!res.ok) throw await errorFrom(res, 'GET', path);
        return res;
      } catch (err) {
        throw failure(err, 'GET', path, signal, null);
      }
    },
  };
}

export const enc = encodeURIComponent;

/**
 * Failures of opening the connection itself: no byte of the request was written. (Node tries
 * every address of a name in turn; when all fail the cause is an AggregateError of such errors.)
 */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function connectionNeverOpened(err: unknown): boolean {
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof AggregateError && cause.errors.length > 0) {
    return cause.errors.every((e: unknown) => CONNECT_FAILURES.has(String((e as { code?: unknown })?.code)));
  }
  return CONNECT_FAILURES.has(String((cause as { code?: unknown })?.code));
}

function staleConnection(err: unknown): boolean {
  const code = (err as { cause?: { code?: unknown } })?.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'UND_ERR_CLOSED';
}
