// Group commit keeps the dispatch fence: 16 concurrent writers against a Hub on SQLite, and the Hub
// process SIGKILLed at random points (seeded: CRASH_SEED replays a run), at least 50 times. Every
// call the Hub answered as dispatching or later is in the store after the restarts, with the state
// it was answered with (or a later one), and the business system's ledger never has a write the
// store does not know as at least `dispatching`.
import Database from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCH_SHOP, startBenchShop } from '../../bench/lib/bench-shop.js';
import { newInvocationId, token } from '../hub/helpers.js';
import { call } from './cluster.js';
import { spawnHubProcess, type HubProcess } from './hub-process.js';

const KILLS = Number(process.env.CRASH_KILLS ?? 50);
const WRITERS = 16;
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 2 ** 31);

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function random(s: number): () => number {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AT_LEAST_DISPATCHING = new Set(['dispatching', 'succeeded', 'failed', 'unknown', 'unverified']);
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('group commit under SIGKILL', () => {
  it(`${KILLS} seeded kills of a Hub serving ${WRITERS} concurrent writers: answered calls survive, the ledger never runs ahead of the store`, async () => {
    console.log(
      `group commit crash test: seed ${seed}, ${KILLS} kills (CRASH_SEED=${seed} replays this run)`,
    );
    const rnd = random(seed);
    const shop = await startBenchShop(randomBytes(24).toString('hex'));
    cleanups.push(() => shop.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-crash-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const desk = token('desk');
    const config = {
      admin_token: `admin-${randomUUID()}`,
      systems: [
        {
          system_id: BENCH_SHOP.system_id,
          name: 'Bench shop',
          base_url: shop.url,
          signing_secret: shop.secret,
        },
      ],
      clients: [{ client_id: 'desk', name: 'desk', token: desk }],
      authorizations: [
        {
          authorization_ref: BENCH_SHOP.authorization_ref,
          system_id: BENCH_SHOP.system_id,
          account: BENCH_SHOP.account,
          on_behalf_of: 'operator@demo.local',
          grant_to: ['desk'],
        },
      ],
    };
    let hub: HubProcess | null = null;
    cleanups.push(async () => void (await hub?.kill('SIGKILL')));
    const start = async () => (hub = await spawnHubProcess(dataDir, 'crash', ['--data', dataDir], config));
    const agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
    cleanups.push(() => agent.destroy());

    let h = await start();
    const decl = (
      await call(agent, `${h.url}/agent/v1/tools/search`, desk, 'POST', {
        query: 'update_product_content',
        authorization_refs: [BENCH_SHOP.authorization_ref],
      })
    ).body.declarations.find((d: { tool: string }) => d.tool === 'update_product_content');
    const runId = (
      await call(agent, `${h.url}/agent/v1/runs`, desk, 'POST', {
        agent_session_id: `s-${randomUUID()}`,
        turn_id: 't',
        authorization_ref: BENCH_SHOP.authorization_ref,
      })
    ).body.run_id as string;

    const answered = new Map<string, string>();
    let kills = 0;
    for (; kills < KILLS; kills++) {
      if (kills > 0) h = await start();
      let alive = true;
      let firstAnswer!: () => void;
      const answeredOnce = new Promise<void>((resolve) => (firstAnswer = resolve));
      const writer = async (w: number) => {
        while (alive) {
          const id = newInvocationId();
          try {
            const r = await call(agent, `${h.url}/agent/v1/invocations`, desk, 'POST', {
              invocation_id: id,
              run_id: runId,
              authorization_ref: BENCH_SHOP.authorization_ref,
              tool: 'update_product_content',
              declaration_revision: decl.declaration_revision,
              arguments: { product_id: 42, description: `kill ${kills} writer ${w}` },
              host_call_id: `w${w}`,
            });
            if (r.status === 201 || r.status === 200) {
              answered.set(id, r.body.state);
              if (AT_LEAST_DISPATCHING.has(r.body.state)) firstAnswer();
            }
          } catch {
            return; // the Hub is gone: this call was not answered
          }
        }
      };
      const writers = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
      // a random point while the 16 writers are being served (counted from this Hub's first
      // answer, so a slow start on a busy machine does not turn rounds into kills of an idle Hub)
      await Promise.race([answeredOnce, writers]); // (writers end early only if the Hub died by itself)
      await new Promise((r) => setTimeout(r, Math.floor(rnd() * 300)));
      await h.kill('SIGKILL');
      alive = false;
      await writers;
      agent.destroy();
    }
    // one more start runs startup recovery over what the last kill left; then a clean stop
    h = await start();
    expect(await h.kill('SIGTERM')).toBe(0);
    hub = null;

    const db = new Database(join(dataDir, 'hub.sqlite'), { readonly: true });
    const stateOf = db.prepare('SELECT state FROM invocations WHERE invocation_id = ?');
    const stored = (id: string) => (stateOf.get(id) as { state: string } | undefined)?.state;
    let checked = 0;
    for (const [id, state] of answered) {
      if (!AT_LEAST_DISPATCHING.has(state)) continue;
      checked += 1;
      const now = stored(id);
      expect(now, `answered ${state}, not in the store: ${id}`).toBeDefined();
      expect(AT_LEAST_DISPATCHING.has(now!), `${id}: answered ${state}, stored ${now}`).toBe(true);
      if (state === 'succeeded' || state === 'failed') expect(now).toBe(state);
    }
    const ledger = shop.ledger();
    const keys = ledger.map((e) => e.idempotency_key);
    expect(new Set(keys).size).toBe(keys.length); // one id, one dispatch
    for (const key of keys) {
      const now = stored(key);
      expect(
        now !== undefined && AT_LEAST_DISPATCHING.has(now),
        `ledger write ${key} is ${now ?? 'unknown to the store'}`,
      ).toBe(true);
    }
    db.close();
    console.log(
      `group commit crash test: ${kills} kills, ${checked} answered calls checked, ${ledger.length} business writes`,
    );
    expect(kills).toBeGreaterThanOrEqual(50);
    expect(checked).toBeGreaterThanOrEqual(KILLS); // at least one answered call per round
    expect(ledger.length).toBeGreaterThanOrEqual(checked);
  }, 600_000);
});
