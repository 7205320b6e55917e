// The demo systems' business data in SQLite files of a data folder: seeded on first start only,
// kept across restarts (state, ledger, settled keys), unusable files refused with a code and never
// reseeded over, "reset demo data" back to the seed, and a storage failure that keeps nothing.
import Database from 'better-sqlite3';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  demoDataFile,
  DemoDataWriteError,
  startDemoSystems,
  startShop,
  type DemoSystemHandle,
  type DemoSystems,
} from '../../demo/index.js';
import { startDemoSystem } from '../../demo/core/server.js';
import { createSqliteStore } from '../../demo/core/sqlite-store.js';
import { shopData, type ShopData } from '../../demo/shop/data.js';
import { shopOperations, type ShopStore } from '../../demo/shop/operations.js';
import { seedProducts } from '../../demo/shop/seed.js';
import { call, json } from './helpers.js';

const dirs: string[] = [];
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'demo-data-'));
  dirs.push(d);
  return join(d, 'demo');
}

async function systemsOn(dir: string): Promise<DemoSystems> {
  const s = await startDemoSystems({ dataDir: dir });
  open.push(s);
  return s;
}

async function shopAOn(dir: string): Promise<DemoSystemHandle> {
  const s = await startShop({
    systemId: 'shop-a',
    name: 'Shop A',
    variant: 'A',
    secret: 'x'.repeat(32),
    dataDir: dir,
  });
  open.push(s);
  return s;
}

const product = (s: DemoSystemHandle, id: number) =>
  (
    s.state() as { products: { product_id: number; description: string; price: number; revision: number }[] }
  ).products.find((p) => p.product_id === id);

const editDescription = (s: DemoSystemHandle, key: string, description: string) =>
  call(s, { method: 'PATCH', path: '/products/42/content', key, body: json({ description }) });

async function closeLast(): Promise<void> {
  await open.pop()?.close();
}

