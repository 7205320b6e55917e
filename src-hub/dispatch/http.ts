/**
 * One HTTP exchange with a business system, over a kept-alive connection (connection-pool.ts), with
 * a deadline, an abort signal and a bounded response body. It never retries: a lost answer is
 * reported as such.
 *
 * Three outcomes: an answer (`response`); `not_sent` when the request provably never left — it
 * failed before its first byte could be written (header validation, DNS, connect, TLS handshake,
 * an abort or deadline before the connection was made); `no_response` when the request was (or may
 * have been) written and no complete answer came back (timeout, reset, abort after connecting) —
 * on a reused connection, from the moment it is handed the request.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { jsonTextDeeperThan, MAX_BUSINESS_JSON_DEPTH } from '../../src-shared/json-depth.js';
import { isHeaderSafe } from '../../src-shared/header-value.js';
import { agentFor } from './connection-pool.js';
import { checkBaseUrl, guardedLookup } from './destination.js';

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
function beforeWriteReason(
  err: NodeJS.ErrnoException,
  isHttps: boolean,
  tcpConnected: boolean,
): NotSentReason {
  if (err.code === 'EDESTINATIONREFUSED') return 'destination_refused';
  if (DNS_CODES.has(err.code ?? '') || err.syscall === 'getaddrinfo') return 'dns_failed';
  if (isHttps && tcpConnected) return 'tls_failed';
  if (err.code === 'ECONNREFUSED') return 'connect_refused';
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
 * A request ready to go out: checked (destination, header values) and laid out (headers, body
 * bytes, request options), with nothing sent and no connection asked for. Preparing it is pure
 * computation, so it can be done while something else is awaited (the Hub signs a call's request
 * while its `dispatching` record commits); `runExchange` sends it.
 */
export type PreparedExchange =
  | { ready: false; refusal: { reason: NotSentReason; detail: string } }
  | {
      ready: true;
      transport: typeof http | typeof https;
      options: http.RequestOptions;
      body: Buffer;
      isHttps: boolean;
      timeoutMs: number;
      maxBodyBytes: number;
    };

export function prepareExchange(input: Omit<HttpExchangeInput, 'signal'>): PreparedExchange {
  const refusal = checkBaseUrl(input.origin.href, input.allowInsecureHttp);
  if (refusal)
    return {
      ready: false,
      refusal: { reason: 'destination_refused', detail: `${refusal.message}; nothing was sent` },
    };
  const badHeader = Object.entries(input.headers).find(([, v]) => v !== '' && !isHeaderSafe(v));
  if (badHeader)
    return {
      ready: false,
      refusal: {
        reason: 'invalid_header',
        detail: `header ${badHeader[0]} has a value that cannot be sent as visible ASCII; nothing was sent`,
      },
    };
  const isHttps = input.origin.protocol === 'https:';
  const loopbackOnly = !isHttps && !input.allowInsecureHttp;
  const body = Buffer.from(input.body, 'utf8');
  const headers: Record<string, string> = { ...input.headers, accept: 'application/json' };
  if (body.length > 0) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(body.length);
  }
  return {
    ready: true,
    transport: isHttps ? https : http,
    options: {
      protocol: input.origin.protocol,
      hostname: input.origin.hostname.replace(/^\[|\]$/g, ''),
      port: input.origin.port || (isHttps ? 443 : 80),
      method: input.method.toUpperCase(),
      path: input.target,
      headers,
      // kept-alive connections, one pool per address policy (connection-pool.ts)
      agent: agentFor(isHttps, loopbackOnly),
      // every address a name resolves to is checked before connecting (destination.ts)
      lookup: guardedLookup({ loopbackOnly }),
    },
    body,
    isHttps,
    timeoutMs: input.timeoutMs,
    maxBodyBytes: input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
  };
}

export function httpExchange(input: HttpExchangeInput): Promise<DispatchResult> {
  return runExchange(prepareExchange(input), input.signal);
}

/**
 * One exchange in flight. Its steps are module functions over this state rather than closures made
 * per request: the Hub runs under tsx, whose keepNames gives every named closure a `name` through
 * Object.defineProperty, about half a microsecond each, on every call.
 */
interface Exchange {
  resolve: (r: DispatchResult) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
  isHttps: boolean;
  tcpConnected: boolean;
  // The first byte of the request can be written only once the connection (and, for https, the
  // TLS handshake) is up: Node buffers everything written before. Until then nothing has left.
  writable: boolean;
}

function finish(x: Exchange, r: DispatchResult): void {
  if (x.settled) return;
  x.settled = true;
  if (x.timer) clearTimeout(x.timer);
  if (x.onAbort) x.signal?.removeEventListener('abort', x.onAbort);
  x.resolve(r);
}

function notSent(x: Exchange, reason: NotSentReason, detail: string): void {
  finish(x, { kind: 'not_sent', reason, detail });
}

