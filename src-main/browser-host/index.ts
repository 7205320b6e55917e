/**
 * The browser host: serves the renderer build on 127.0.0.1 and carries the IPC contract over a
 * WebSocket to the same router (and so the same handler table) Electron uses. The printed link
 * carries a one-time code (URL fragment) that the page exchanges once, `POST /session`, for this
 * launch's session cookie (HttpOnly, SameSite=Strict, host-only; ./launch-session.ts); the WebSocket
 * upgrade presents the cookie, checked in constant time, with an Origin check and a Host check
 * against DNS rebinding. A second exchange of the same code is 410 `launch_link_used`.
 *
 * A wrong Host, Origin or path is refused with an HTTP status. A request from the right page
 * without this launch's cookie is accepted and closed at once before any frame is read or sent —
 * WS_CLOSE_LAUNCH_TOKEN_REJECTED when it carries another launch's cookie (a tab from an earlier
 * launch), WS_CLOSE_SESSION_MISSING when it carries none — because a browser cannot see the status
 * of a refused upgrade and would otherwise take it for "host unreachable" and retry forever.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_PAYLOAD_BYTES } from '../../src-shared/ipc/contract.js';
import type { CallRouter } from '../handlers/call-router.js';
import type { EventBus } from '../handlers/event-bus.js';
import { contentSecurityPolicy } from './csp.js';
import { createLaunchSession } from './launch-session.js';
import {
  WS_CLOSE_LAUNCH_TOKEN_REJECTED,
  WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON,
  WS_CLOSE_SESSION_MISSING,
  WS_CLOSE_SESSION_MISSING_REASON,
  WS_HELLO_FRAME,
  WS_MAX_FRAME_BYTES,
  WsCallFrameSchema,
} from './protocol.js';
import { readStatic } from './static-files.js';

export interface BrowserHostOptions {
  router: CallRouter;
  bus: EventBus;
  /** The renderer build directory (index.html and assets). */
  staticDir: string;
  host?: string;
  port?: number;
  /** The link's one-time code (default: a fresh random one). */
  token?: string;
  /** The launch's session credential (default: fresh); given with `token`, the same launch again. */
  sessionSecret?: string;
  log?: (msg: string) => void;
}

export interface BrowserHost {
  /** Open this once in the browser (its one-time code is in the fragment, never in a request line). */
  url: string;
  origin: string;
  port: number;
  /** The link's one-time code. */
  token: string;
  /** The Cookie header a non-browser client of this launch sends (tests and harnesses in-process). */
  sessionCookie: string;
  /** The session credential (in-process only: to serve the same launch again, `sessionSecret`). */
  sessionSecret: string;
  clients(): number;
  /** Connections closed because their token was not this launch's (WS_CLOSE_LAUNCH_TOKEN_REJECTED). */
  rejectedConnections(): number;
  close(): Promise<void>;
}