describe('demo business data in the data folder', () => {
  it('is seeded on first start only, in owner-only files, and a restart keeps state, ledger and settled keys', async () => {
    const dir = dataDir();
    let systems = await systemsOn(dir);
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.sqlite'))
        .sort(),
    ).toEqual(['inventory.sqlite', 'shop-a.sqlite', 'shop-b.sqlite']);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o077).toBe(0);
    expect(systems.shopA.dataStatus()).toMatchObject({ storage: 'file', state: 'ok', file: 'shop-a.sqlite' });

    const w = await editDescription(systems.shopA, 'persist-key-0001', 'Kept across restarts.');
    expect(w.status).toBe(200);
    const price = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/7',
      key: 'persist-key-0002',
      body: json({ price: 14.5 }),
    });
    expect(price.status).toBe(200);
    const adj = await call(systems.inventory, {
      method: 'POST',
      path: '/stock/SKU-A-0042/adjustments',
      key: 'persist-key-0003',
      body: json({ delta: -2, reason: 'damaged' }),
    });
    expect(adj.body).toMatchObject({ adjustment_id: 'ADJ-00001', on_hand: 10 });
    const refused = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/999/content',
      key: 'persist-key-0004',
      body: json({ title: 'nothing' }),
    });
    expect(refused.status).toBe(404);
    const ledgerBefore = systems.shopA.ledger();
    const stateBefore = systems.shopA.state();
    await systems.close();
    open.length = 0;

    systems = await systemsOn(dir);
    expect(systems.shopA.state()).toEqual(stateBefore);
    expect(product(systems.shopA, 42)?.description).toBe('Kept across restarts.');
    expect(product(systems.shopA, 7)?.price).toBe(14.5);
    expect(systems.shopA.ledger()).toEqual(ledgerBefore);
    expect(systems.shopA.ledger().map((e) => e.idempotency_key)).toEqual([
      'persist-key-0001',
      'persist-key-0002',
    ]);
    expect(
      (systems.inventory.state() as { stock: { sku: string; on_hand: number }[] }).stock.find(
        (i) => i.sku === 'SKU-A-0042',
      )?.on_hand,
    ).toBe(10);
    // The seed did not come back (first start only): shop B is untouched seed, shop A is not.
    expect(product(systems.shopB, 42)?.description).toBe(
      seedProducts('B').find((p) => p.product_id === 42)?.description,
    );

    // The settled keys survived: a repeat writes nothing and answers the stored result; the look-up tells.
    const again = await editDescription(systems.shopA, 'persist-key-0001', 'Kept across restarts.');
    expect(again.headers.get('x-bailing-idempotent-replay')).toBe('true');
    expect(again.body).toEqual(w.body);
    const lookup = await call(systems.shopA, {
      method: 'GET',
      path: '/.well-known/bailing/operations/persist-key-0001',
    });
    expect(lookup.body).toMatchObject({
      status: 'succeeded',
      http_status: 200,
      operation: 'update_product_content',
    });
    const failed = await call(systems.shopA, {
      method: 'GET',
      path: '/.well-known/bailing/operations/persist-key-0004',
    });
    expect(failed.body).toMatchObject({ status: 'failed', http_status: 404 });
    expect(systems.shopA.ledger()).toHaveLength(2);
    // A new adjustment continues the numbering.
    const adj2 = await call(systems.inventory, {
      method: 'POST',
      path: '/stock/SKU-A-0042/adjustments',
      key: 'persist-key-0005',
      body: json({ delta: 1, reason: 'found' }),
    });
    expect(adj2.body).toMatchObject({ adjustment_id: 'ADJ-00002', on_hand: 11 });
  });

  it('reset: products and stock back to the seed; ledger and settled keys kept, so a repeat still writes nothing', async () => {
    const dir = dataDir();
    const systems = await systemsOn(dir);
    await editDescription(systems.shopA, 'reset-key-00001', 'Changed before the reset.');
    await call(systems.inventory, {
      method: 'POST',
      path: '/stock/SKU-A-0007/adjustments',
      key: 'reset-key-00002',
      body: json({ delta: 5, reason: 'delivery' }),
    });
    const results = systems.resetData();
    expect(results.map((r) => [r.system_id, r.reset, r.set_aside, r.status.state])).toEqual([
      ['shop-a', true, null, 'ok'],
      ['shop-b', true, null, 'ok'],
      ['inventory', true, null, 'ok'],
    ]);
    expect(results[0]?.status.reset_at).toEqual(expect.any(String));
    expect((systems.shopA.state() as { products: unknown[] }).products).toEqual(seedProducts('A'));
    expect(systems.shopA.ledger().map((e) => e.idempotency_key)).toEqual(['reset-key-00001']);
    const again = await editDescription(systems.shopA, 'reset-key-00001', 'Changed before the reset.');
    expect(again.headers.get('x-bailing-idempotent-replay')).toBe('true');
    expect(product(systems.shopA, 42)?.description).toBe(
      seedProducts('A').find((p) => p.product_id === 42)?.description,
    );
    const adj = await call(systems.inventory, {
      method: 'POST',
      path: '/stock/SKU-A-0007/adjustments',
      key: 'reset-key-00003',
      body: json({ delta: 1, reason: 'count' }),
    });
    expect(adj.body).toMatchObject({ adjustment_id: 'ADJ-00002', on_hand_before: 40, on_hand: 41 });

    // The reset is on disk too.
    await systems.close();
    open.length = 0;
    const after = await systemsOn(dir);
    expect(product(after.shopA, 42)?.revision).toBe(1);
    expect(after.shopA.dataStatus().reset_at).toBe(results[0]?.status.reset_at);
  });

  it('POST /__demo/reset resets over the guarded control route (JSON body only)', async () => {
    const shop = await shopAOn(dataDir());
    await editDescription(shop, 'route-key-00001', 'Changed.');
    const host = new URL(shop.url).host;
    const bad = await fetch(`${shop.url}/__demo/reset`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(bad.status).toBe(415);
    const extra = await fetch(`${shop.url}/__demo/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"all":true}',
    });
    expect(extra.status).toBe(400);
    expect(product(shop, 42)?.description).toBe('Changed.');
    const ok = await fetch(`${shop.url}/__demo/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', host },
      body: '{}',
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { reset: { reset: boolean } }).reset.reset).toBe(true);
    expect(product(shop, 42)?.revision).toBe(1);
    const state = (await (await fetch(`${shop.url}/__demo/state`)).json()) as {
      data: { state: string; storage: string };
    };
    expect(state.data).toMatchObject({ state: 'ok', storage: 'file' });
  });
});

