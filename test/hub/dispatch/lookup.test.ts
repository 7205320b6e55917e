import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startShop, type DemoSystemHandle } from '../../../demo/index.js';
import { canonicalJson, sha256Hex } from '../../../src-shared/digest.js';
import { sendSigned } from '../../../src-hub/dispatch/index.js';
import { lookupOperation } from '../../../src-hub/reconcile/lookup.js';
import { closedPort, rawServer, type RawServer } from './servers.js';

const base = {
  systemId: 'shop-a',
  allowInsecureHttp: false,
  onBehalfOf: 'operator@demo.local',
  jobId: 'run-lookup',
  timeoutMs: 3000,
  signedPath: 'operation' as const,
};

describe('lookupOperation against a demo shop', () => {
  let shop: DemoSystemHandle;
  beforeAll(async () => {
    shop = await startShop({
      systemId: 'shop-a',
      name: 'Shop A',
      variant: 'A',
      secret: 'lookup-test-secret-00001',
    });
  });
  afterAll(() => shop.close());
  afterEach(() => shop.faults.clear());

  const write = (key: string, body: unknown, path = '/products/42/content', method = 'PATCH') =>
    sendSigned({
      baseUrl: shop.url,
      secret: shop.secret,
      request: { method, pathWithQuery: path, body: JSON.stringify(body) },
      idempotencyKey: key,
      ...base,
    });
  const lookup = (key: string, secret = shop.secret) =>
    lookupOperation({ baseUrl: shop.url, secret, idempotencyKey: key, ...base });

  it('succeeded with http_status, result and a digest of the canonical look-up body', async () => {
    await write('lookup-ok-000001', { title: 'Looked up' });
    const r = await lookup('lookup-ok-000001');
    expect(r).toMatchObject({
      outcome: 'succeeded',
      http_status: 200,
      result: { product_id: 42, title: 'Looked up' },
    });
    if (r.outcome !== 'succeeded') return;
    const raw = await sendSigned({
      baseUrl: shop.url,
      secret: shop.secret,
      request: { method: 'GET', pathWithQuery: '/.well-known/bailing/operations/lookup-ok-000001', body: '' },
      idempotencyKey: null,
      ...base,
    });
    expect(raw.kind).toBe('response');
    if (raw.kind === 'response') expect(r.evidence_digest).toBe(sha256Hex(canonicalJson(raw.body)));
    // looking up writes nothing
    expect(shop.ledger()).toHaveLength(1);
  });

  it('failed for a settled business rejection', async () => {
    await write('lookup-fail-0001', { price: 1 });
    expect(await lookup('lookup-fail-0001')).toMatchObject({ outcome: 'failed', http_status: 422 });
  });

  it('works for the longest invocation id (128 characters)', async () => {
    const key = 'k'.repeat(128);
    await write(key, { title: 'Long key' });
    expect(await lookup(key)).toMatchObject({ outcome: 'succeeded', http_status: 200 });
    expect(await lookup('n'.repeat(128))).toEqual({ outcome: 'not_found' });
    const odd = 'inv/with_slash?&#';
    await write(odd, { title: 'Odd key' });
    expect(await lookup(odd)).toMatchObject({ outcome: 'succeeded' });
  });

  it('not_found for a key the system never committed', async () => {
    expect(await lookup('never-sent-00001')).toEqual({ outcome: 'not_found' });
  });

  it('unavailable when the look-up answers 503 or the secret is wrong', async () => {
    shop.faults.set({ operation: '*', kind: 'lookup_unavailable', times: 'always' });
    expect((await lookup('lookup-ok-000001')).outcome).toBe('unavailable');
    shop.faults.clear();
    const wrong = await lookup('lookup-ok-000001', 'a-different-secret-000000');
    expect(wrong).toMatchObject({ outcome: 'unavailable', detail: expect.stringContaining('401') });
  });
});

describe('lookupOperation against misbehaving systems', () => {
  const servers: RawServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const serve = async (status: number, body: string) => {
    const s = await rawServer((_req, res) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(body),
    );
    servers.push(s);
    return s;
  };
  const lookup = (url: string, key = 'key-00000001', timeoutMs = 3000) =>
    lookupOperation({
      baseUrl: url,
      systemId: 'sys-test',
      allowInsecureHttp: false,
      secret: 'x'.repeat(20),
      idempotencyKey: key,
      onBehalfOf: 'o',
      jobId: 'j',
      timeoutMs,
      signedPath: 'operation',
    });

  it('a 404 without operation_not_found is not authoritative: unavailable', async () => {
    const s = await serve(404, '{"error":"not_found","message":"no such route"}');
    expect((await lookup(s.url)).outcome).toBe('unavailable');
  });

  it('a malformed 200 or an answer for another key is unavailable', async () => {
    const malformed = await serve(200, '{"status":"done"}');
    expect((await lookup(malformed.url)).outcome).toBe('unavailable');
    const other = await serve(
      200,
      JSON.stringify({
        idempotency_key: 'other-key-0001',
        status: 'succeeded',
        http_status: 200,
        result: {},
        recorded_at: 'x',
      }),
    );
    expect((await lookup(other.url)).outcome).toBe('unavailable');
  });

  it('no answer (timeout, refused) is unavailable, never not_found', async () => {
    const hang = await rawServer(() => undefined);
    servers.push(hang);
    expect(await lookup(hang.url, 'key-00000001', 150)).toMatchObject({
      outcome: 'unavailable',
      detail: expect.stringContaining('timeout'),
    });
    expect((await lookup(await closedPort())).outcome).toBe('unavailable');
  });

  it('URL-encodes the key into the signed path', async () => {
    const s = await serve(404, '{"error":"operation_not_found","message":"none"}');
    expect(await lookup(s.url, 'a/b c')).toEqual({ outcome: 'not_found' });
    expect(s.hits[0]?.url).toBe('/.well-known/bailing/operations/a%2Fb%20c');
    expect(s.hits[0]?.headers['x-bailing-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
