/** Tiny raw HTTP servers for dispatch tests: each one misbehaves in one specific way. */
import { spawn } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface RawServer {
  url: string;
  hits: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

export async function rawServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): Promise<RawServer> {
  const hits: RawServer['hits'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A port that was listening a moment ago and is now closed (connection refused). */
export async function closedPort(): Promise<string> {
  const s = await rawServer(() => undefined);
  await s.close();
  return s.url;
}

/** A plain TCP server: `onConnection` decides what each connection gets (TLS or reset faults). */
export async function tcpServer(
  onConnection: (socket: net.Socket) => void,
): Promise<{ host: string; port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    connections: () => count,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** A host name that never resolves (RFC 6761 reserves .invalid). */
export const UNRESOLVABLE_URL = 'https://no-such-business-system.invalid:8080';

/**
 * An address whose TCP connections never complete: a listener in another process with a backlog
 * of one that never accepts (its event loop is blocked), its accept queue filled by two
 * connections of our own. The kernel then drops every further SYN, so a connect there hangs until
 * the caller's deadline — a plain TCP connect timeout, with no TLS involved.
 */
export async function unansweredConnect(): Promise<{ host: string; port: number; close(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer();
       s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         process.stdout.write(s.address().port + '\\n');
         setTimeout(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0), 20);
       });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  // wait until the listener's loop is blocked: a connection made now is never accepted
  await new Promise((r) => setTimeout(r, 100));
  const fillers: net.Socket[] = [];
  for (;;) {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    fillers.push(s);
    const connected = await new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 2_000);
      s.once('connect', () => {
        clearTimeout(t);
        resolve(true);
      });
    });
    // the queue is full: this one's SYN was dropped too (the kernel completes a loopback connect at
    // once, so 2 s without one is not this process being slow)
    if (!connected) break;
    if (fillers.length > 8) throw new Error('the listener keeps accepting connections');
  }
  if (fillers.length < 2) throw new Error('the listener queued no connection at all');
  return {
    host: '127.0.0.1',
    port,
    close: async () => {
      for (const s of fillers) s.destroy();
      child.kill('SIGKILL');
      await exited;
    },
  };
}
