/**
 * One HTTP exchange with a business system, over a kept-alive connection (connection-pool.ts: undici,
 * dispatched with a handler of our own, no retry, no redirect), with a deadline, an abort signal and
 * a bounded response body. It never retries: a lost answer is reported as such.
 *
 * Three outcomes: an answer (`response`); `not_sent` when the request provably never left — it
 * failed before its first byte could be written (header validation, DNS, connect, TLS handshake,
 * an abort or deadline before the connection was made); `no_response` when the request was (or may
 * have been) written and no complete answer came back (timeout, reset, abort after connecting) —
 * on a reused connection too, from the moment it is handed the request to write. That moment is
 * undici's `onConnect`, which it calls on a connected (and, for https, handshaken) socket right
 * before writing the request's first byte; a request still waiting for it when the deadline or an
 * abort comes is aborted in that call, so it is never written (and a connect still under way for it
 * is cut).
 */
import { validateHeaderName } from 'node:http';
import type { Dispatcher } from 'undici';
import { jsonTextDeeperThan, MAX_BUSINESS_JSON_DEPTH } from '../../src-shared/json-depth.js';
import { isHeaderSafe } from '../../src-shared/header-value.js';
import { connectionFor, discard, TLS_HANDSHAKE_FAILED, type PooledConnection } from './connection-pool.js';
import { checkBaseUrl } from './destination.js';

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/** The request was written (or may have been): the business system may have acted on it. */
export type NoResponseReason = 'timeout' | 'connection_lost' | 'aborted';
/** The request never left: see NOT_SENT_REASON_CODES (`not_sent_<reason>`) in src-shared/states.ts. */
export type NotSentReason =
  | 'invalid_header'
  | 'invalid_request'
  | 'dns_failed'
  | 'connect_refused'
  | 'connect_failed'
  | 'connect_timeout'
  | 'tls_failed'
  | 'aborted'
  | 'credentials_unavailable'
  | 'destination_refused';

export type DispatchResult =
  | { kind: 'response'; status: number; body: unknown; body_bytes: number; truncated: boolean }
  | { kind: 'no_response'; reason: NoResponseReason; detail: string }
  | { kind: 'not_sent'; reason: NotSentReason; detail: string };

export interface HttpExchangeInput {
  /** Origin + request target. `target` is sent verbatim (no normalisation), e.g. /products/42?x=1. */
  origin: URL;
  target: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** Plain http to a host that is not loopback was allowed by the admin (destination.ts). */
  allowInsecureHttp: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  maxBodyBytes?: number;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);

