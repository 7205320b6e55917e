/**
 * Signature v2 against an attacker on the network path: a write the Hub's dispatch code really
 * sent is captured by a forwarding proxy, then sent again to the demo shop with each trick v1 let
 * through (a new idempotency key, a moved on-behalf-of / job id boundary, another system's
 * audience, the same nonce). Every one is refused and the shop's ledger keeps its one entry.
 * A request with only BailingHub's v1 signature is refused by the demo systems and still accepted
 * by a system built for BailingHub.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShop, type DemoSystemHandle } from '../../demo/index.js';
import { startBailingHubErp, type ErpHandle } from '../../demo/bailinghub-erp/index.js';
import { sendSigned } from '../../src-hub/dispatch/index.js';
import { signatureV2Headers } from '../../src-hub/dispatch/sign-v2.js';
import { computeSignature, SIGNATURE_HEADERS } from '../../src-shared/signing.js';
import { SIGNATURE_V2_HEADERS } from '../../src-shared/signing-v2.js';
import { call, json } from './helpers.js';

const SHARED_SECRET = 'replay-test-shared-secret-01';

interface Captured {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A loopback proxy that forwards to `target` and keeps every request it saw, byte for byte. */
async function capturingProxy(
  target: string,
): Promise<{ url: string; seen: Captured[]; close(): Promise<void> }> {
  const seen: Captured[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
      seen.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers, body });
      void fetch(target + (req.url ?? '/'), {
        method: req.method,
        headers,
        body: body === '' ? undefined : body,
      }).then(async (r) =>
        res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function replay(to: string, c: Captured, change: Partial<Captured> = {}) {
  const r = await fetch(to + (change.url ?? c.url), {
    method: change.method ?? c.method,
    headers: change.headers ?? c.headers,
    body: (change.body ?? c.body) === '' ? undefined : (change.body ?? c.body),
  });
  return { status: r.status, body: (await r.json()) as { error?: string } };
}

describe('signature v2: a captured write cannot be sent again', () => {
  let shop: DemoSystemHandle;
  let otherShop: DemoSystemHandle;
  let proxy: Awaited<ReturnType<typeof capturingProxy>>;
  let captured: Captured;

  beforeAll(async () => {
    shop = await startShop({ systemId: 'shop-a', name: 'Shop A', variant: 'A', secret: SHARED_SECRET });
    // the same secret on purpose: only the audience tells the two systems apart
    otherShop = await startShop({ systemId: 'shop-b', name: 'Shop B', variant: 'A', secret: SHARED_SECRET });
    proxy = await capturingProxy(shop.url);
    const sent = await sendSigned({
      baseUrl: proxy.url,
      systemId: 'shop-a',
      allowInsecureHttp: false,
      secret: SHARED_SECRET,
      request: {
        method: 'PATCH',
        pathWithQuery: '/products/42/content',
        body: json({ title: 'Captured title' }),
      },
      signedPath: 'operation',
      onBehalfOf: 'ops@corp.example',
      jobId: 'run_x',
      idempotencyKey: 'inv_captured_0001',
      timeoutMs: 5000,
    });
    expect(sent).toMatchObject({ kind: 'response', status: 200 });
    expect(proxy.seen).toHaveLength(1);
    captured = proxy.seen[0]!;
    expect(shop.ledger()).toHaveLength(1);
  });
  afterAll(async () => {
    await proxy.close();
    await shop.close();
    await otherShop.close();
  });

  const ledgerStaysOne = () => {
    expect(shop.ledger()).toHaveLength(1);
    expect(shop.ledger()[0]).toMatchObject({
      idempotency_key: 'inv_captured_0001',
      on_behalf_of: 'ops@corp.example',
      job_id: 'run_x',
    });
  };

  it('with a new idempotency key: 401 signature_invalid, the ledger keeps one entry', async () => {
    for (const key of ['inv_replayed_0002', 'inv_replayed_0003', 'inv_replayed_0004']) {
      const r = await replay(shop.url, captured, {
        headers: { ...captured.headers, [SIGNATURE_HEADERS.idempotencyKey]: key },
      });
      expect(r).toEqual({ status: 401, body: { error: 'signature_invalid', message: expect.any(String) } });
    }
    ledgerStaysOne();
  });

  it('with the on-behalf-of / job id boundary moved (ops@corp + example.run_x): refused, no forged actor', async () => {
    // v1 signs `….ops@corp.example.run_x` either way; v2 signs each field with its length
    const v1Before = computeSignature({
      secret: SHARED_SECRET,
      timestamp: Number(captured.headers[SIGNATURE_HEADERS.timestamp]),
      method: 'PATCH',
      pathWithQuery: '/products/42/content',
      body: captured.body,
      onBehalfOf: 'ops@corp',
      jobId: 'example.run_x',
    });
    expect(v1Before).toBe(captured.headers[SIGNATURE_HEADERS.signature]); // the v1 forgery would verify
    const r = await replay(shop.url, captured, {
      headers: {
        ...captured.headers,
        [SIGNATURE_HEADERS.onBehalfOf]: 'ops@corp',
        [SIGNATURE_HEADERS.jobId]: 'example.run_x',
        [SIGNATURE_HEADERS.idempotencyKey]: 'inv_forged_actor_01',
      },
    });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('signature_invalid');
    ledgerStaysOne();
    expect(shop.ledger().some((e) => e.on_behalf_of === 'ops@corp')).toBe(false);
  });

  it('to another system sharing the secret: audience_mismatch there; its audience header swapped: signature_invalid', async () => {
    const there = await replay(otherShop.url, captured);
    expect(there).toEqual({ status: 401, body: { error: 'audience_mismatch', message: expect.any(String) } });
    const swapped = await replay(otherShop.url, captured, {
      headers: { ...captured.headers, [SIGNATURE_V2_HEADERS.audience]: 'shop-b' },
    });
    expect(swapped.body.error).toBe('signature_invalid');
    expect(otherShop.ledger()).toHaveLength(0);
    ledgerStaysOne();
  });

  it('exactly as captured (same nonce) within the window: 401 nonce_reused, not even an idempotent replay', async () => {
    const r = await replay(shop.url, captured);
    expect(r).toEqual({ status: 401, body: { error: 'nonce_reused', message: expect.any(String) } });
    ledgerStaysOne();
  });

  it('a correctly signed new request that reuses a nonce seen within the window: nonce_reused', async () => {
    const nonce = captured.headers[SIGNATURE_V2_HEADERS.nonce]!;
    const r = await call(shop, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ title: 'Same nonce' }),
      key: 'inv_same_nonce_0001',
      onBehalfOf: 'ops@corp.example',
      nonce,
    });
    expect(r.status).toBe(401);
    expect((r.body as { error: string }).error).toBe('nonce_reused');
    const fresh = await call(shop, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ title: 'Fresh nonce' }),
      key: 'inv_fresh_nonce_001',
      onBehalfOf: 'ops@corp.example',
    });
    expect(fresh.status).toBe(200);
    expect(shop.ledger()).toHaveLength(2);
  });

  it('a request with only the v1 signature is refused by the demo systems (signature_missing), nothing written', async () => {
    const before = shop.ledger().length;
    const r = await call(shop, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ title: 'v1 only' }),
      key: 'inv_v1_only_00001',
      v1Only: true,
    });
    expect(r.status).toBe(401);
    expect((r.body as { error: string }).error).toBe('signature_missing');
    expect(shop.ledger()).toHaveLength(before);
  });

  it('the v2 headers are exactly what the docs say (audience is the system id, nonce 32 hex digits)', () => {
    expect(captured.headers[SIGNATURE_V2_HEADERS.audience]).toBe('shop-a');
    expect(captured.headers[SIGNATURE_V2_HEADERS.nonce]).toMatch(/^[0-9a-f]{32}$/);
    expect(captured.headers[SIGNATURE_V2_HEADERS.timestamp]).toBe(
      captured.headers[SIGNATURE_HEADERS.timestamp],
    );
    const again = signatureV2Headers({
      secret: SHARED_SECRET,
      audience: 'shop-a',
      method: 'PATCH',
      pathWithQuery: '/products/42/content',
      body: captured.body,
      onBehalfOf: 'ops@corp.example',
      jobId: 'run_x',
      idempotencyKey: 'inv_captured_0001',
      timestamp: Number(captured.headers[SIGNATURE_V2_HEADERS.timestamp]),
      nonce: captured.headers[SIGNATURE_V2_HEADERS.nonce]!,
    });
    expect(again[SIGNATURE_V2_HEADERS.signature]).toBe(captured.headers[SIGNATURE_V2_HEADERS.signature]);
  });
});

describe('a system built for BailingHub (v1 only)', () => {
  let erp: ErpHandle;
  beforeAll(async () => {
    erp = await startBailingHubErp({ secret: SHARED_SECRET });
  });
  afterAll(() => erp.close());

  it('accepts a request carrying only the v1 signature', async () => {
    const r = await call(
      { url: erp.url, secret: erp.secret, systemId: 'erp' },
      { method: 'GET', path: '/api/products/P-100', v1Only: true },
    );
    expect(r.status).toBe(200);
    expect(erp.requests().at(-1)).toMatchObject({ auth: 'valid' });
  });
});
