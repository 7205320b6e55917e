// Every failure before the first byte of a request is written is `not_sent` (the business system
// cannot have seen it); a failure after the request was written is `no_response` (it may have).
// Each fault is injected for real: a header Node refuses, a name that does not resolve, a closed
// port, a TCP connect that is never answered, a TLS handshake that fails or never completes, a
// connection reset after the request.
import { afterEach, describe, expect, it } from 'vitest';
import { httpExchange, sendSigned } from '../../../src-hub/dispatch/index.js';
import { closedPort, rawServer, tcpServer, unansweredConnect, UNRESOLVABLE_URL } from './servers.js';

type Closable = { close(): Promise<void> };
const open: Closable[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const send = (baseUrl: string, onBehalfOf = 'operator@x', timeoutMs = 5000) =>
  sendSigned({
    baseUrl,
    systemId: 'sys-test',
    allowInsecureHttp: false,
    secret: 'not-sent-test-secret-0001',
    request: { method: 'POST', pathWithQuery: '/refunds', body: '{"amount":1}' },
    signedPath: 'operation',
    onBehalfOf,
    jobId: 'run-1',
    idempotencyKey: 'inv-not-sent-0001',
    timeoutMs,
  });

describe('not_sent: the request never left', () => {
  it('a header value that cannot travel (张三@示例) is refused before connecting', async () => {
    const s = await rawServer((_req, res) => res.end('{}'));
    open.push(s);
    expect(await send(s.url, '张三@示例')).toMatchObject({ kind: 'not_sent', reason: 'invalid_header' });
    // Latin-1 would pass Node but arrive as bytes another verifier reads differently: refused too.
    expect(await send(s.url, 'josé@example')).toMatchObject({ kind: 'not_sent', reason: 'invalid_header' });
    expect(await send(s.url, ' padded ')).toMatchObject({ kind: 'not_sent', reason: 'invalid_header' });
    expect(s.hits).toHaveLength(0);
  });

  it('a header Node itself refuses (an invalid header name) is not_sent invalid_header', async () => {
    const s = await rawServer((_req, res) => res.end('{}'));
    open.push(s);
    const r = await httpExchange({
      origin: new URL(s.url),
      allowInsecureHttp: false,
      target: '/x',
      method: 'GET',
      headers: { 'bad header': 'v' },
      body: '',
      timeoutMs: 2000,
    });
    expect(r).toMatchObject({ kind: 'not_sent', reason: 'invalid_header' });
    expect(r.kind === 'not_sent' && r.detail).toContain('ERR_INVALID_HTTP_TOKEN');
    expect(s.hits).toHaveLength(0);
  });

  it('names accepted before do not let a refused name through, on any later request', async () => {
    const s = await rawServer((_req, res) => res.end('{}'));
    open.push(s);
    const exchange = (headers: Record<string, string>) =>
      httpExchange({
        origin: new URL(s.url),
        allowInsecureHttp: false,
        target: '/x',
        method: 'GET',
        headers,
        body: '',
        timeoutMs: 2000,
      });
    expect(await exchange({ 'x-good': 'v' })).toMatchObject({ kind: 'response', status: 200 });
    for (let i = 0; i < 2; i++) {
      const r = await exchange({ 'x-good': 'v', 'bad header': 'v' });
      expect(r).toMatchObject({ kind: 'not_sent', reason: 'invalid_header' });
      expect(r.kind === 'not_sent' && r.detail).toContain('ERR_INVALID_HTTP_TOKEN');
    }
    expect(s.hits).toHaveLength(1);
  });

  it('a host name that does not resolve is not_sent dns_failed', async () => {
    expect(await send(UNRESOLVABLE_URL)).toMatchObject({ kind: 'not_sent', reason: 'dns_failed' });
  });

  it('a refused connection is not_sent connect_refused', async () => {
    expect(await send(await closedPort())).toMatchObject({ kind: 'not_sent', reason: 'connect_refused' });
  });

  it('a failed TLS handshake is not_sent tls_failed, and no request byte reached the server', async () => {
    const received: Buffer[] = [];
    const t = await tcpServer((socket) => {
      socket.on('data', (b: Buffer) => {
        received.push(b);
        socket.end('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n'); // answers the ClientHello in plain HTTP
      });
    });
    open.push(t);
    expect(await send(`https://${t.host}:${t.port}`)).toMatchObject({
      kind: 'not_sent',
      reason: 'tls_failed',
    });
    expect(t.connections()).toBe(1);
    // Only the TLS ClientHello (record type 0x16) ever arrived, never the request line.
    const bytes = Buffer.concat(received);
    expect(bytes[0]).toBe(0x16);
    expect(bytes.includes(Buffer.from('POST /refunds'))).toBe(false);
  });

  it('a TCP connect that is never answered within the deadline is not_sent connect_timeout', async () => {
    const t = await unansweredConnect();
    open.push(t);
    const r = await send(`http://${t.host}:${t.port}`, 'operator@x', 300);
    expect(r).toMatchObject({ kind: 'not_sent', reason: 'connect_timeout' });
    expect(r.kind === 'not_sent' && r.detail).toBe('no connection within 300 ms');
  });

  it('a TLS handshake that never completes within the deadline is not_sent connect_timeout', async () => {
    const t = await tcpServer(() => undefined); // accepts TCP, never answers the handshake
    open.push(t);
    expect(await send(`https://${t.host}:${t.port}`, 'operator@x', 300)).toMatchObject({
      kind: 'not_sent',
      reason: 'connect_timeout',
    });
  });
});

describe('no_response: the request was written', () => {
  it('a connection reset after the request was written stays no_response (connection_lost)', async () => {
    const received: Buffer[] = [];
    const t = await tcpServer((socket) => {
      socket.on('data', (b: Buffer) => {
        received.push(b);
        if (Buffer.concat(received).includes(Buffer.from('{"amount":1}'))) socket.resetAndDestroy();
      });
    });
    open.push(t);
    expect(await send(`http://${t.host}:${t.port}`)).toMatchObject({
      kind: 'no_response',
      reason: 'connection_lost',
    });
    expect(Buffer.concat(received).toString()).toContain('POST /refunds HTTP/1.1');
  });
});
