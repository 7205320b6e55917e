// The edges of the kept-alive connections business requests ride (src-hub/dispatch/connection-pool.ts,
// undici Clients dispatched by http.ts): a request is written at most once, whatever the connection
// does; one given up on before its connection came up is never written, even when the connection
// comes up later; calls at once each get a connection and later calls reuse them. Faults injected
// for real on 127.0.0.1.
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendSigned } from '../../../src-hub/dispatch/index.js';
import type { BuiltRequest } from '../../../src-hub/dispatch/index.js';
import { rawServer, tcpServer, unansweredConnect } from './servers.js';

type Closable = { close(): Promise<void> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const post = (n: number): BuiltRequest => ({ method: 'POST', pathWithQuery: '/refunds', body: `{"n":${n}}` });

const send = (
  baseUrl: string,
  request: BuiltRequest,
  extra: { timeoutMs?: number; signal?: AbortSignal } = {},
) =>
  sendSigned({
    baseUrl,
    systemId: 'sys-test',
    allowInsecureHttp: false,
    secret: 'connection-edges-secret-01',
    request,
    signedPath: 'operation',
    onBehalfOf: 'operator@x',
    jobId: 'run-1',
    idempotencyKey: `inv-edge-${request.body || request.pathWithQuery}`,
    timeoutMs: extra.timeoutMs ?? 5000,
    signal: extra.signal,
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Node HTTP server that also counts the connections its requests came on. */
async function countingServer(handle: Parameters<typeof rawServer>[0]) {
  const sockets = new Set<Socket>();
  const s = await rawServer((req, res, body) => {
    sockets.add(req.socket);
    handle(req, res, body);
  });
  open.push(s);
  return { ...s, connections: () => sockets.size };
}

describe('a request is written at most once', () => {
  it('a connection closed without an answer after the request was read: no_response, never sent again (POST and GET)', async () => {
    const s = await countingServer((req) => req.socket.end());
    expect(await send(s.url, post(1))).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
    expect(await send(s.url, { method: 'GET', pathWithQuery: '/orders/1', body: '' })).toMatchObject({
      kind: 'no_response',
      reason: 'connection_lost',
    });
    await sleep(200);
    expect(s.hits.map((h) => `${h.method} ${h.url}`)).toEqual(['POST /refunds', 'GET /orders/1']);
  });

  it('the same on a reused connection: the first call answered, the second closed unanswered', async () => {
    let nth = 0;
    const s = await countingServer((req, res) => {
      nth += 1;
      if (nth === 1) res.end('{}');
      else req.socket.destroy();
    });
    expect(await send(s.url, post(1))).toMatchObject({ kind: 'response', status: 200 });
    expect(await send(s.url, post(2))).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
    await sleep(200);
    expect(s.hits.map((h) => h.body)).toEqual(['{"n":1}', '{"n":2}']);
    expect(s.connections()).toBe(1);
  });

  it('a kept-alive connection the server closed while idle is not written on: the next call goes on a new one, once', async () => {
    const s = await countingServer((req, res) => {
      res.end('{}');
      setTimeout(() => req.socket.end(), 20); // the server closes the idle connection soon after
    });
    expect(await send(s.url, post(1))).toMatchObject({ kind: 'response', status: 200 });
    await sleep(150);
    expect(await send(s.url, post(2))).toMatchObject({ kind: 'response', status: 200 });
    expect(s.hits.map((h) => h.body)).toEqual(['{"n":1}', '{"n":2}']);
    expect(s.connections()).toBe(2);
  });

  it('an answer cut off by the bound leaves the connection unused afterwards; the next call is sent once on a new one', async () => {
    const s = await countingServer((_req, res) => res.end(JSON.stringify({ pad: 'x'.repeat(300 * 1024) })));
    const r = await send(s.url, post(1));
    expect(r).toMatchObject({ kind: 'response', status: 200, truncated: true, body_bytes: 256 * 1024 });
    expect(await send(s.url, post(2))).toMatchObject({ kind: 'response', status: 200 });
    expect(s.hits.map((h) => h.body)).toEqual(['{"n":1}', '{"n":2}']);
    expect(s.connections()).toBe(2);
  });
});

describe('given up before its connection came up: never written', () => {
  it('the deadline passes while the TCP connect is still retrying; the listener accepts later, and receives no request', async () => {
    const t = await unansweredConnect({ late: true });
    open.push(t);
    const r = await send(`http://${t.host}:${t.port}`, post(1), { timeoutMs: 300 });
    expect(r).toMatchObject({ kind: 'not_sent', reason: 'connect_timeout' });
    // A plain connect started now reaches the listener once it accepts (its SYN is retried about a
    // second later): proof that a connection left pending would have come up too.
    const { connect } = await import('node:net');
    const control = connect(t.port, t.host);
    control.on('error', () => undefined);
    control.on('connect', () => control.write('control'));
    await t.release();
    const deadline = Date.now() + 8_000;
    while (!t.received().includes('control') && Date.now() < deadline) await sleep(50);
    await sleep(1_500); // a request written on a late connection would arrive by now
    control.destroy();
    expect(t.received()).toEqual(['control']);
  });

  it('an abort during a TLS handshake that never completes: not_sent aborted, no request byte on the wire', async () => {
    const received: Buffer[] = [];
    const t = await tcpServer((socket) => socket.on('data', (b: Buffer) => received.push(b)));
    open.push(t);
    const controller = new AbortController();
    const pending = send(`https://${t.host}:${t.port}`, post(1), { signal: controller.signal });
    while (t.connections() === 0) await sleep(5);
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'not_sent', reason: 'aborted' });
    await sleep(100);
    const bytes = Buffer.concat(received);
    expect(bytes.includes(Buffer.from('POST /refunds'))).toBe(false);
  });
});

describe('calls at once, and the calls after them', () => {
  it('16 calls at once each get a connection and are each sent once; 16 more reuse those connections', async () => {
    const s = await countingServer((_req, res) => setTimeout(() => res.end('{}'), 30));
    const wave = (from: number) =>
      Promise.all(Array.from({ length: 16 }, (_, i) => send(s.url, post(from + i))));
    for (const r of await wave(0)) expect(r).toMatchObject({ kind: 'response', status: 200 });
    expect(s.connections()).toBe(16);
    for (const r of await wave(16)) expect(r).toMatchObject({ kind: 'response', status: 200 });
    expect(s.connections()).toBe(16);
    expect(new Set(s.hits.map((h) => h.body)).size).toBe(32);
    expect(s.hits).toHaveLength(32);
  });
});
