import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShop, type DemoSystemHandle } from '../../demo/index.js';
import { call, json } from './helpers.js';

describe('demo system signature verification', () => {
  let shop: DemoSystemHandle;
  beforeAll(async () => {
    shop = await startShop({
      systemId: 'shop-a',
      name: 'Shop A',
      variant: 'A',
      secret: 'signature-test-secret-0001',
    });
  });
  afterAll(() => shop.close());

  it('accepts a correctly signed read and write', async () => {
    const read = await call(shop, { method: 'GET', path: '/products/42' });
    expect(read.status).toBe(200);
    const write = await call(shop, {
      method: 'PATCH',
      path: '/products/7/content',
      body: json({ title: 'Signed title' }),
      key: 'sig-ok-000001',
    });
    expect(write.status).toBe(200);
    expect((write.body as { title: string }).title).toBe('Signed title');
  });

  it('answers 401 signature_missing without a signature, and logs the request', async () => {
    const before = shop.ledger().length;
    const r = await call(shop, {
      method: 'PATCH',
      path: '/products/7/content',
      body: json({ title: 'x' }),
      key: 'sig-miss-0001',
      omitSignature: true,
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'signature_missing', message: expect.any(String) });
    expect(shop.ledger().length).toBe(before);
    const logged = shop.requests().filter((q) => q.idempotency_key === 'sig-miss-0001');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      auth: 'signature_missing',
      status: 401,
      operation: 'update_product_content',
      committed: false,
    });
  });

  it('answers 401 signature_invalid for a tampered body and writes nothing', async () => {
    const before = shop.ledger().length;
    const r = await call(shop, {
      method: 'PATCH',
      path: '/products/7/content',
      body: json({ title: 'Tampered' }),
      signedBody: json({ title: 'Original' }),
      key: 'sig-tamper-01',
    });
    expect(r.status).toBe(401);
    expect((r.body as { error: string }).error).toBe('signature_invalid');
    expect(shop.ledger().length).toBe(before);
    expect(
      (shop.state() as { products: { product_id: number; title: string }[] }).products.find(
        (p) => p.product_id === 7,
      )?.title,
    ).not.toBe('Tampered');
  });

  it('answers 401 for a tampered path or query', async () => {
    const r = await call(shop, { method: 'GET', path: '/products/13', signedPath: '/products/42' });
    expect(r.status).toBe(401);
    const q = await call(shop, { method: 'GET', path: '/products?limit=1', signedPath: '/products?limit=2' });
    expect(q.status).toBe(401);
  });

  it('answers 401 for the wrong secret', async () => {
    const r = await call(shop, { method: 'GET', path: '/products/42', secret: 'some-other-secret-000000' });
    expect(r.status).toBe(401);
    expect((r.body as { error: string }).error).toBe('signature_invalid');
  });

  it('answers 401 timestamp_expired for an old (or far future) timestamp', async () => {
    const now = Math.floor(Date.now() / 1000);
    const old = await call(shop, { method: 'GET', path: '/products/42', timestamp: now - 3600 });
    expect(old.status).toBe(401);
    expect((old.body as { error: string }).error).toBe('timestamp_expired');
    const future = await call(shop, { method: 'GET', path: '/products/42', timestamp: now + 3600 });
    expect(future.status).toBe(401);
  });

  it('refuses a timestamp exactly 300 s old (BailingHub SDKs: stale at 300 s) and accepts a fresher one', async () => {
    const now = Math.floor(Date.now() / 1000);
    const edge = await call(shop, { method: 'GET', path: '/products/42', timestamp: now - 300 });
    expect(edge.status).toBe(401);
    expect((edge.body as { error: string }).error).toBe('timestamp_expired');
    const fresh = await call(shop, { method: 'GET', path: '/products/42', timestamp: now - 298 });
    expect(fresh.status).toBe(200);
  });

  it('binds the signature to the on-behalf-of subject and job id', async () => {
    // Sign as one subject, send another: the helper signs what it sends, so tamper via raw headers.
    const ts = Math.floor(Date.now() / 1000);
    const { computeSignature } = await import('../../src-shared/signing.js');
    const sig = computeSignature({
      secret: shop.secret,
      timestamp: ts,
      method: 'GET',
      pathWithQuery: '/products/42',
      body: '',
      onBehalfOf: 'alice',
      jobId: 'run-1',
    });
    const res = await fetch(`${shop.url}/products/42`, {
      headers: {
        'x-bailing-timestamp': String(ts),
        'x-bailing-signature': sig,
        'x-bailing-on-behalf-of': 'mallory',
        'x-bailing-job-id': 'run-1',
      },
    });
    expect(res.status).toBe(401);
  });

  it('requires a signature on the operations look-up but not on the published spec', async () => {
    const unsigned = await fetch(`${shop.url}/.well-known/bailing/operations/sig-ok-000001`);
    expect(unsigned.status).toBe(401);
    const signed = await call(shop, { method: 'GET', path: '/.well-known/bailing/operations/sig-ok-000001' });
    expect(signed.status).toBe(200);
    const spec = await fetch(`${shop.url}/.well-known/bailing/tools.json`);
    expect(spec.status).toBe(200);
  });
});
