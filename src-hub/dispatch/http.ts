/**
 * One HTTP exchange with a business system, over a fresh connection, with a deadline, an abort
 * signal and a bounded response body. It never retries: a lost answer is reported as such.
 */
import http from 'node:http';
import https from 'node:https';

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

export type NoResponseReason = 'timeout' | 'connection_lost' | 'connect_refused' | 'aborted';

export type DispatchResult =
  | { kind: 'response'; status: number; body: unknown; body_bytes: number; truncated: boolean }
  | {
      kind: 'no_response';
      reason: NoResponseReason;
      detail: string;
      /** false only when the request provably never left (no connection was established). */
      request_sent: boolean;
    };

export interface HttpExchangeInput {
  /** Origin + request target. `target` is sent verbatim (no normalisation), e.g. /products/42?x=1. */
  origin: URL;
  target: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal;
  maxBodyBytes?: number;
}

function decodeBody(buf: Buffer, truncated: boolean, contentType: string | undefined): unknown {
  const text = buf.toString('utf8');
  if (truncated || text === '') return text;
  if (contentType?.includes('json') || /^[[{"]/.test(text.trimStart())) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

export function httpExchange(input: HttpExchangeInput): Promise<DispatchResult> {
  const maxBody = input.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return new Promise<DispatchResult>((resolve) => {
    let settled = false;
    let connected = false;
    const deadline: { timer?: NodeJS.Timeout } = {};
    const finish = (r: DispatchResult) => {
      if (settled) return;
      settled = true;
      if (deadline.timer) clearTimeout(deadline.timer);
      input.signal?.removeEventListener('abort', onAbort);
      resolve(r);
    };
    const noResponse = (reason: NoResponseReason, detail: string) =>
      finish({ kind: 'no_response', reason, detail, request_sent: connected });

    if (input.signal?.aborted) {
      finish({
        kind: 'no_response',
        reason: 'aborted',
        detail: 'aborted before sending',
        request_sent: false,
      });
      return;
    }

    const isHttps = input.origin.protocol === 'https:';
    const transport = isHttps ? https : http;
    const bodyBuf = Buffer.from(input.body, 'utf8');
    const headers: Record<string, string> = { ...input.headers, accept: 'application/json' };
    if (bodyBuf.length > 0) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(bodyBuf.length);
    }

    let req: http.ClientRequest;
    try {
      req = transport.request({
        protocol: input.origin.protocol,
        hostname: input.origin.hostname.replace(/^\[|\]$/g, ''),
        port: input.origin.port || (isHttps ? 443 : 80),
        method: input.method.toUpperCase(),
        path: input.target,
        headers,
        agent: false, // a fresh connection per call: a stale pooled socket must never look like a lost answer
      });
    } catch (err) {
      finish({
        kind: 'no_response',
        reason: 'connect_refused',
        detail: `request could not be built: ${(err as Error).message}`,
        request_sent: false,
      });
      return;
    }

    function onAbort() {
      noResponse('aborted', connected ? 'aborted after the request was sent' : 'aborted before connecting');
      req.destroy();
    }
    input.signal?.addEventListener('abort', onAbort, { once: true });

    deadline.timer = setTimeout(() => {
      noResponse(
        'timeout',
        `no complete answer within ${input.timeoutMs} ms${connected ? '' : ' (not connected)'}`,
      );
      req.destroy();
    }, input.timeoutMs);

    req.on('socket', (socket) => {
      socket.once('connect', () => {
        connected = true;
      });
      // secureConnect for https counts as connected too
      socket.once('secureConnect', () => {
        connected = true;
      });
    });

    req.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      if (!connected) {
        noResponse('connect_refused', `${err.code ?? 'error'}: ${err.message}`);
      } else {
        noResponse('connection_lost', `${err.code ?? 'error'}: ${err.message}`);
      }
    });

    req.on('response', (res) => {
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
          const status = res.statusCode ?? 0;
          finish({
            kind: 'response',
            status,
            body: decodeBody(Buffer.concat(chunks), true, res.headers['content-type']),
            body_bytes: bytes,
            truncated: true,
          });
          res.destroy();
          return;
        }
        chunks.push(chunk);
        bytes += chunk.length;
      });
      res.on('end', () => {
        finish({
          kind: 'response',
          status: res.statusCode ?? 0,
          body: decodeBody(Buffer.concat(chunks), false, res.headers['content-type']),
          body_bytes: bytes,
          truncated: false,
        });
      });
      res.on('error', (err) =>
        noResponse('connection_lost', `response interrupted (HTTP ${res.statusCode ?? '?'}): ${err.message}`),
      );
      res.on('close', () => {
        if (!res.complete)
          noResponse('connection_lost', `response interrupted (HTTP ${res.statusCode ?? '?'})`);
      });
    });

    req.end(bodyBuf);
  });
}
