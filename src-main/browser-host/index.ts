/**
 * The browser host: serves the renderer build on 127.0.0.1 and carries the IPC contract over a
 * WebSocket to the same router (and so the same handler table) Electron uses. A per-launch
 * token (given to the browser in the URL fragment) is checked in constant time on the WebSocket
 * upgrade, with an Origin check and a Host check against DNS rebinding.
 *
 * A wrong Host, Origin or path is refused with an HTTP status. A request from the right page with
 * a token that is not this launch's (a tab from an earlier launch) is accepted and closed at once
 * with WS_CLOSE_LAUNCH_TOKEN_REJECTED before any frame is read or sent, because a browser cannot
 * see the status of a refused upgrade and would otherwise take it for "host unreachable" and
 * retry forever. Old tokens are never accepted: there is no list of them, only this launch's.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_PAYLOAD_BYTES } from '../../src-shared/ipc/contract.js';
import type { CallRouter } from '../handlers/call-router.js';
import type { EventBus } from '../handlers/event-bus.js';
import { contentSecurityPolicy } from './csp.js';
import {
  WS_CLOSE_LAUNCH_TOKEN_REJECTED,
  WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON,
  WS_HELLO_FRAME,
  WS_MAX_FRAME_BYTES,
  WsCallFrameSchema,
} from './protocol.js';
import { readStatic } from './static-files.js';
import { newLaunchToken, tokenMatches } from './token.js';

export interface BrowserHostOptions {
  router: CallRouter;
  bus: EventBus;
  /** The renderer build directory (index.html and assets). */
  staticDir: string;
  host?: string;
  port?: number;
  token?: string;
  log?: (msg: string) => void;
}

export interface BrowserHost {
  /** Open this in the browser (the token is in the fragment, never sent to the server in a request line). */
  url: string;
  origin: string;
  port: number;
  token: string;
  clients(): number;
  /** Connections closed because their token was not this launch's (WS_CLOSE_LAUNCH_TOKEN_REJECTED). */
  rejectedConnections(): number;
  close(): Promise<void>;
}

export async function startBrowserHost(opts: BrowserHostOptions): Promise<BrowserHost> {
  const host = opts.host ?? '127.0.0.1';
  const token = opts.token ?? newLaunchToken();
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
        'content-security-policy': contentSecurityPolicy(`ws://${hostHeader}`),
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
    if (!tokenMatches(token, url.searchParams.get('token'))) {
      rejectedTokens += 1;
      // Logged once per launch (a page does not retry after this close; other clients might).
      if (rejectedTokens === 1)
        log(
          "browser host: a page presented a token that is not this launch's (a tab from an earlier launch?); told it so and closed it",
        );
      wss.handleUpgrade(req, socket, head, (ws) =>
        ws.close(WS_CLOSE_LAUNCH_TOKEN_REJECTED, WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON),
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
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
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
