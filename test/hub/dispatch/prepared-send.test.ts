// A request prepared ahead of its send (prepareSigned): signed and laid out at once, sent only when
// asked, exactly once; signed again when it waited past PREPARED_FRESH_MS; a refusal found while
// preparing is the send's `not_sent`, and nothing connects before the send.
import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src-shared/signing.js';
import { PREPARED_FRESH_MS, prepareSigned, type BuiltRequest } from '../../../src-hub/dispatch/index.js';
import { rawServer, tcpServer, type RawServer } from './servers.js';

const SECRET = 'dispatch-test-secret-00002';
const request: BuiltRequest = {
  method: 'PATCH',
  pathWithQuery: '/products/7/content',
  body: '{"title":"P"}',
};
// a fixed clock far from now: the signature's timestamp shows which moment the request was signed at
const T0 = 1_700_000_000_000;

describe('prepareSigned', () => {
  const servers: RawServer[] = [];
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await Promise.all(closers.splice(0).map((c) => c()));
  });
  const serve = async () => {
    const s = await rawServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    );
    servers.push(s);
    return s;
  };
  const prepare = (baseUrl: string, clock: { ms: number }, extra: { allowInsecureHttp?: boolean } = {}) =>
    prepareSigned(
      {
        baseUrl,
        systemId: 'sys-prepared',
        allowInsecureHttp: extra.allowInsecureHttp ?? false,
        secret: SECRET,
        request,
        signedPath: 'full',
        onBehalfOf: 'operator@x',
        jobId: 'run-7',
        idempotencyKey: 'inv-000000007',
        timeoutMs: 5000,
      },
      () => clock.ms,
    );
  const signedAt = (s: RawServer) => Number(s.hits[0]?.headers['x-bailing-timestamp']);

  it('connects to nothing until sent; sent while fresh, it carries the signature made when prepared', async () => {
    const tcp = await tcpServer((socket) => socket.end());
    closers.push(() => tcp.close());
    const clock = { ms: T0 };
    prepare(`http://${tcp.host}:${tcp.port}`, clock);
    await new Promise((r) => setTimeout(r, 50));
    expect(tcp.connections()).toBe(0);

    const s = await serve();
    const prepared = prepare(s.url, clock);
    clock.ms = T0 + PREPARED_FRESH_MS; // still fresh
    expect(s.hits).toHaveLength(0);
    expect(await prepared.send()).toMatchObject({ kind: 'response', status: 200, body: { ok: true } });
    expect(s.hits).toHaveLength(1);
    expect(signedAt(s)).toBe(T0 / 1000);
    const hit = s.hits[0]!;
    const check = verifySignature(
      {
        secret: SECRET,
        timestamp: signedAt(s),
        method: hit.method,
        pathWithQuery: hit.url,
        body: hit.body,
        onBehalfOf: 'operator@x',
        jobId: 'run-7',
        presented: hit.headers['x-bailing-signature'] as string,
      },
      T0 / 1000,
    );
    expect(check).toEqual({ ok: true });
    // a prepared request goes out once
    expect(() => prepared.send()).toThrow();
    expect(s.hits).toHaveLength(1);
  });

  it('signed again at send time when it waited longer than PREPARED_FRESH_MS', async () => {
    const s = await serve();
    const clock = { ms: T0 };
    const prepared = prepare(s.url, clock);
    clock.ms = T0 + PREPARED_FRESH_MS + 1_000;
    expect(await prepared.send()).toMatchObject({ kind: 'response', status: 200 });
    expect(signedAt(s)).toBe((T0 + PREPARED_FRESH_MS + 1_000) / 1000);
  });

  it('a refusal found while preparing is the send’s not_sent; an aborted send never connects', async () => {
    const clock = { ms: T0 };
    // plain http to a host that is not loopback, not allowed: refused before anything is sent
    const refused = prepare('http://192.0.2.10:8080', clock);
    expect(await refused.send()).toMatchObject({ kind: 'not_sent', reason: 'destination_refused' });

    const tcp = await tcpServer((socket) => socket.end());
    closers.push(() => tcp.close());
    const controller = new AbortController();
    controller.abort();
    const aborted = prepare(`http://${tcp.host}:${tcp.port}`, clock);
    expect(await aborted.send(controller.signal)).toMatchObject({ kind: 'not_sent', reason: 'aborted' });
    expect(tcp.connections()).toBe(0);
  });
});
