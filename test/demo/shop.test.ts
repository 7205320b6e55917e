import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { compileSpec } from '../../src-hub/acc/index.js';
import { call, json } from './helpers.js';

interface Product {
  product_id: number;
  title: string;
  description: string;
  price: number;
  stock: number;
  status: string;
}

const productOf = (state: unknown, id: number) =>
  (state as { products: Product[] }).products.find((p) => p.product_id === id);

describe('demo shops and inventory', () => {
  let systems: DemoSystems;
  beforeAll(async () => {
    systems = await startDemoSystems();
  });
  afterAll(() => systems.close());

  it('starts shop-a, shop-b and inventory on 127.0.0.1 with distinct secrets', () => {
    expect(systems.all().map((s) => s.systemId)).toEqual(['shop-a', 'shop-b', 'inventory']);
    for (const s of systems.all()) expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new Set(systems.all().map((s) => s.secret)).size).toBe(3);
  });

  it("shop A's product 42 differs from shop B's, and both have 7 and 13", async () => {
    const a = await call(systems.shopA, { method: 'GET', path: '/products/42' });
    const b = await call(systems.shopB, { method: 'GET', path: '/products/42' });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const pa = a.body as Product;
    const pb = b.body as Product;
    expect(pa.product_id).toBe(42);
    expect(pb.product_id).toBe(42);
    expect(pa.title).not.toBe(pb.title);
    expect(pa.description).not.toBe(pb.description);
    expect(pa.price).not.toBe(pb.price);
    expect(pa.stock).not.toBe(pb.stock);
    for (const shop of [systems.shopA, systems.shopB]) {
      const list = await call(shop, { method: 'GET', path: '/products' });
      const ids = (list.body as { products: Product[] }).products.map((p) => p.product_id);
      expect(ids).toEqual(expect.arrayContaining([7, 13, 42]));
    }
  });

  it('list_products filters by status and limit; unknown query params are refused', async () => {
    const published = await call(systems.shopA, { method: 'GET', path: '/products?status=published' });
    expect((published.body as { products: Product[] }).products.every((p) => p.status === 'published')).toBe(
      true,
    );
    const one = await call(systems.shopA, { method: 'GET', path: '/products?limit=1' });
    expect((one.body as { products: Product[] }).products).toHaveLength(1);
    const bad = await call(systems.shopA, { method: 'GET', path: '/products?colour=red' });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: string }).error).toBe('invalid_request');
  });

  it('get_product answers 404 product_not_found for a product the shop does not have', async () => {
    const r = await call(systems.shopA, { method: 'GET', path: '/products/58' });
    expect(r.status).toBe(404);
    expect((r.body as { error: string }).error).toBe('product_not_found');
    expect((await call(systems.shopB, { method: 'GET', path: '/products/58' })).status).toBe(200);
  });

  it('update_product_content refuses price and stock with 422 field_not_editable and writes nothing', async () => {
    const before = productOf(systems.shopA.state(), 42);
    const ledgerBefore = systems.shopA.ledger().length;
    for (const [i, body] of [{ price: 1 }, { stock: 0 }, { title: 'ok', price: 5 }].entries()) {
      const r = await call(systems.shopA, {
        method: 'PATCH',
        path: '/products/42/content',
        body: json(body),
        key: `content-refuse-${i}`,
      });
      expect(r.status).toBe(422);
      expect((r.body as { error: string }).error).toBe('field_not_editable');
    }
    expect(systems.shopA.ledger().length).toBe(ledgerBefore);
    expect(productOf(systems.shopA.state(), 42)).toEqual(before);
  });

  it('update_product_content edits title/description only and records one ledger entry', async () => {
    const r = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ description: 'Oiled walnut, now with juice groove.' }),
      key: 'content-edit-0001',
    });
    expect(r.status).toBe(200);
    const entries = systems.shopA.ledger().filter((e) => e.idempotency_key === 'content-edit-0001');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      operation: 'update_product_content',
      target: 'product:42',
      changes: { description: { after: 'Oiled walnut, now with juice groove.' } },
      on_behalf_of: 'operator@demo.local',
    });
    // shop B's product 42 is untouched
    expect(productOf(systems.shopB.state(), 42)?.description).toBe(
      'Hand-glazed ceramic dripper for size 02 filters.',
    );
  });

  it('validates bodies: unknown fields, wrong types, invalid JSON, missing body', async () => {
    const unknown = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/42',
      body: json({ colour: 'red' }),
      key: 'bad-body-00001',
    });
    expect(unknown.status).toBe(400);
    const wrongType = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/42',
      body: json({ price: 'cheap' }),
      key: 'bad-body-00002',
    });
    expect(wrongType.status).toBe(400);
    const badJson = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/42',
      body: '{"price":',
      key: 'bad-body-00003',
    });
    expect(badJson.status).toBe(400);
    expect((badJson.body as { error: string }).error).toBe('invalid_json');
    const missing = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/42',
      key: 'bad-body-00004',
    });
    expect(missing.status).toBe(400);
    const badPath = await call(systems.shopA, { method: 'GET', path: '/products/abc' });
    expect(badPath.status).toBe(400);
    expect(systems.shopA.ledger().filter((e) => e.idempotency_key.startsWith('bad-body'))).toHaveLength(0);
  });

  it('writes need an idempotency key and an on-behalf-of subject', async () => {
    const noKey = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/7',
      body: json({ price: 13 }),
    });
    expect(noKey.status).toBe(400);
    expect((noKey.body as { error: string }).error).toBe('idempotency_key_required');
    const noSubject = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/7',
      body: json({ price: 13 }),
      key: 'no-subject-001',
      onBehalfOf: '',
    });
    expect(noSubject.status).toBe(403);
    expect((noSubject.body as { error: string }).error).toBe('subject_required');
    expect(productOf(systems.shopA.state(), 7)?.price).toBe(12.5);
  });

  it('update_product can change the price', async () => {
    const r = await call(systems.shopB, {
      method: 'PATCH',
      path: '/products/13',
      body: json({ price: 19.5 }),
      key: 'price-change-01',
    });
    expect(r.status).toBe(200);
    expect(productOf(systems.shopB.state(), 13)?.price).toBe(19.5);
    expect(systems.shopB.ledger().at(-1)).toMatchObject({
      operation: 'update_product',
      changes: { price: { before: 22, after: 19.5 } },
    });
  });

  it('a repeated idempotency key returns the stored result and writes nothing', async () => {
    const body = json({ title: 'Idempotent mug' });
    const first = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/7/content',
      body,
      key: 'idem-repeat-001',
    });
    const ledgerAfterFirst = systems.shopA.ledger().length;
    const second = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/7/content',
      body,
      key: 'idem-repeat-001',
    });
    expect(second.status).toBe(first.status);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('x-bailing-idempotent-replay')).toBe('true');
    expect(systems.shopA.ledger().length).toBe(ledgerAfterFirst);
    expect(systems.shopA.ledger().filter((e) => e.idempotency_key === 'idem-repeat-001')).toHaveLength(1);
    const logged = systems.shopA.requests().filter((q) => q.idempotency_key === 'idem-repeat-001');
    expect(logged.map((q) => q.outcome)).toEqual(['answered', 'replayed']);
  });

  it('the same key with a different request is refused with 409 and writes nothing', async () => {
    await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/13/content',
      body: json({ title: 'First' }),
      key: 'idem-conflict-1',
    });
    const r = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/13/content',
      body: json({ title: 'Second' }),
      key: 'idem-conflict-1',
    });
    expect(r.status).toBe(409);
    expect((r.body as { error: string }).error).toBe('idempotency_key_reused');
    expect(productOf(systems.shopA.state(), 13)?.title).toBe('First');
    expect(systems.shopA.ledger().filter((e) => e.idempotency_key === 'idem-conflict-1')).toHaveLength(1);
  });

  it('publish_listing publishes once; publishing again is a business rejection', async () => {
    const ok = await call(systems.shopA, {
      method: 'POST',
      path: '/products/13/publish',
      body: json({ channel: 'web' }),
      key: 'publish-0000001',
    });
    expect(ok.status).toBe(200);
    expect((ok.body as Product).status).toBe('published');
    const again = await call(systems.shopA, {
      method: 'POST',
      path: '/products/13/publish',
      key: 'publish-0000002',
    });
    expect(again.status).toBe(409);
    expect((again.body as { error: string }).error).toBe('already_published');
    expect(systems.shopA.ledger().filter((e) => e.operation === 'publish_listing')).toHaveLength(1);
  });

  it('the operations look-up reports settled keys and 404 operation_not_found otherwise', async () => {
    const found = await call(systems.shopA, {
      method: 'GET',
      path: '/.well-known/bailing/operations/publish-0000001',
    });
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({
      idempotency_key: 'publish-0000001',
      status: 'succeeded',
      http_status: 200,
      recorded_at: expect.any(String),
    });
    const rejected = await call(systems.shopA, {
      method: 'GET',
      path: '/.well-known/bailing/operations/publish-0000002',
    });
    expect(rejected.body).toMatchObject({ status: 'failed', http_status: 409 });
    const missing = await call(systems.shopA, {
      method: 'GET',
      path: '/.well-known/bailing/operations/never-sent-0001',
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'operation_not_found', message: expect.any(String) });
    // a key settled at shop A is unknown at shop B
    const elsewhere = await call(systems.shopB, {
      method: 'GET',
      path: '/.well-known/bailing/operations/publish-0000001',
    });
    expect(elsewhere.status).toBe(404);
  });

  it('inventory maps shop-a/42 and shop-b/42 to different SKUs; get_stock and adjust_stock work', async () => {
    const a = await call(systems.inventory, {
      method: 'GET',
      path: '/sku-mappings?shop=shop-a&product_id=42',
    });
    const b = await call(systems.inventory, {
      method: 'GET',
      path: '/sku-mappings?shop=shop-b&product_id=42',
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const skuA = (a.body as { sku: string }).sku;
    const skuB = (b.body as { sku: string }).sku;
    expect(skuA).not.toBe(skuB);
    const none = await call(systems.inventory, {
      method: 'GET',
      path: '/sku-mappings?shop=shop-c&product_id=42',
    });
    expect(none.status).toBe(404);
    expect((none.body as { error: string }).error).toBe('mapping_not_found');
    const missingParam = await call(systems.inventory, { method: 'GET', path: '/sku-mappings?shop=shop-a' });
    expect(missingParam.status).toBe(400);

    const stock = await call(systems.inventory, { method: 'GET', path: `/stock/${skuA}` });
    const onHand = (stock.body as { on_hand: number }).on_hand;
    const adj = await call(systems.inventory, {
      method: 'POST',
      path: `/stock/${skuA}/adjustments`,
      body: json({ delta: -2, reason: 'damaged in transit' }),
      key: 'adjust-stock-001',
    });
    expect(adj.status).toBe(200);
    expect(adj.body).toMatchObject({ sku: skuA, on_hand_before: onHand, on_hand: onHand - 2 });
    const tooMuch = await call(systems.inventory, {
      method: 'POST',
      path: `/stock/${skuA}/adjustments`,
      body: json({ delta: -1000, reason: 'oops' }),
      key: 'adjust-stock-002',
    });
    expect(tooMuch.status).toBe(409);
    const zero = await call(systems.inventory, {
      method: 'POST',
      path: `/stock/${skuA}/adjustments`,
      body: json({ delta: 0, reason: 'nothing' }),
      key: 'adjust-stock-003',
    });
    expect(zero.status).toBe(400);
    expect(systems.inventory.ledger()).toHaveLength(1);
  });

  it('publishes an OpenAPI 3.1 spec whose operations all carry x-agent-capability and compile cleanly', async () => {
    for (const system of systems.all()) {
      const doc = (await (await fetch(`${system.url}/.well-known/bailing/tools.json`)).json()) as Record<
        string,
        unknown
      >;
      expect(doc.openapi).toBe('3.1.0');
      const compiled = compileSpec(doc);
      expect(compiled.diagnostics).toEqual([]);
      const expected =
        system.systemId === 'inventory'
          ? ['adjust_stock', 'find_sku', 'get_stock']
          : ['get_product', 'list_products', 'publish_listing', 'update_product', 'update_product_content'];
      expect(compiled.operations.map((o) => o.tool).sort()).toEqual(expected);
    }
    const shop = compileSpec(
      await (await fetch(`${systems.shopA.url}/.well-known/bailing/tools.json`)).json(),
    );
    const byTool = Object.fromEntries(shop.operations.map((o) => [o.tool, o]));
    expect(byTool.publish_listing?.approval.required).toBe(true);
    expect(byTool.update_product?.risk_level).toBe('medium');
    expect(byTool.list_products?.effect).toBe('read');
    expect(byTool.update_product_content?.input_schema).toMatchObject({ additionalProperties: false });
    expect(
      Object.keys((byTool.update_product_content?.input_schema.properties ?? {}) as object).sort(),
    ).toEqual(['description', 'product_id', 'title']);
    const inv = compileSpec(
      await (await fetch(`${systems.inventory.url}/.well-known/bailing/tools.json`)).json(),
    );
    const adjust = inv.operations.find((o) => o.tool === 'adjust_stock');
    expect(adjust?.risk_level).toBe('high');
    expect(adjust?.approval.required).toBe(true);
  });

  it('spec variant v2 changes at least one declaration_revision and the system enforces it', async () => {
    const fetchCompiled = async () =>
      compileSpec(await (await fetch(`${systems.shopB.url}/.well-known/bailing/tools.json`)).json());
    const v1 = await fetchCompiled();
    systems.shopB.setSpecVariant('v2');
    try {
      const v2 = await fetchCompiled();
      const rev = (r: typeof v1, tool: string) =>
        r.operations.find((o) => o.tool === tool)?.declaration_revision;
      expect(rev(v2, 'update_product_content')).not.toBe(rev(v1, 'update_product_content'));
      expect(rev(v2, 'get_product')).toBe(rev(v1, 'get_product'));
      expect(v2.spec_revision).not.toBe(v1.spec_revision);
      const long = 'x'.repeat(3000);
      const r = await call(systems.shopB, {
        method: 'PATCH',
        path: '/products/7/content',
        body: json({ description: long }),
        key: 'v2-long-desc-01',
      });
      expect(r.status).toBe(200);
    } finally {
      systems.shopB.setSpecVariant('v1');
    }
    const long = 'y'.repeat(3000);
    const r = await call(systems.shopB, {
      method: 'PATCH',
      path: '/products/7/content',
      body: json({ description: long }),
      key: 'v1-long-desc-01',
    });
    expect(r.status).toBe(400);
  });

  it('answers 413 body_too_large over 1 MiB and writes nothing', async () => {
    const before = systems.shopA.ledger().length;
    const r = await call(systems.shopA, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ description: 'z'.repeat(1024 * 1024 + 10) }),
      key: 'too-large-00001',
    });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: 'body_too_large', message: expect.any(String) });
    expect(systems.shopA.ledger().length).toBe(before);
  });

  it('never exposes its signing secret through the control routes or the spec', async () => {
    for (const s of systems.all()) {
      for (const path of [
        '/__demo/ledger',
        '/__demo/requests',
        '/__demo/state',
        '/.well-known/bailing/tools.json',
      ]) {
        const text = await (await fetch(s.url + path)).text();
        expect(text).not.toContain(s.secret);
      }
    }
  });

  it('unknown routes answer 404 not_found in the error envelope and are logged', async () => {
    const r = await call(systems.shopA, { method: 'GET', path: '/nope' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'not_found', message: expect.any(String) });
    expect(
      systems.shopA.requests().some((q) => q.url === '/nope' && q.kind === 'other' && q.status === 404),
    ).toBe(true);
  });
});