/** Why a connection could not be made, from the error raised before the request could be written. */
function beforeWriteReason(err: NodeJS.ErrnoException & { [TLS_HANDSHAKE_FAILED]?: true }): NotSentReason {
  if (err.code === 'EDESTINATIONREFUSED') return 'destination_refused';
  if (err.code === 'UND_ERR_INVALID_ARG') return 'invalid_request';
  if (DNS_CODES.has(err.code ?? '') || err.syscall === 'getaddrinfo') return 'dns_failed';
  if (err[TLS_HANDSHAKE_FAILED]) return 'tls_failed';
  if (err.code === 'ECONNREFUSED') return 'connect_refused';
  if (err.code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect_timeout';
  return 'connect_failed';
}

/**
 * JSON when it is JSON, else the text. JSON nested deeper than MAX_BUSINESS_JSON_DEPTH is kept as
 * text: a hostile system must not hand the Hub a value its recursive code (serialising the receipt)
 * cannot handle.
 */
function decodeBody(buf: Buffer, truncated: boolean, contentType: string | undefined): unknown {
  const text = buf.toString('utf8');
  if (truncated || text === '') return text;
  if (jsonTextDeeperThan(text, MAX_BUSINESS_JSON_DEPTH)) return text;
  if (contentType?.includes('json') || /^[[{"]/.test(text.trimStart())) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * Details worded without the address, port or the OS's own text: which ports answer what is not
 * told to anyone reading a receipt or a registration error (the reason code stays exact).
 */
const NOT_SENT_WORDS: Record<NotSentReason, string> = {
  invalid_header: 'a header value cannot be sent',
  invalid_request: 'the request could not be built',
  dns_failed: "the business system's host name did not resolve",
  connect_refused: 'the connection was refused',
  connect_failed: 'no connection could be made',
  connect_timeout: 'no connection within the timeout',
  tls_failed: 'the TLS handshake failed',
  aborted: 'aborted before connecting',
  credentials_unavailable: 'the signing secret is unavailable',
  destination_refused: 'the destination address is refused',
};

const errCode = (err: NodeJS.ErrnoException) =>
  /^[A-Z0-9_]{2,40}$/.test(err.code ?? '') ? (err.code as string) : 'error';

/**
 * A request ready to go out: checked (destination, header names and values) and laid out (headers,
 * body bytes, dispatch options), with nothing sent and no connection asked for. Preparing it is pure
 * computation, so it can be done while something else is awaited (the Hub signs a call's request
 * while its `dispatching` record commits); `runExchange` sends it.
 */
export type PreparedExchange =
  | { ready: false; refusal: { reason: NotSentReason; detail: string } }
  | {
      ready: true;
      /** Plain http allowed to loopback only (connection-pool.ts keeps such connections apart). */
      loopbackOnly: boolean;
      options: Dispatcher.DispatchOptions & { origin: string };
      isHttps: boolean;
      timeoutMs: number;
      maxBodyBytes: number;
    };

/** The first header (in order) with a value that is neither empty nor visible ASCII, or null. */
function headerNotVisibleAscii(headers: Record<string, string>): string | null {
  for (const name of Object.keys(headers)) {
    const v = headers[name]!;
    if (v !== '' && !isHeaderSafe(v)) return name;
  }
  return null;
}

/** Header names Node accepted already (the Hub sends the same few names on every request). */
const acceptedNames = new Set<string>();
const MAX_ACCEPTED_NAMES = 256;

/**
 * The code and text Node's own HTTP client refuses a header with, or null. Called once every value
 * passed headerNotVisibleAscii: a value that is empty or visible ASCII is one Node's value check
 * (no control characters, nothing above 0xff) accepts, so only the names are checked here, each
 * name once.
 */
function headerRefusal(headers: Record<string, string>): { code: string; message: string } | null {
  for (const name in headers) {
    if (acceptedNames.has(name)) continue;
    try {
      validateHeaderName(name);
    } catch (err) {
      return { code: (err as NodeJS.ErrnoException).code ?? 'error', message: (err as Error).message };
    }
    if (acceptedNames.size >= MAX_ACCEPTED_NAMES) acceptedNames.clear();
    acceptedNames.add(name);
  }
  return null;
}

export function prepareExchange(input: Omit<HttpExchangeInput, 'signal'>): PreparedExchange {
  const refusal = checkBaseUrl(input.origin.href, input.allowInsecureHttp);
  if (refusal)
    return {
      ready: false,
      refusal: { reason: 'destination_refused', detail: `${refusal.message}; nothing was sent` },
    };
  const badHeader = headerNotVisibleAscii(input.headers);
  if (badHeader !== null)
    return {
      ready: false,
      refusal: {
        reason: 'invalid_header',
        detail: `header ${badHeader} has a value that cannot be sent as visible ASCII; nothing was sent`,
      },
    };
  const refusedHeader = headerRefusal(input.headers);
  if (refusedHeader)
    return {
      ready: false,
      refusal: {
        reason: 'invalid_header',
        detail: `request refused before sending (${refusedHeader.code}): ${refusedHeader.message}`,
      },
    };
  const isHttps = input.origin.protocol === 'https:';
  const body = Buffer.from(input.body, 'utf8');
  // copied key by key, not `{ ...input.headers, accept }`: on this V8 a literal that spreads and
  // then adds keys costs 1-2 µs (its map is made anew every time); same keys, same order
  const headers: Record<string, string> = {};
  for (const name of Object.keys(input.headers)) headers[name] = input.headers[name]!;
  headers.accept = 'application/json';
  if (body.length > 0) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return {
    ready: true,
    // kept-alive connections, pooled per address policy; every address a name resolves to is
    // checked before connecting (connection-pool.ts, destination.ts)
    loopbackOnly: !isHttps && !input.allowInsecureHttp,
    options: {
      origin: input.origin.origin,
      method: input.method.toUpperCase() as Dispatcher.HttpMethod,
      path: input.target,
      headers,
      body: body.length > 0 ? body : null,
    },
    isHttps,
    timeoutMs: input.timeoutMs,
    maxBodyBytes: input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  };
}

export function httpExchange(input: HttpExchangeInput): Promise<DispatchResult> {
  return runExchange(prepareExchange(input), input.signal);
}

/** `content-type` among undici's raw response headers (name, value, name, value, …). */
function contentTypeOf(raw: Buffer[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === 12 && name.toString('latin1').toLowerCase() === 'content-type')
      return raw[i + 1]!.toString('latin1');
  }
  return undefined;
}

/**
 * One exchange in flight: undici's handler for it, and its deadline and abort. Methods rather than
 * closures made per request: the Hub runs under tsx, whose keepNames gives every named closure a
 * `name` through Object.defineProperty, about half a microsecond each, on every call.
 */
class Exchange implements Dispatcher.DispatchHandlers {
  settled = false;
  released = false;
  /** undici handed the request to a connection to be written: from here on it has (or may have) left. */
  written = false;
  timer: NodeJS.Timeout | undefined = undefined;
  /** Listening to `signal` (this object is the listener: handleEvent). */
  listening = false;
  abortConnection: ((err?: Error) => void) | null = null;
  status = 0;
  contentType: string | undefined = undefined;
  chunks: Buffer[] = [];
  bytes = 0;

  constructor(
    readonly conn: PooledConnection,
    readonly resolve: (r: DispatchResult) => void,
    readonly signal: AbortSignal | undefined,
    readonly isHttps: boolean,
    readonly timeoutMs: number,
    readonly maxBodyBytes: number,
  ) {}

  /** undici is done with the request (answered, failed or aborted): its connection is free again. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.conn.active -= 1;
  }

  finish(r: DispatchResult): void {
    if (this.settled) return;
    this.settled = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.listening) this.signal?.removeEventListener('abort', this);
    this.resolve(r);
  }

  notSent(reason: NotSentReason, detail: string): void {
    this.finish({ kind: 'not_sent', reason, detail });
  }

  noResponse(reason: NoResponseReason, detail: string): void {
    this.finish({ kind: 'no_response', reason, detail });
  }

  /** The deadline or the abort signal: before the request was handed over it never will be. */
  stop(why: 'timeout' | 'aborted'): void {
    if (this.written) {
      if (why === 'timeout') this.noResponse('timeout', `no complete answer within ${this.timeoutMs} ms`);
      else this.noResponse('aborted', 'aborted after the request was sent');
      this.abortConnection?.();
      return;
    }
    if (why === 'timeout')
      this.notSent(
        'connect_timeout',
        `no connection${this.isHttps ? ' (or TLS handshake)' : ''} within ${this.timeoutMs} ms`,
      );
    else this.notSent('aborted', 'aborted before the connection was made');
    // the connection was this exchange's alone (connectionFor): a connect still under way is cut
    discard(this.conn);
  }

  onConnect(abort: (err?: Error) => void): void {
    // Settled already (deadline, abort) or handed over once before: never written (again).
    if (this.settled || this.written) {
      abort();
      return;
    }
    this.written = true;
    this.abortConnection = abort;
  }

  onError(err: Error): void {
    this.release();
    if (this.settled) return;
    const e = err as NodeJS.ErrnoException;
    if (this.written) {
      if (this.status !== 0)
        this.noResponse('connection_lost', `response interrupted (HTTP ${this.status}) (${errCode(e)})`);
      else
        this.noResponse('connection_lost', `the connection broke after the request was sent (${errCode(e)})`);
      return;
    }
    const reason = beforeWriteReason(e);
    this.notSent(
      reason,
      reason === 'invalid_request'
        ? `request refused before sending (${errCode(e)}): ${err.message}`
        : `${NOT_SENT_WORDS[reason]} (${errCode(e)})`,
    );
  }

  onHeaders(statusCode: number, headers: Buffer[]): boolean {
    if (statusCode < 200) return true; // an informational answer: the real one follows
    this.status = statusCode;
    this.contentType = contentTypeOf(headers);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return true;
    const room = this.maxBodyBytes - this.bytes;
    if (chunk.length > room) {
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.bytes += Math.max(room, 0);
      this.finish(this.response(true));
      this.abortConnection?.();
      return true;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    return true;
  }

  onComplete(): void {
    this.release();
    this.finish(this.response(false));
  }

  response(truncated: boolean): DispatchResult {
    return {
      kind: 'response',
      status: this.status,
      body: decodeBody(Buffer.concat(this.chunks), truncated, this.contentType),
      body_bytes: this.bytes,
      truncated,
    };
  }

  /** The abort signal's listener. */
  handleEvent(): void {
    this.stop('aborted');
  }
}

function onDeadline(x: Exchange): void {
  x.stop('timeout');
}

/** Sends a prepared request (an abort before it starts, or its refusal, is a `not_sent`). */
export function runExchange(prepared: PreparedExchange, signal?: AbortSignal): Promise<DispatchResult> {
  return new Promise<DispatchResult>((resolve) => {
    if (signal?.aborted)
      return resolve({ kind: 'not_sent', reason: 'aborted', detail: 'aborted before sending' });
    if (!prepared.ready) return resolve({ kind: 'not_sent', ...prepared.refusal });
    const conn = connectionFor(prepared.options.origin, prepared.loopbackOnly);
    conn.active += 1;
    const x = new Exchange(
      conn,
      resolve,
      signal,
      prepared.isHttps,
      prepared.timeoutMs,
      prepared.maxBodyBytes,
    );
    if (signal) {
      x.listening = true;
      signal.addEventListener('abort', x, { once: true });
    }
    x.timer = setTimeout(onDeadline, prepared.timeoutMs, x);
    // a request undici refuses at once (its method or path) comes back through onError, before onConnect
    conn.client.dispatch(prepared.options, x);
  });
}