export async function startBrowserHost(opts: BrowserHostOptions): Promise<BrowserHost> {
  const host = opts.host ?? '127.0.0.1';
  const session = createLaunchSession({
    ...(opts.token ? { code: opts.token } : {}),
    ...(opts.sessionSecret ? { secret: opts.sessionSecret } : {}),
  });
  const log = opts.log ?? (() => {});
  let origin = '';
  let hostHeader = '';
  const sockets = new Set<WebSocket>();
  let rejectedTokens = 0;

  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.headers.host !== hostHeader) {
        res
          .writeHead(421, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'misdirected', message: 'Wrong Host header.' }));
        return;
      }
      if (req.method === 'POST' && (req.url ?? '') === '/session') return exchange(req, res);
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res
          .writeHead(405, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'method_not_allowed', message: 'Only GET.' }));
        return;
      }
      const path = (req.url ?? '/').split('#')[0] ?? '/';
      const file =
        (await readStatic(opts.staticDir, path)) ??
        (path.startsWith('/assets/') ? null : await readStatic(opts.staticDir, '/'));
      if (!file) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'not_found', message: 'No such file.' }));
        return;
      }
      res.writeHead(200, {
        'content-type': file.type,
        // 'self': the page spends its link's code with one same-origin POST /session
        'content-security-policy': contentSecurityPolicy(`'self' ws://${hostHeader}`),
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cross-origin-opener-policy': 'same-origin',
        'cache-control': file.type.startsWith('text/html') ? 'no-store' : 'max-age=3600',
      });
      res.end(req.method === 'HEAD' ? undefined : file.body);
    })().catch((err: unknown) => {
      log(`browser host: request failed: ${(err as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  const answer = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) =>
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
      .end(JSON.stringify(body));

  /** The page spends the link's one-time code for the session cookie (same origin, JSON only). */
  const exchange = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers.origin !== origin)
      return answer(res, 403, { error: 'forbidden_origin', message: 'Cross-origin requests are refused.' });
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json')
      return answer(res, 415, {
        error: 'unsupported_media_type',
        message: 'The body must be application/json.',
      });
    let raw = '';
    for await (const chunk of req) {
      raw += (chunk as Buffer).toString('utf8');
      if (raw.length > 1024) return answer(res, 413, { error: 'payload_too_large', message: 'Too large.' });
    }
    let code: unknown;
    try {
      code = (JSON.parse(raw) as { code?: unknown }).code;
    } catch {
      return answer(res, 400, { error: 'invalid_payload', message: 'Not JSON.' });
    }
    const outcome = session.exchange(code);
    if (outcome === 'ok') return answer(res, 200, { ok: true }, { 'set-cookie': session.setCookie() });
    if (outcome === 'used') {
      log('browser host: a link already opened was opened again; refused (it works once)');
      return answer(res, 410, {
        error: 'launch_link_used',
        message:
          'This link was already used to open Bailing Desk. Use the window that is already open, or restart Bailing Desk for a new link.',
      });
    }
    return answer(res, 403, {
      error: 'launch_link_invalid',
      message: 'This link is not from the running Bailing Desk. Open the link it printed when it started.',
    });
  };

  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_FRAME_BYTES });

  const refuse = (socket: Duplex, status: number, code: string) => {
    const body = JSON.stringify({ error: code, message: code });
    socket.end(
      `HTTP/1.1 ${status} ${code}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname !== '/ws') return refuse(socket, 404, 'not_found');
    if (req.headers.host !== hostHeader) return refuse(socket, 421, 'misdirected');
    if (req.headers.origin !== origin) return refuse(socket, 403, 'forbidden_origin');
    const presented = session.authorized(req.headers.cookie);
    if (presented !== 'ok') {
      rejectedTokens += 1;
      // Logged once per launch (a page does not retry after this close; other clients might).
      if (rejectedTokens === 1)
        log(
          presented === 'other'
            ? "browser host: a page presented a session that is not this launch's (a tab from an earlier launch?); told it so and closed it"
            : "browser host: a page connected without this launch's session (not opened through the printed link); told it so and closed it",
        );
      wss.handleUpgrade(req, socket, head, (ws) =>
        presented === 'other'
          ? ws.close(WS_CLOSE_LAUNCH_TOKEN_REJECTED, WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON)
          : ws.close(WS_CLOSE_SESSION_MISSING, WS_CLOSE_SESSION_MISSING_REASON),
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws));
  });

  const send = (ws: WebSocket, frame: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };

  const onConnection = (ws: WebSocket) => {
    sockets.add(ws);
    send(ws, WS_HELLO_FRAME);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => sockets.delete(ws));
    ws.on('message', (data, isBinary) => {
      void (async () => {
        const raw = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
        if (isBinary)
          return send(ws, {
            id: null,
            result: { ok: false, error: { code: 'invalid_payload', message: 'Text frames only.' } },
          });
        if (raw.byteLength > MAX_PAYLOAD_BYTES + 512) {
          let id: unknown = null;
          const m = /^\s*\{\s*"id"\s*:\s*("?[A-Za-z0-9_-]{1,64}"?)/.exec(
            raw.subarray(0, 200).toString('utf8'),
          );
          if (m?.[1]) id = m[1].startsWith('"') ? m[1].slice(1, -1) : Number(m[1]);
          return send(ws, {
            id,
            result: {
              ok: false,
              error: {
                code: 'payload_too_large',
                message: `The payload is larger than ${MAX_PAYLOAD_BYTES} bytes.`,
              },
            },
          });
        }
        let json: unknown;
        try {
          json = JSON.parse(raw.toString('utf8'));
        } catch {
          return send(ws, {
            id: null,
            result: { ok: false, error: { code: 'invalid_payload', message: 'Not JSON.' } },
          });
        }
        const frame = WsCallFrameSchema.safeParse(json);
        if (!frame.success) {
          return send(ws, {
            id: null,
            result: { ok: false, error: { code: 'invalid_payload', message: 'Malformed call frame.' } },
          });
        }
        const result = await opts.router.call(frame.data.call, frame.data.input, {
          transport: 'browser',
        });
        send(ws, { id: frame.data.id, result });
      })();
    });
  };

  const offBus = opts.bus.subscribe((name, payload) => {
    const text = JSON.stringify({ event: name, payload });
    for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(text);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  hostHeader = `${host}:${port}`;
  origin = `http://${hostHeader}`;

  return {
    url: `${origin}/#token=${session.code}`,
    origin,
    port,
    token: session.code,
    sessionCookie: session.cookieHeader(),
    sessionSecret: session.secret,
    clients: () => sockets.size,
    rejectedConnections: () => rejectedTokens,
    async close() {
      offBus();
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
