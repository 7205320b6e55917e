import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src-shared/signing.js';
import { fetchSpec, sendSigned, type BuiltRequest } from '../../../src-hub/dispatch/index.js';
import { closedPort, rawServer, type RawServer } from './servers.js';

const SECRET = 'dispatch-test-secret-00001';
const request: BuiltRequest = {
  method: 'PATCH',
  pathWithQuery: '/products/42/content?x=1',
  body: '{"title":"T"}',
};

describe('sendSigned', () => {
  const servers: RawServer[] = [];
  const serve = async (h: Parameters<typeof rawServer>[0]) => {
    const s = await rawServer(h);
    servers.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const send = (baseUrl: string, extra: Partial<Parameters<typeof sendSigned>[0]> = {}) =>
    sendSigned({
      baseUrl,
      systemId: 'sys-test',
      allowInsecureHttp: false,
      secret: SECRET,
      request,
      signedPath: 'full',
      onBehalfOf: 'operator@x',
      jobId: 'run-1',
      idempotencyKey: 'inv-000000001',
      timeoutMs: 5000,
      ...extra,
    });

  it('sends the signed headers over the exact path and body; the signature verifies', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'),
    );
    const r = await send(s.url);
    expect(r).toEqual({
      kind: 'response',
      status: 200,
      body: { ok: true },
      body_bytes: 11,
      truncated: false,
    });
    const hit = s.hits[0];
    expect(hit).toBeDefined();
    if (!hit) return;
    expect(hit.method).toBe('PATCH');
    expect(hit.url).toBe('/products/42/content?x=1');
    expect(hit.body).toBe('{"title":"T"}');
    expect(hit.headers['x-bailing-idempotency-key']).toBe('inv-000000001');
    expect(hit.headers['x-bailing-job-id']).toBe('run-1');
    expect(hit.headers['x-bailing-on-behalf-of']).toBe('operator@x');
    expect(hit.headers['content-type']).toBe('application/json');
    const check = verifySignature(
      {
        secret: SECRET,
        timestamp: Number(hit.headers['x-bailing-timestamp']),
        method: hit.method,
        pathWithQuery: hit.url,
        body: hit.body,
        onBehalfOf: 'operator@x',
        jobId: 'run-1',
        presented: hit.headers['x-bailing-signature'] as string,
      },
      Math.floor(Date.now() / 1000),
    );
    expect(check).toEqual({ ok: true });
  });

  it('signs and sends the base URL path prefix too', async () => {
    const s = await serve((_req, res) => res.writeHead(204).end());
    const r = await send(`${s.url}/api/v2/`);
    expect(r).toMatchObject({ kind: 'response', status: 204, body: '' });
    expect(s.hits[0]?.url).toBe('/api/v2/products/42/content?x=1');
  });

  it('omits the idempotency header when there is no key', async () => {
    const s = await serve((_req, res) => res.end('plain text'));
    const r = await send(s.url, { idempotencyKey: null });
    expect(r).toMatchObject({ kind: 'response', status: 200, body: 'plain text' });
    expect(s.hits[0]?.headers['x-bailing-idempotency-key']).toBeUndefined();
  });

  it('times out when the system never answers, and does not retry', async () => {
    const s = await serve(() => undefined);
    const r = await send(s.url, { timeoutMs: 200 });
    expect(r).toMatchObject({ kind: 'no_response', reason: 'timeout' });
    await new Promise((res) => setTimeout(res, 100));
    expect(s.hits).toHaveLength(1);
  });

  it('reports aborted when the signal fires mid-flight, and aborted-before-send without a request', async () => {
    const s = await serve(() => undefined);
    const controller = new AbortController();
    const pending = send(s.url, { signal: controller.signal, timeoutMs: 30_000 });
    while (s.hits.length === 0) await new Promise((res) => setTimeout(res, 5));
    controller.abort();
    expect(await pending).toMatchObject({ kind: 'no_response', reason: 'aborted' });
    const pre = new AbortController();
    pre.abort();
    expect(await send(s.url, { signal: pre.signal })).toMatchObject({ kind: 'not_sent', reason: 'aborted' });
    expect(s.hits).toHaveLength(1);
  });

  it('reports connection_lost when the socket is destroyed, exactly one attempt', async () => {
    const s = await serve((req) => req.socket.destroy());
    const r = await send(s.url);
    expect(r).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
    expect(s.hits).toHaveLength(1);
  });

  it('reports connection_lost when the response body is cut short', async () => {
    const s = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 20);
    });
    expect(await send(s.url)).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
  });

  it('not_sent connect_refused for a closed port', async () => {
    const url = await closedPort();
    expect(await send(url)).toMatchObject({ kind: 'not_sent', reason: 'connect_refused' });
  });

  it('bounds the response body: larger answers are truncated and flagged', async () => {
    const big = JSON.stringify({ data: 'x'.repeat(400 * 1024) });
    const s = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(big));
    const r = await send(s.url);
    expect(r.kind).toBe('response');
    if (r.kind !== 'response') return;
    expect(r.truncated).toBe(true);
    expect(r.body_bytes).toBe(256 * 1024);
    expect(typeof r.body).toBe('string');
    expect((r.body as string).length).toBe(256 * 1024);
    const small = await send(s.url, { maxBodyBytes: 1024 * 1024 });
    expect(small).toMatchObject({ kind: 'response', truncated: false, body_bytes: big.length });
  });

  it('keeps a non-JSON error body as text and passes 5xx statuses through', async () => {
    const s = await serve((_req, res) =>
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>bad gateway</h1>'),
    );
    expect(await send(s.url)).toMatchObject({ kind: 'response', status: 502, body: '<h1>bad gateway</h1>' });
  });
});

