// Business requests ride kept-alive connections (src-hub/dispatch/connection-pool.ts), and a reused
// connection never turns a lost answer into "never sent": once a request is handed to a connection
// that is already up, anything that goes wrong is no_response. Faults injected for real: a server
// that resets a reused connection after reading the request, and one that closes every connection
// after its answer.
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendSigned } from '../../../src-hub/dispatch/index.js';
import { tcpServer } from './servers.js';

type Closable = { close(): Promise<void> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const send = (baseUrl: string, n: number) =>
  sendSigned({
    baseUrl,
    systemId: 'sys-test',
    allowInsecureHttp: false,
    secret: 'keep-alive-test-secret-0001',
    request: { method: 'POST', pathWithQuery: '/refunds', body: `{"n":${n}}` },
    signedPath: 'operation',
    onBehalfOf: 'operator@x',
    jobId: 'run-1',
    idempotencyKey: `inv-keep-alive-${n}`,
    timeoutMs: 5000,
  });

/** A raw HTTP/1.1 server: `answer(requestNumberOnThisConnection, socket)` decides what each request gets. */
async function server(answer: (nth: number, socket: net.Socket, body: string) => void) {
  const s = await tcpServer((socket) => {
    let buffered = '';
    let nth = 0;
    socket.on('data', (b: Buffer) => {
      buffered += b.toString();
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.slice(end + 4, end + 4 + length);
        buffered = buffered.slice(end + 4 + length);
        nth += 1;
        answer(nth, socket, body);
      }
    });
  });
  open.push(s);
  return { ...s, url: `http://${s.host}:${s.port}` };
}

const ok = (socket: net.Socket, extra = '') =>
  socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n${extra}\r\n{}`);

describe('kept-alive dispatch connections', () => {
  it('sequential calls to one system share one connection', async () => {
    const s = await server((_nth, socket) => ok(socket));
    for (let n = 1; n <= 5; n++)
      expect(await send(s.url, n)).toMatchObject({ kind: 'response', status: 200 });
    expect(s.connections()).toBe(1);
  });

  it('a reused connection reset after the request was read is no_response (it may have acted), never not_sent', async () => {
    const bodies: string[] = [];
    const s = await server((nth, socket, body) => {
      bodies.push(body);
      if (nth === 1) ok(socket);
      else socket.resetAndDestroy();
    });
    expect(await send(s.url, 1)).toMatchObject({ kind: 'response', status: 200 });
    expect(await send(s.url, 2)).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
    expect(bodies).toEqual(['{"n":1}', '{"n":2}']); // the second request did reach the server
    expect(s.connections()).toBe(1);
  });

  it('a server that closes each connection after its answer: every call gets a new one and succeeds', async () => {
    const s = await server((_nth, socket) => {
      ok(socket, 'connection: close\r\n');
      socket.end();
    });
    for (let n = 1; n <= 3; n++)
      expect(await send(s.url, n)).toMatchObject({ kind: 'response', status: 200 });
    expect(s.connections()).toBe(3);
  });
});
