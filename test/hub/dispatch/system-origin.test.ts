// A system's base URL is parsed once per system and parsed again when it changes: the cached
// origin never sends a request, or signs a path, of a base URL the system no longer has.
import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src-shared/signing.js';
import { sendSigned, type BuiltRequest } from '../../../src-hub/dispatch/index.js';
import { systemOrigin } from '../../../src-hub/dispatch/system-origin.js';
import { rawServer, type RawServer } from './servers.js';

const SECRET = 'system-origin-test-secret-01';
const request: BuiltRequest = { method: 'POST', pathWithQuery: '/orders?x=1', body: '{"n":1}' };

describe('systemOrigin', () => {
  it('parses a base URL once per system and keeps a separate entry for every system', () => {
    const a = systemOrigin('sys-origin-a', 'http://127.0.0.1:9/erp/');
    expect(a?.url.origin).toBe('http://127.0.0.1:9');
    expect(a?.prefix).toBe('/erp');
    expect(systemOrigin('sys-origin-a', 'http://127.0.0.1:9/erp/')).toBe(a);
    const b = systemOrigin('sys-origin-b', 'http://127.0.0.1:9/erp/');
    expect(b).not.toBe(a);
    expect(b?.prefix).toBe('/erp');
  });

  it('replaces a system entry when its base URL changes, and caches nothing for a base URL that is not a URL', () => {
    const first = systemOrigin('sys-origin-c', 'http://127.0.0.1:9/one');
    const second = systemOrigin('sys-origin-c', 'https://erp.example.com:8443/two//');
    expect(second).not.toBe(first);
    expect(second?.url.origin).toBe('https://erp.example.com:8443');
    expect(second?.prefix).toBe('/two');
    expect(systemOrigin('sys-origin-c', 'https://erp.example.com:8443/two//')).toBe(second);
    expect(systemOrigin('sys-origin-c', 'not a url')).toBeNull();
    // back to the earlier base URL: parsed again, as that URL
    const again = systemOrigin('sys-origin-c', 'http://127.0.0.1:9/one');
    expect(again?.url.origin).toBe('http://127.0.0.1:9');
    expect(again?.prefix).toBe('/one');
  });
});

describe('sendSigned with a system whose base URL changed', () => {
  const servers: RawServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('sends to the new base URL, under its prefix, signed over the new target', async () => {
    const ok = (_req: unknown, res: import('node:http').ServerResponse) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const one = await rawServer(ok);
    const two = await rawServer(ok);
    servers.push(one, two);
    const send = (baseUrl: string) =>
      sendSigned({
        baseUrl,
        systemId: 'sys-origin-moved',
        allowInsecureHttp: false,
        secret: SECRET,
        request,
        signedPath: 'full',
        onBehalfOf: '',
        jobId: 'run-1',
        idempotencyKey: 'inv-origin-0001',
        timeoutMs: 5000,
      });
    expect((await send(`${one.url}/first/`)).kind).toBe('response');
    expect((await send(`${two.url}/second`)).kind).toBe('response');
    expect(one.hits.map((h) => h.url)).toEqual(['/first/orders?x=1']);
    expect(two.hits.map((h) => h.url)).toEqual(['/second/orders?x=1']);
    const hit = two.hits[0]!;
    const check = verifySignature(
      {
        secret: SECRET,
        timestamp: Number(hit.headers['x-bailing-timestamp']),
        method: 'POST',
        pathWithQuery: '/second/orders?x=1',
        body: '{"n":1}',
        onBehalfOf: '',
        jobId: 'run-1',
        presented: hit.headers['x-bailing-signature'] as string,
      },
      Math.floor(Date.now() / 1000),
    );
    expect(check).toEqual({ ok: true });
  });
});