describe('fetchSpec', () => {
  const servers: RawServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('returns the document, fetched unsigned from the default path', async () => {
    const s = await rawServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"openapi":"3.1.0","paths":{}}'),
    );
    servers.push(s);
    expect(
      await fetchSpec({ systemId: 'sys-test', allowInsecureHttp: false, baseUrl: s.url, secret: null }),
    ).toEqual({
      ok: true,
      doc: { openapi: '3.1.0', paths: {} },
    });
    expect(s.hits[0]?.url).toBe('/.well-known/bailing/tools.json');
    expect(s.hits[0]?.headers['x-bailing-signature']).toBeUndefined();
  });

  it('honours a custom spec path', async () => {
    const s = await rawServer((_req, res) => res.end('{"openapi":"3.0.3","paths":{}}'));
    servers.push(s);
    expect(
      (
        await fetchSpec({
          systemId: 'sys-test',
          allowInsecureHttp: false,
          baseUrl: s.url,
          specPath: '/openapi.json',
          secret: null,
        })
      ).ok,
    ).toBe(true);
    expect(s.hits[0]?.url).toBe('/openapi.json');
  });

  it('system_unreachable for a closed port, a timeout or an HTTP error', async () => {
    expect(
      await fetchSpec({
        systemId: 'sys-test',
        allowInsecureHttp: false,
        baseUrl: await closedPort(),
        secret: null,
      }),
    ).toMatchObject({
      ok: false,
      code: 'system_unreachable',
    });
    const hang = await rawServer(() => undefined);
    servers.push(hang);
    expect(
      await fetchSpec({
        systemId: 'sys-test',
        allowInsecureHttp: false,
        baseUrl: hang.url,
        timeoutMs: 150,
        secret: null,
      }),
    ).toMatchObject({
      ok: false,
      code: 'system_unreachable',
    });
    const notFound = await rawServer((_req, res) => res.writeHead(404).end('{}'));
    servers.push(notFound);
    expect(
      await fetchSpec({
        systemId: 'sys-test',
        allowInsecureHttp: false,
        baseUrl: notFound.url,
        secret: null,
      }),
    ).toMatchObject({
      ok: false,
      code: 'system_unreachable',
    });
  });

  it('spec_invalid for a body that is not a JSON object', async () => {
    for (const body of ['<html></html>', '[1,2]', '"text"']) {
      const s = await rawServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(body),
      );
      servers.push(s);
      expect(
        await fetchSpec({ systemId: 'sys-test', allowInsecureHttp: false, baseUrl: s.url, secret: null }),
      ).toMatchObject({
        ok: false,
        code: 'spec_invalid',
      });
    }
  });
});
