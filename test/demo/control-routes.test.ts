import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInventory, startShop, type DemoSystemHandle } from '../../demo/index.js';
import { call, json } from './helpers.js';

const post = (url: string, body: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('demo control routes over HTTP', () => {
  let shop: DemoSystemHandle;
  let inventory: DemoSystemHandle;
  beforeAll(async () => {
    shop = await startShop({
      systemId: 'shop-b',
      name: 'Shop B',
      variant: 'B',
      secret: 'control-test-secret-0001',
    });
    inventory = await startInventory({
      systemId: 'inventory',
      name: 'Inventory',
      secret: 'control-test-secret-0002',
    });
  });
  afterAll(async () => {
    await shop.close();
    await inventory.close();
  });

  it('GET /__demo/ledger, /__demo/requests and /__demo/state mirror the in-process handle', async () => {
    await call(shop, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ title: 'Over HTTP' }),
      key: 'control-write-01',
    });
    const ledger = (await (await fetch(`${shop.url}/__demo/ledger`)).json()) as { ledger: unknown[] };
    expect(ledger.ledger).toEqual(shop.ledger());
    expect(ledger.ledger).toHaveLength(1);
    const requests = (await (await fetch(`${shop.url}/__demo/requests`)).json()) as {
      requests: { url: string }[];
      concurrency: unknown;
    };
    expect(requests.requests.some((r) => r.url === '/products/42/content')).toBe(true);
    expect(requests.requests.some((r) => r.url.startsWith('/__demo/'))).toBe(false);
    expect(requests.concurrency).toEqual({ current: 0, max_observed: 1 });
    const state = (await (await fetch(`${shop.url}/__demo/state`)).json()) as {
      state: { products: { product_id: number; title: string }[] };
      spec_variant: string;
    };
    expect(state.spec_variant).toBe('v1');
    expect(state.state.products.find((p) => p.product_id === 42)?.title).toBe('Over HTTP');
    const invState = (await (await fetch(`${inventory.url}/__demo/state`)).json()) as {
      state: { stock: unknown[]; mappings: unknown[] };
    };
    expect(invState.state.mappings.length).toBeGreaterThan(0);
  });

  it('POST /__demo/faults sets a validated fault; DELETE clears it', async () => {
    const set = await post(
      `${shop.url}/__demo/faults`,
      json({ operation: 'get_product', kind: 'reject', status: 403, code: 'blocked', times: 'always' }),
    );
    expect(set.status).toBe(200);
    expect(shop.faults.list()).toEqual([
      { operation: 'get_product', kind: 'reject', status: 403, code: 'blocked', times: 'always' },
    ]);
    expect((await call(shop, { method: 'GET', path: '/products/7' })).status).toBe(403);
    const cleared = await fetch(`${shop.url}/__demo/faults`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect(shop.faults.list()).toEqual([]);
    expect((await call(shop, { method: 'GET', path: '/products/7' })).status).toBe(200);
  });

  it('refuses invalid control bodies with coded errors and changes nothing', async () => {
    const cases: [string, string, number, string][] = [
      ['/__demo/faults', '{not json', 400, 'invalid_json'],
      ['/__demo/faults', json({ operation: 'get_product', kind: 'explode' }), 400, 'invalid_request'],
      ['/__demo/faults', json({ operation: 'get_product', kind: 'delay' }), 400, 'invalid_request'],
      [
        '/__demo/faults',
        json({ operation: 'get_product', kind: 'reject', status: 500 }),
        400,
        'invalid_request',
      ],
      [
        '/__demo/faults',
        json({ operation: 'get_product', kind: 'reject', extra: 1 }),
        400,
        'invalid_request',
      ],
      ['/__demo/spec', json({ variant: 'v3' }), 400, 'invalid_request'],
      ['/__demo/spec', json({}), 400, 'invalid_request'],
    ];
    for (const [path, body, status, code] of cases) {
      const r = await post(`${shop.url}${path}`, body);
      expect(r.status, `${path} ${body}`).toBe(status);
      expect(((await r.json()) as { error: string }).error).toBe(code);
    }
    expect(shop.faults.list()).toEqual([]);
    expect(shop.specVariant()).toBe('v1');
  });

  it('POST /__demo/spec switches the published spec variant', async () => {
    const v1 = await (await fetch(`${shop.url}/.well-known/bailing/tools.json`)).text();
    const r = await post(`${shop.url}/__demo/spec`, json({ variant: 'v2' }));
    expect(r.status).toBe(200);
    expect(shop.specVariant()).toBe('v2');
    const v2 = await (await fetch(`${shop.url}/.well-known/bailing/tools.json`)).text();
    expect(v2).not.toBe(v1);
    await post(`${shop.url}/__demo/spec`, json({ variant: 'v1' }));
    expect(await (await fetch(`${shop.url}/.well-known/bailing/tools.json`)).text()).toBe(v1);
  });

  /** A raw request with headers fetch would not let a test set (Host), as a browser or a rebound name would send them. */
  const raw = (url: string, method: string, headers: Record<string, string>, body = '') =>
    new Promise<{ status: number; error: string }>((resolve, reject) => {
      const req = http.request(url, { method, headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, error: (JSON.parse(text) as { error: string }).error }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });

  it("a web page's cross-origin text/plain POST is refused and sets no fault", async () => {
    const fault = json({ operation: 'update_product_content', kind: 'fail_before_commit', times: 'once' });
    const host = new URL(shop.url).host;
    // what a page on another site can send without a preflight: text/plain, its own Origin
    const simple = await raw(
      `${shop.url}/__demo/faults`,
      'POST',
      {
        host,
        origin: 'https://attacker.example',
        'content-type': 'text/plain;charset=UTF-8',
      },
      fault,
    );
    expect(simple.status).toBe(403);
    expect(simple.error).toBe('forbidden_origin');
    // the same from no browser at all, still text/plain: refused on the content type
    const plain = await raw(
      `${shop.url}/__demo/faults`,
      'POST',
      { host, 'content-type': 'text/plain' },
      fault,
    );
    expect(plain).toEqual({ status: 415, error: 'unsupported_media_type' });
    // a DNS-rebound name (the page's own origin, pointing at 127.0.0.1): refused on the Host
    const rebound = await raw(
      `${shop.url}/__demo/faults`,
      'POST',
      {
        host: `attacker.example:${new URL(shop.url).port}`,
        origin: `http://attacker.example:${new URL(shop.url).port}`,
        'content-type': 'application/json',
      },
      fault,
    );
    expect(rebound).toEqual({ status: 421, error: 'misdirected' });
    const readRebound = await raw(`${shop.url}/__demo/ledger`, 'GET', { host: 'attacker.example' });
    expect(readRebound).toEqual({ status: 421, error: 'misdirected' });
    const clearCross = await raw(`${shop.url}/__demo/faults`, 'DELETE', { host, origin: 'null' });
    expect(clearCross).toEqual({ status: 403, error: 'forbidden_origin' });
    expect(shop.faults.list()).toEqual([]);
    // its own origin with JSON is what the tests and tools use
    const own = await raw(
      `${shop.url}/__demo/faults`,
      'POST',
      {
        host,
        origin: `http://${host}`,
        'content-type': 'application/json',
      },
      fault,
    );
    expect(own.status).toBe(200);
    shop.faults.clear();
  });
});
