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
});
