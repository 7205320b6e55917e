/**
 * A pass-through HTTP proxy in front of the Hub, on a fixed 127.0.0.1 port owned by the harness,
 * so the host always talks to one URL while the Hub behind it is killed and restarted. It can
 * HOLD requests that match a rule: they are read and never forwarded (the Hub never sees them),
 * which is how "the host crashed before its request reached the Hub" is produced. Streams (SSE)
 * are piped through unchanged.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeldRequest {
  method: string;
  path: string;
  body: string;
  at: number;
}

export interface HubProxy {
  url: string;
  port: number;
  /** Hold every request for which `rule` returns true (null = forward everything). */
  holdWhen(rule: ((method: string, path: string) => boolean) | null): void;
  held(): HeldRequest[];
  /** Requests forwarded so far (method and path). */
  forwarded(): { method: string; path: string }[];
  close(): Promise<void>;
}

export async function startHubProxy(opts: { target: () => string; port?: number }): Promise<HubProxy> {
  let rule: ((method: string, path: string) => boolean) | null = null;
  const held: HeldRequest[] = [];
  const heldResponses = new Set<ServerResponse>();
  const forwarded: { method: string; path: string }[] = [];

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    if (rule?.(method, path.split('?')[0] ?? path)) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        held.push({ method, path, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }),
      );
      heldResponses.add(res);
      res.on('close', () => heldResponses.delete(res));
      return;
    }
    forwarded.push({ method, path });
    const target = new URL(path, opts.target());
    const upstream = httpRequest(target, { method, headers: { ...req.headers, host: target.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      res.on('close', () => up.destroy());
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'hub_unreachable', message: 'proxy: the Hub did not answer' }));
    });
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    holdWhen(r) {
      rule = r;
    },
    held: () => [...held],
    forwarded: () => [...forwarded],
    async close() {
      for (const r of heldResponses) r.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
