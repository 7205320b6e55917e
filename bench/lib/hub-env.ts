/**
 * A benchmark environment: the demo systems, the bench shop (shop A without a declared rate limit,
 * see bench-shop.ts) and an in-process Hub on a temp data dir. Benchmarks call the bench shop.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CONFIG, startDemoSystems, type DemoSystems } from '../../demo/index.js';
import type { Declaration } from '../../src-shared/hub-api.js';
import { createHub, type Hub } from '../../src-hub/index.js';
import type { DemoSystemHandle } from '../../demo/types.js';
import { BENCH_SHOP, startBenchShop } from './bench-shop.js';

export interface BenchHub {
  demo: DemoSystems;
  /** Shop A's data and operations with no declared rate limit: system `bench-shop`, authorization `auth-bench-shop`. */
  benchShop: DemoSystemHandle;
  hub: Hub;
  token: string;
  post(path: string, body: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  declaration(authRef: string, tool: string): Promise<Declaration>;
  /** Opens a run in a new agent session (a session that makes task-bound calls is enrolled in that task). */
  run(authRef: string, sessionId?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startBenchHub(): Promise<BenchHub> {
  const demo = await startDemoSystems();
  const benchShop = await startBenchShop(randomBytes(24).toString('hex'));
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-bench-'));
  const token = `bdc_bench.${randomBytes(24).toString('base64url')}`;
  const handles = { 'shop-a': demo.shopA, 'shop-b': demo.shopB, inventory: demo.inventory } as Record<
    string,
    { url: string; secret: string }
  >;
  const hub = await createHub({
    dataDir,
    config: {
      systems: [
        ...DEMO_CONFIG.systems.map((s) => ({
          system_id: s.system_id,
          name: s.name,
          base_url: handles[s.system_id]!.url,
          signing_secret: handles[s.system_id]!.secret,
        })),
        {
          system_id: BENCH_SHOP.system_id,
          name: 'Bench shop',
          base_url: benchShop.url,
          signing_secret: benchShop.secret,
        },
      ],
      clients: [{ client_id: 'bench', name: 'bench', token }],
      // the benches measure the Hub's own cost: per-client request rate limits would only refuse
      rate_limits: { agent: null, admin: null },
      authorizations: [
        ...DEMO_CONFIG.systems.map((s) => ({
          authorization_ref: s.authorization_ref,
          system_id: s.system_id,
          account: s.account,
          on_behalf_of: DEMO_CONFIG.on_behalf_of,
          grant_to: ['bench'],
        })),
        {
          authorization_ref: BENCH_SHOP.authorization_ref,
          system_id: BENCH_SHOP.system_id,
          account: BENCH_SHOP.account,
          on_behalf_of: DEMO_CONFIG.on_behalf_of,
          grant_to: ['bench'],
        },
      ],
    },
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(hub.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    demo,
    benchShop,
    hub,
    token,
    post,
    async declaration(authRef, tool) {
      const r = await post('/agent/v1/tools/search', {
        query: tool,
        authorization_refs: [authRef],
        limit: 50,
      });
      const d = (r.body.declarations as Declaration[]).find((x) => x.tool === tool);
      if (!d) throw new Error(`no declaration ${tool}`);
      return d;
    },
    async run(authRef, sessionId = `bench-${randomUUID()}`) {
      return (
        await post('/agent/v1/runs', {
          agent_session_id: sessionId,
          turn_id: randomUUID(),
          authorization_ref: authRef,
        })
      ).body.run_id;
    },
    async close() {
      await hub.close();
      await demo.close();
      await benchShop.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
