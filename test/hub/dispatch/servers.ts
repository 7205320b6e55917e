/** Tiny raw HTTP servers for dispatch tests: each one misbehaves in one specific way. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
 *
 * `release()` (given `late: true`) unblocks the listener: it accepts from then on (a connect still
 * retrying its SYN completes, a second or so later) and `received()` lists the data each accepted
 * connection sent — to see that a request given up on before its connection came up is never written.
 */
export async function unansweredConnect(opts: { late?: boolean } = {}): Promise<{
  host: string;
  port: number;
  release(): Promise<void>;
  received(): string[];
  close(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'late-accept-'));
  const flag = join(dir, 'release');
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('node:net').createServer((c) =>
         c.on('data', (d) => process.stdout.write(JSON.stringify(d.toString()) + '\\n')));
       s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         process.stdout.write(s.address().port + '\\n');
         const cell = new Int32Array(new SharedArrayBuffer(4));
         setTimeout(() => {
           while (${opts.late === true} === false || !require('node:fs').existsSync(${JSON.stringify(flag)}))
             Atomics.wait(cell, 0, 0, 20);
         }, 20);
       });`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const lines: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  child.stdout.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n')) if (line) lines.push(JSON.parse(line) as string);
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
    release: async () => {
      await writeFile(flag, '');
    },
    received: () => [...lines],
    close: async () => {
      for (const s of fillers) s.destroy();
      child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