describe('a data file that cannot be used', () => {
  /** Starts shop A on a file prepared by `spoil`; asserts it refuses with a code and leaves the file as it was. */
  async function refuses(
    spoil: (file: string) => void,
    problem: string,
  ): Promise<{ shop: DemoSystemHandle; file: string }> {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = demoDataFile(dir, 'shop-a');
    spoil(file);
    const before = statSync(file).isFile() ? readFileSync(file) : null;
    const problems: string[] = [];
    const shop = await startShop({
      systemId: 'shop-a',
      name: 'Shop A',
      variant: 'A',
      secret: 'x'.repeat(32),
      dataDir: dir,
      onDataProblem: (err) => problems.push(err.problem),
    });
    open.push(shop);
    expect(problems).toEqual([problem]);
    expect(shop.dataStatus()).toMatchObject({ storage: 'file', state: problem, file: 'shop-a.sqlite' });
    // Business calls are refused (409, nothing read or written: the Hub may settle them as failed);
    // the look-up answers 503 — never "operation_not_found", which would tell the Hub that a call
    // made before the file broke never happened.
    const read = await call(shop, { method: 'GET', path: '/products/42' });
    expect(read.status).toBe(409);
    expect(read.body).toMatchObject({ error: 'demo_data_unavailable' });
    const write = await editDescription(shop, 'unusable-key-01', 'Must not be kept.');
    expect(write.status).toBe(409);
    expect(write.body).toMatchObject({ error: 'demo_data_unavailable' });
    const lookup = await call(shop, {
      method: 'GET',
      path: '/.well-known/bailing/operations/unusable-key-01',
    });
    expect(lookup.status).toBe(503);
    expect((await fetch(`${shop.url}/__demo/ledger`)).status).toBe(503);
    expect((await fetch(`${shop.url}/.well-known/bailing/tools.json`)).status).toBe(200);
    // Not reseeded over: the file is exactly as it was.
    if (before) expect(readFileSync(file).equals(before)).toBe(true);
    return { shop, file };
  }

  it('garbage bytes: corrupt (SQLITE_NOTADB), untouched; reset sets it aside and starts from the seed', async () => {
    const garbage = Buffer.from('this is not a database, it is the operator’s file '.repeat(200));
    const { shop, file } = await refuses((f) => writeFileSync(f, garbage, { mode: 0o600 }), 'corrupt');
    expect(shop.dataStatus().detail).toBe('SQLITE_NOTADB');
    const r = shop.resetData();
    expect(r).toMatchObject({ reset: true, status: { state: 'ok' } });
    expect(r.set_aside).toMatch(/^shop-a\.sqlite\.set-aside-/);
    expect(readFileSync(join(file, '..', r.set_aside ?? '')).equals(garbage)).toBe(true);
    const read = await call(shop, { method: 'GET', path: '/products/42' });
    expect(read.status).toBe(200);
    expect(shop.ledger()).toEqual([]);
  });

  it('a directory where the file belongs: unreadable', async () => {
    await refuses((f) => mkdirSync(f), 'unreadable');
  });

  it("another system's file: incompatible", async () => {
    const dir = dataDir();
    const inv = await startDemoSystems({ dataDir: dir });
    await inv.close();
    await refuses((f) => copyFileSync(demoDataFile(dir, 'inventory'), f), 'incompatible');
  });

  it('a business state that fails its schema: corrupt; a newer schema version: incompatible', async () => {
    const dir = dataDir();
    const made = await startDemoSystems({ dataDir: dir });
    await made.close();
    const { shop } = await refuses((f) => {
      copyFileSync(demoDataFile(dir, 'shop-a'), f);
      const db = new Database(f);
      db.prepare('UPDATE business_state SET doc = ?').run(JSON.stringify({ products: [{ product_id: -1 }] }));
      db.close();
    }, 'corrupt');
    expect(shop.dataStatus().detail).toBe('business_state');
    await closeLast();
    await refuses((f) => {
      copyFileSync(demoDataFile(dir, 'shop-a'), f);
      const db = new Database(f);
      db.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
      db.close();
    }, 'incompatible');
  });
});

describe('one process at a time', () => {
  it('a second system on the same data folder is refused (SQLITE_BUSY), the first keeps serving', async () => {
    const dir = dataDir();
    const first = await shopAOn(dir);
    const second = await shopAOn(dir);
    expect(second.dataStatus()).toMatchObject({ state: 'unreadable', detail: 'SQLITE_BUSY' });
    expect((await editDescription(first, 'first-owner-key', 'Still served.')).status).toBe(200);
    expect((await editDescription(second, 'second-owner-k', 'Refused.')).status).toBe(409);
  });
});

describe('a storage failure at commit', () => {
  it('answers 500 demo_data_write_failed, keeps nothing (state, ledger, key) and the same call succeeds once storage is back', async () => {
    const dir = dataDir();
    const sqlite = createSqliteStore<ShopData>({
      file: demoDataFile(dir, 'shop-a'),
      systemId: 'shop-a',
      schema: shopData({ products: new Map(), now: () => '' }, 'A').schema,
    });
    let failNext = true;
    const store = {
      ...sqlite,
      commit: (c: Parameters<typeof sqlite.commit>[0]) => {
        if (failNext) {
          failNext = false;
          throw new DemoDataWriteError('SQLITE_FULL');
        }
        return sqlite.commit(c);
      },
    };
    const products: ShopStore = { products: new Map(), now: () => new Date().toISOString() };
    const shop = await startDemoSystem({
      systemId: 'shop-a',
      name: 'Shop A',
      secret: 'x'.repeat(32),
      description: 'shop with a failing disk',
      operations: (v) => shopOperations(products, v),
      state: () => ({ products: [...products.products.values()] }),
      data: shopData(products, 'A'),
      store,
    });
    open.push(shop);
    const seedDescription = product(shop, 42)?.description;
    const failed = await editDescription(shop, 'disk-full-key-1', 'Not kept.');
    expect(failed.status).toBe(500);
    expect(failed.body).toMatchObject({ error: 'demo_data_write_failed' });
    expect(product(shop, 42)?.description).toBe(seedDescription);
    expect(product(shop, 42)?.revision).toBe(1);
    expect(shop.ledger()).toEqual([]);
    const lookup = await call(shop, {
      method: 'GET',
      path: '/.well-known/bailing/operations/disk-full-key-1',
    });
    expect(lookup.status).toBe(404);
    const retried = await editDescription(shop, 'disk-full-key-1', 'Not kept.');
    expect(retried.status).toBe(200);
    expect(shop.ledger()).toHaveLength(1);
  });
});
