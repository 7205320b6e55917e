/**
 * The embedded default keeps the demo systems' business data in the data folder (`demo/`): a write
 * the shop acknowledged is there after the desk restarts; Settings' getDemoData / resetDemoData
 * calls (strict payloads, through the real call router) show where and put products and stock back
 * to the seed; a damaged file never keeps the desk from opening — it is reported with its code and
 * left as it is until the operator resets, which keeps it aside. A remote launch has no demo data.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeDesk, type ComposedDesk } from '../../src-main/embedded/composition-root.js';
import { createKeychain } from '../../src-main/keychain/index.js';
import type { CallName, CallResult } from '../../src-shared/ipc/contract.js';
import { seedProducts } from '../../demo/shop/seed.js';
import { call, json } from '../demo/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'bailing-demo-data-'));
const dataDir = join(dir, 'data');
const demoDir = join(dataDir, 'demo');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(log: string[] = [], launchHub?: { url: string; token: string }): Promise<ComposedDesk> {
  const keychain = await createKeychain({
    loadBackend: async () => {
      throw new Error('keytar not used in this test');
    },
    sessionOnlyFallback: true,
  });
  return composeDesk({
    dataDir: launchHub ? join(dir, 'remote') : dataDir,
    version: '0.0.0-test',
    keychain,
    env: {},
    log: (m) => log.push(m),
    ...(launchHub ? { launchHub } : {}),
  });
}

const ctx = { transport: 'browser' as const };
async function rpc<K extends CallName>(
  desk: ComposedDesk,
  name: K,
  payload: unknown,
): Promise<CallResult<K>> {
  return (await desk.router.call(name, payload, ctx)) as CallResult<K>;
}
const description = (desk: ComposedDesk, id: number) =>
  (
    desk.local?.demo.shopA.state() as { products: { product_id: number; description: string }[] }
  ).products.find((p) => p.product_id === id)?.description;
const seedDescription = seedProducts('A').find((p) => p.product_id === 42)?.description;

describe('demo data of the embedded default', () => {
  it('lives in the data folder, survives a restart of the desk, and Reset demo data puts it back to the seed', async () => {
    let desk = await start();
    try {
      const view = await rpc(desk, 'getDemoData', {});
      expect(view).toEqual({
        ok: true,
        value: {
          available: true,
          dir: demoDir,
          systems: ['shop-a', 'shop-b', 'inventory'].map((id) =>
            expect.objectContaining({ system_id: id, state: 'ok', detail: null, reset_at: null }),
          ),
        },
      });
      const shop = desk.local!.demo.shopA;
      const w = await call(shop, {
        method: 'PATCH',
        path: '/products/42/content',
        key: 'desk-restart-key1',
        body: json({ description: 'Written before the desk restarted.' }),
      });
      expect(w.status).toBe(200);
    } finally {
      await desk.close();
    }
    expect(
      readdirSync(demoDir)
        .filter((f) => f.endsWith('.sqlite'))
        .sort(),
    ).toEqual(['inventory.sqlite', 'shop-a.sqlite', 'shop-b.sqlite']);

    desk = await start();
    try {
      expect(description(desk, 42)).toBe('Written before the desk restarted.');
      expect(desk.local!.demo.shopA.ledger().map((e) => e.idempotency_key)).toEqual(['desk-restart-key1']);

      // Strict payload: the confirmation is part of it.
      for (const bad of [{}, { confirm: false }, { confirm: true, all: true }]) {
        const refused = await rpc(desk, 'resetDemoData', bad);
        expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
      }
      expect(description(desk, 42)).toBe('Written before the desk restarted.');

      const reset = await rpc(desk, 'resetDemoData', { confirm: true });
      expect(reset.ok).toBe(true);
      if (!reset.ok) return;
      expect(reset.value).toMatchObject({
        systems: [
          { system_id: 'shop-a', name: 'Shop A (homeware)', reset: true, state: 'ok', set_aside: null },
          { system_id: 'shop-b', reset: true, state: 'ok' },
          { system_id: 'inventory', reset: true, state: 'ok' },
        ],
      });
      expect(description(desk, 42)).toBe(seedDescription);
      // The write history is kept.
      expect(desk.local!.demo.shopA.ledger()).toHaveLength(1);
    } finally {
      await desk.close();
    }
  });

  it('a damaged data file: the desk opens, the system is reported with its code, the file untouched until a reset keeps it aside', async () => {
    const file = join(demoDir, 'shop-b.sqlite');
    const garbage = Buffer.from('not a database: the operator’s data must not be overwritten\n'.repeat(100));
    for (const s of ['-wal', '-shm']) rmSync(file + s, { force: true });
    writeFileSync(file, garbage);
    const log: string[] = [];
    const desk = await start(log);
    try {
      expect(log.some((l) => l.startsWith('Demo data of shop-b cannot be used (corrupt)'))).toBe(true);
      const view = await rpc(desk, 'getDemoData', {});
      expect(view).toMatchObject({
        ok: true,
        value: {
          systems: [
            { system_id: 'shop-a', state: 'ok' },
            { system_id: 'shop-b', state: 'corrupt', detail: 'SQLITE_NOTADB' },
            { system_id: 'inventory', state: 'ok' },
          ],
        },
      });
      expect(readFileSync(file).equals(garbage)).toBe(true);
      // The other systems and the desk work.
      expect(desk.local!.demo.shopA.dataStatus().state).toBe('ok');

      const reset = await rpc(desk, 'resetDemoData', { confirm: true });
      expect(reset.ok).toBe(true);
      if (!reset.ok) return;
      const b = reset.value.systems.find((s) => s.system_id === 'shop-b');
      expect(b).toMatchObject({ reset: true, state: 'ok' });
      expect(b?.set_aside).toMatch(/^shop-b\.sqlite\.set-aside-/);
      expect(readFileSync(join(demoDir, b?.set_aside ?? '')).equals(garbage)).toBe(true);
      expect(existsSync(file)).toBe(true);
      expect(desk.local!.demo.shopB.dataStatus().state).toBe('ok');
    } finally {
      await desk.close();
    }
  });

  it('a remote launch has no demo data: the view says so and a reset is refused with its code', async () => {
    const desk = await start([], { url: 'http://127.0.0.1:9', token: 'bdc_remote.test-token-value' });
    try {
      expect(await rpc(desk, 'getDemoData', {})).toEqual({
        ok: true,
        value: { available: false, dir: null, systems: [] },
      });
      expect(await rpc(desk, 'resetDemoData', { confirm: true })).toMatchObject({
        ok: false,
        error: { code: 'demo_data_not_local' },
      });
    } finally {
      await desk.close();
    }
  });
});