function noResponse(x: Exchange, reason: NoResponseReason, detail: string): void {
  finish(x, { kind: 'no_response', reason, detail });
}

function aborted(x: Exchange, req: http.ClientRequest): void {
  if (x.writable) noResponse(x, 'aborted', 'aborted after the request was sent');
  else notSent(x, 'aborted', 'aborted before the connection was made');
  req.destroy();
}

function timedOut(x: Exchange, req: http.ClientRequest, timeoutMs: number): void {
  if (x.writable) noResponse(x, 'timeout', `no complete answer within ${timeoutMs} ms`);
  else
    notSent(
      x,
      'connect_timeout',
      `no connection${x.isHttps && x.tcpConnected ? ' (TLS handshake)' : ''} within ${timeoutMs} ms`,
    );
  req.destroy();
}

function onSocket(x: Exchange, socket: Socket): void {
  if (!socket.connecting) {
    // a pooled connection that is already up (and, for https, past its handshake): the request
    // is written at once, so from here on it has (or may have) left
    x.tcpConnected = true;
    x.writable = true;
    return;
  }
  socket.once('connect', () => {
    x.tcpConnected = true;
    if (!x.isHttps) x.writable = true;
  });
  socket.once('secureConnect', () => {
    x.writable = true;
  });
}

function onRequestError(x: Exchange, err: NodeJS.ErrnoException): void {
  if (x.settled) return;
  if (x.writable)
    noResponse(x, 'connection_lost', `the connection broke after the request was sent (${errCode(err)})`);
  else {
    const reason = beforeWriteReason(err, x.isHttps, x.tcpConnected);
    notSent(x, reason, `${NOT_SENT_WORDS[reason]} (${errCode(err)})`);
  }
}

/** The answer as read: its status and body (the first `bytes`, cut short when `truncated`). */
function responseResult(
  res: http.IncomingMessage,
  chunks: Buffer[],
  bytes: number,
  truncated: boolean,
): DispatchResult {
  return {
    kind: 'response',
    status: res.statusCode ?? 0,
    body: decodeBody(Buffer.concat(chunks), truncated, res.headers['content-type']),
    body_bytes: bytes,
    truncated,
  };
}

function onResponse(x: Exchange, res: http.IncomingMessage, maxBody: number): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let truncated = false;
  res.on('data', (chunk: Buffer) => {
    if (truncated) return;
    const room = maxBody - bytes;
    if (chunk.length > room) {
      if (room > 0) chunks.push(chunk.subarray(0, room));
      bytes += Math.max(room, 0);
      truncated = true;
      finish(x, responseResult(res, chunks, bytes, true));
      res.destroy();
      return;
    }
    chunks.push(chunk);
    bytes += chunk.length;
  });
  res.on('end', () => {
    finish(x, responseResult(res, chunks, bytes, false));
  });
  res.on('error', (err) =>
    noResponse(x, 'connection_lost', `response interrupted (HTTP ${res.statusCode ?? '?'}): ${err.message}`),
  );
  res.on('close', () => {
    if (!res.complete)
      noResponse(x, 'connection_lost', `response interrupted (HTTP ${res.statusCode ?? '?'})`);
  });
}

/** Sends a prepared request (an abort before it starts, or its refusal, is a `not_sent`). */
export function runExchange(prepared: PreparedExchange, signal?: AbortSignal): Promise<DispatchResult> {
  return new Promise<DispatchResult>((resolve) => {
    const x: Exchange = {
      resolve,
      signal,
      onAbort: null,
      timer: undefined,
      settled: false,
      isHttps: prepared.ready && prepared.isHttps,
      tcpConnected: false,
      writable: false,
    };
    if (signal?.aborted) {
      notSent(x, 'aborted', 'aborted before sending');
      return;
    }
    if (!prepared.ready) {
      notSent(x, prepared.refusal.reason, prepared.refusal.detail);
      return;
    }
    const { maxBodyBytes, timeoutMs } = prepared;

    let req: http.ClientRequest;
    try {
      req = prepared.transport.request(prepared.options);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      const header = code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN';
      notSent(
        x,
        header ? 'invalid_header' : 'invalid_request',
        `request refused before sending (${code}): ${(err as Error).message}`,
      );
      return;
    }

    if (signal) {
      x.onAbort = () => aborted(x, req);
      signal.addEventListener('abort', x.onAbort, { once: true });
    }
    x.timer = setTimeout(() => timedOut(x, req, timeoutMs), timeoutMs);
    req.on('socket', (socket: Socket) => onSocket(x, socket));
    req.on('error', (err: NodeJS.ErrnoException) => onRequestError(x, err));
    req.on('response', (res) => onResponse(x, res, maxBodyBytes));
    req.end(prepared.body);
  });
}
