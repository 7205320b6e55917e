import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startShop, type DemoSystemHandle } from '../../demo/index.js';
import { buildRequest, sendSigned } from '../../src-hub/dispatch/index.js';
import { lookupOperation } from '../../src-hub/reconcile/lookup.js';
import { SUBJECT, call, json, waitFor } from './helpers.js';

const contentOp = {
  method: 'PATCH',
  path_template: '/products/{product_id}/content',
  path_params: ['product_id'],
  query_params: [],
  body_params: ['title', 'description'],
  has_body: true,
  body_required: true,
};

describe('demo fault injection', () => {
  let shop: DemoSystemHandle;
  beforeEach(async () => {
    shop = await startShop({
      systemId: 'shop-a',
      name: 'Shop A',
      variant: 'A',
      secret: 'fault-test-secret-000001',
    });
  });
  afterEach(() => shop.close());

  const send = (key: string, title: string, timeoutMs = 5000, signal?: AbortSignal) =>
    sendSigned({
      baseUrl: shop.url,
      systemId: shop.systemId,
      allowInsecureHttp: false,
      secret: shop.secret,
      request: buildRequest(contentOp, { product_id: 42, title }),
      signedPath: 'operation',
      onBehalfOf: SUBJECT,
      jobId: 'run-fault',
      idempotencyKey: key,
      timeoutMs,
      signal,
    });
  const lookup = (key: string) =>
    lookupOperation({
      baseUrl: shop.url,
      systemId: shop.systemId,
      allowInsecureHttp: false,
      secret: shop.secret,
      signedPath: 'operation',
      idempotencyKey: key,
      onBehalfOf: SUBJECT,
      jobId: 'run-fault',
      timeoutMs: 5000,
    });
  const title42 = () =>
    (shop.state() as { products: { product_id: number; title: string }[] }).products.find(
      (p) => p.product_id === 42,
    )?.title;

  it('drop_after_commit: the client sees connection_lost, the ledger has the write, the look-up says succeeded', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit', times: 'once' });
    const r = await send('drop-commit-0001', 'Dropped but done');
    expect(r).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
    expect(shop.ledger().filter((e) => e.idempotency_key === 'drop-commit-0001')).toHaveLength(1);
    expect(title42()).toBe('Dropped but done');
    const evidence = await lookup('drop-commit-0001');
    expect(evidence).toMatchObject({ outcome: 'succeeded', http_status: 200 });
    expect(shop.requests().find((q) => q.idempotency_key === 'drop-commit-0001')).toMatchObject({
      outcome: 'dropped',
      committed: true,
      status: null,
    });
    // once: the next call is normal
    const next = await send('drop-commit-0002', 'Normal again');
    expect(next).toMatchObject({ kind: 'response', status: 200 });
  });

  it('hang_after_commit: the client times out and the write is committed', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const r = await send('hang-commit-0001', 'Hung but done', 300);
    expect(r).toMatchObject({ kind: 'no_response', reason: 'timeout' });
    // The commit happens on receipt; on a loaded machine the client's deadline may fire first.
    await waitFor(() => shop.ledger().length === 1, 'the hung write to commit');
    expect(shop.ledger().filter((e) => e.idempotency_key === 'hang-commit-0001')).toHaveLength(1);
    expect((await lookup('hang-commit-0001')).outcome).toBe('succeeded');
    expect(shop.requests().find((q) => q.idempotency_key === 'hang-commit-0001')?.outcome).toBe('hung');
  });

  it('hang_after_commit with the client still waiting: close() ends the hung request', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const pending = send('hang-close-00001', 'Hung', 30_000);
    await waitFor(() => shop.ledger().length === 1, 'the hung write to commit');
    await shop.close();
    const r = await pending;
    expect(r).toMatchObject({ kind: 'no_response', reason: 'connection_lost' });
  });

  it('delay: nothing is committed during the delay, then the call proceeds normally', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 500 });
    const r = await send('delay-commit-001', 'Delayed', 100);
    expect(r).toMatchObject({ kind: 'no_response', reason: 'timeout' });
    expect(shop.ledger()).toHaveLength(0);
    await waitFor(() => shop.ledger().length === 1, 'the delayed write to commit');
    shop.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 50 });
    const ok = await send('delay-commit-002', 'Delayed OK');
    expect(ok).toMatchObject({ kind: 'response', status: 200 });
  });

  it('fail_before_commit: 500, nothing written, the key is not settled (look-up not_found)', async () => {
    const before = title42();
    shop.faults.set({ operation: 'update_product_content', kind: 'fail_before_commit' });
    const r = await send('fail-before-0001', 'Never written');
    expect(r).toMatchObject({ kind: 'response', status: 500, body: { error: 'internal_error' } });
    expect(shop.ledger()).toHaveLength(0);
    expect(title42()).toBe(before);
    expect(await lookup('fail-before-0001')).toEqual({ outcome: 'not_found' });
  });

  it('fail_after_commit: 500 to the client, the write is committed, the look-up says succeeded', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'fail_after_commit' });
    const r = await send('fail-after-00001', 'Written anyway');
    expect(r).toMatchObject({ kind: 'response', status: 500 });
    expect(shop.ledger()).toHaveLength(1);
    expect(title42()).toBe('Written anyway');
    expect(await lookup('fail-after-00001')).toMatchObject({
      outcome: 'succeeded',
      http_status: 200,
      result: { title: 'Written anyway' },
    });
  });

  it('reject: the configured 4xx and code, nothing written, the look-up says failed', async () => {
    shop.faults.set({
      operation: 'update_product_content',
      kind: 'reject',
      status: 409,
      code: 'product_locked',
    });
    const r = await send('reject-00000001', 'Rejected');
    expect(r).toMatchObject({ kind: 'response', status: 409, body: { error: 'product_locked' } });
    expect(shop.ledger()).toHaveLength(0);
    expect(await lookup('reject-00000001')).toMatchObject({ outcome: 'failed', http_status: 409 });
  });

  it('lookup_unavailable: the look-up answers 503 (unavailable), once', async () => {
    await send('lookup-down-0001', 'Committed');
    shop.faults.set({ operation: 'update_product_content', kind: 'lookup_unavailable' });
    const down = await lookup('lookup-down-0001');
    expect(down.outcome).toBe('unavailable');
    const raw = await call(shop, { method: 'GET', path: '/.well-known/bailing/operations/lookup-down-0001' });
    expect(raw.status).toBe(200);
  });

  it("times 'always' keeps the fault until cleared; '*' matches every operation", async () => {
    shop.faults.set({ operation: '*', kind: 'reject', status: 429, code: 'slow_down', times: 'always' });
    expect(await send('always-00000001', 'a')).toMatchObject({
      kind: 'response',
      status: 429,
      body: { error: 'slow_down' },
    });
    expect(await send('always-00000002', 'b')).toMatchObject({ kind: 'response', status: 429 });
    const read = await call(shop, { method: 'GET', path: '/products/7' });
    expect(read.status).toBe(429);
    expect(shop.faults.list()).toHaveLength(1);
    shop.faults.clear();
    expect(await send('always-00000003', 'c')).toMatchObject({ kind: 'response', status: 200 });
    expect(shop.ledger()).toHaveLength(1);
  });

  it('a fault is not consumed by a request that fails its signature', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'fail_before_commit' });
    const unsigned = await call(shop, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ title: 'x' }),
      key: 'unsigned-00001',
      secret: 'wrong-secret-0000000000',
    });
    expect(unsigned.status).toBe(401);
    expect(await send('consumed-000001', 'x')).toMatchObject({ status: 500 });
  });

  it('a replayed key after drop_after_commit returns the stored result and writes nothing more', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    await send('replay-drop-0001', 'Once');
    const again = await send('replay-drop-0001', 'Once');
    expect(again).toMatchObject({ kind: 'response', status: 200, body: { title: 'Once' } });
    expect(shop.ledger()).toHaveLength(1);
  });

  it('two requests with the same key racing through a delay write exactly once', async () => {
    shop.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 200 });
    const [first, second] = await Promise.all([
      send('race-same-key-01', 'Raced'),
      send('race-same-key-01', 'Raced'),
    ]);
    expect(first).toMatchObject({ kind: 'response', status: 200 });
    expect(second).toMatchObject({ kind: 'response', status: 200 });
    expect(shop.ledger()).toHaveLength(1);
    expect(
      shop
        .requests()
        .filter((q) => q.idempotency_key === 'race-same-key-01')
        .map((q) => q.outcome)
        .sort(),
    ).toEqual(['answered', 'replayed']);
  });

  it('tracks concurrent in-progress operation requests (current and max observed)', async () => {
    shop.faults.set({ operation: 'get_product', kind: 'hang_after_commit', times: 'always' });
    const controller = new AbortController();
    const calls = Array.from({ length: 7 }, () =>
      sendSigned({
        baseUrl: shop.url,
        systemId: shop.systemId,
        allowInsecureHttp: false,
        secret: shop.secret,
        request: { method: 'GET', pathWithQuery: '/products/42', body: '' },
        signedPath: 'operation',
        onBehalfOf: SUBJECT,
        jobId: 'run-conc',
        idempotencyKey: null,
        timeoutMs: 30_000,
        signal: controller.signal,
      }),
    );
    await waitFor(() => shop.concurrency().current === 7, 'seven requests in progress');
    expect(shop.concurrency().max_observed).toBe(7);
    expect(Math.max(...shop.requests().map((q) => q.in_flight_at_start))).toBe(7);
    controller.abort();
    const results = await Promise.all(calls);
    expect(results.every((r) => r.kind === 'no_response' && r.reason === 'aborted')).toBe(true);
    await waitFor(() => shop.concurrency().current === 0, 'requests to finish');
    expect(shop.concurrency().max_observed).toBe(7);
  });
});
