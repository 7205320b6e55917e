/**
 * npm run bench:hub-ab — two versions of the Hub's code (two checkouts) on SQLite with group commit,
 * compared at the same moments of the machine: governed writes at concurrency 1 go to the two Hubs
 * alternately, call by call, so a drift of the machine's speed (2x within the hour on the project's
 * VM) falls on both alike; at concurrency 16 each Hub runs in turn, the order alternating by round.
 *
 *   BENCH_AB=/path/to/checkout-a,/path/to/checkout-b npm run bench:hub-ab
 *
 * BENCH_AB_CALL picks the call: `write` (default: update_product_content, no task), `read`
 * (get_product), `task-write` or `task-read` (the same, bound to a task of each Hub with a budget
 * that does not run out, from a session of their own: each call takes and releases a permit).
 *
 * BENCH_AB_STORE=postgres runs each checkout's Hub as one instance on a database of its own in one
 * private PostgreSQL cluster (started and stopped here) instead of SQLite.
 *
 * BENCH_HUB_CPUS=LIST (e.g. `1`) runs both Hubs on those CPUs only (taskset; bench/lib/hub-processes.ts).
 *
 * Each checkout needs its node_modules. BENCH_ROUNDS (default 10), BENCH_CALLS (calls per Hub per
 * round at concurrency 1, default 200) and BENCH_CALLS16 (per Hub per round at 16, default 400; 0
 * skips it) size the run. It prints, per Hub, the write p50 at 1 (all rounds' calls together, and
 * per round with the ratio B/A of each round), the direct call's p50 measured each round, and the
 * Hub's CPU per write by thread at 1 and at 16 (Linux /proc, 10 ms ticks). Figures, never asserted.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startPrivatePostgres, type PrivatePostgres } from '../scripts/private-postgres.js';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { BENCH_SHOP, benchShopOperations, startBenchShop } from './lib/bench-shop.js';
import { cpuSpent, hubCpusLabel, startHubs, type BenchHubs, type HubCpuSpent } from './lib/hub-processes.js';
import { benchIdsLabel } from './lib/invocation-ids.js';
import { startLoadGenerator } from './lib/loadgen-client.js';
import type { HubInvoke } from './lib/loadgen.js';
import { fmt, heading, table } from './lib/print.js';
import { percentile } from './lib/stats.js';

const roots = (process.env.BENCH_AB ?? '')
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean)
  .map((r) => resolve(r));
if (roots.length !== 2) {
  console.error('usage: BENCH_AB=/path/to/checkout-a,/path/to/checkout-b npm run bench:hub-ab');
  process.exit(2);
}
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const CALLS16 = Number(process.env.BENCH_CALLS16 ?? 400);
const CALL = process.env.BENCH_AB_CALL ?? 'write';
if (!['write', 'read', 'task-write', 'task-read'].includes(CALL)) {
  console.error('BENCH_AB_CALL must be write, read, task-write or task-read');
  process.exit(2);
}
const STORE = process.env.BENCH_AB_STORE ?? 'sqlite';
if (!['sqlite', 'postgres'].includes(STORE)) {
  console.error('BENCH_AB_STORE must be sqlite or postgres');
  process.exit(2);
}
const STORE_LABEL = STORE === 'postgres' ? 'PostgreSQL, 1 instance' : 'SQLite, group commit';
const WRITE = !CALL.endsWith('read');
const WITH_TASK = CALL.startsWith('task-');
const TOOL = WRITE ? 'update_product_content' : 'get_product';

async function benchTask(hubs: BenchHubs): Promise<string> {
  const r = await hubs.post('/agent/v1/tasks', {
    title: 'bench-ab',
    authorizations: [{ authorization_ref: BENCH_SHOP.authorization_ref, tools: [TOOL] }],
    write_budget: 1_000_000,
    in_flight_limit: 10_000,
  });
  if (r.status !== 201) throw new Error(`task: ${JSON.stringify(r.body)}`);
  return r.body.task_id as string;
}

const median = (v: number[]) =>
  percentile(
    [...v].sort((a, b) => a - b),
    50,
  );
const list = (v: number[], digits = 2) => v.map((x) => fmt(x, digits)).join(' ');
const loads = () =>
  loadavg()
    .map((v) => v.toFixed(2))
    .join(' ');

interface Side {
  root: string;
  hubs: BenchHubs;
  invoke: HubInvoke;
  samples1: number[];
  p50PerRound: number[];
  cpu1: HubCpuSpent[];
  cpu16: HubCpuSpent[];
  perS16: number[];
}

const loadAtStart = loads();
const shop = await startBenchShop(randomBytes(24).toString('hex'));
const loadgen = await startLoadGenerator();
const sides: Side[] = [];
let cluster: PrivatePostgres | null = null;
try {
  if (STORE === 'postgres') {
    const started = await startPrivatePostgres();
    if (!started.ok) throw new Error(`PostgreSQL did not start: ${started.reason}`);
    cluster = started.cluster;
  }
  let databases = 0;
  const where = async () => {
    if (!cluster) return { sqlite: true as const };
    const name = `bench_ab_${++databases}`;
    const c = new pg.Client({ connectionString: cluster.adminUrl });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    return { postgresUrl: cluster.urlFor(name), instances: 1 };
  };
  const operation = (await benchShopOperations(shop)).find((o) => o.tool === TOOL);
  if (!operation) throw new Error(`bench shop has no ${TOOL}`);
  const direct = {
    kind: 'direct' as const,
    url: shop.url,
    systemId: shop.systemId,
    secret: shop.secret,
    operation,
    write: WRITE,
  };
  for (const root of roots) {
    const hubs = await startHubs(`${STORE_LABEL} (${root})`, shop, await where(), root);
    const d = await hubs.declaration(TOOL);
    const invoke: HubInvoke = {
      run_id: await hubs.run('bench-ab'),
      authorization_ref: BENCH_SHOP.authorization_ref,
      tool: TOOL,
      declaration_revision: d.declaration_revision,
      ...(WITH_TASK ? { task_id: await benchTask(hubs) } : {}),
      write: WRITE,
    };
    sides.push({ root, hubs, invoke, samples1: [], p50PerRound: [], cpu1: [], cpu16: [], perS16: [] });
  }
  const alternating = (calls: number) => ({
    kind: 'hubs-alternating' as const,
    hubs: sides.map((s) => ({ url: s.hubs.urls[0]!, token: s.hubs.token, invoke: s.invoke })),
    calls,
  });
  const at16 = (s: Side, calls: number) => ({
    kind: 'hub' as const,
    urls: s.hubs.urls,
    token: s.hubs.token,
    calls,
    concurrency: 16,
    invoke: s.invoke,
  });
  // warm-up: the direct call, then both Hubs at both concurrencies
  await loadgen.run({ ...direct, calls: 300, concurrency: 4 });
  await loadgen.run(alternating(400));
  for (const s of sides) await loadgen.run(at16(s, 400));

  const directP50: number[] = [];
  const problems: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    directP50.push((await loadgen.run({ ...direct, calls: CALLS, concurrency: 1 })).summary.p50_ms);
    const before = sides.map((s) => s.hubs.cpuMs());
    const r = await loadgen.run(alternating(CALLS * sides.length));
    const after = sides.map((s) => s.hubs.cpuMs());
    if ((r.states.succeeded ?? 0) !== CALLS * sides.length)
      problems.push(`round ${round + 1} at 1: ${JSON.stringify(r.states)}`);
    sides.forEach((s, i) => {
      const mine = r.samples.filter((_, k) => k % sides.length === i);
      s.samples1.push(...mine);
      s.p50PerRound.push(median(mine));
      const b = before[i];
      const a = after[i];
      if (b && a) s.cpu1.push(cpuSpent(b, a, CALLS));
    });
    if (CALLS16 > 0) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      for (const s of order) {
        const b = s.hubs.cpuMs();
        const r16 = await loadgen.run(at16(s, CALLS16));
        const a = s.hubs.cpuMs();
        if ((r16.states.succeeded ?? 0) !== CALLS16)
          problems.push(`round ${round + 1} at 16 (${s.root}): ${JSON.stringify(r16.states)}`);
        s.perS16.push(r16.summary.per_s);
        if (b && a) s.cpu16.push(cpuSpent(b, a, CALLS16));
      }
    }
    console.error(`round ${round + 1} of ${ROUNDS} done, load ${loads()}`);
  }

  heading(
    `Two Hubs (${STORE_LABEL}), governed calls (${CALL}: ${TOOL}${WITH_TASK ? ', task-bound' : ''}); at concurrency 1 the calls alternate between them`,
  );
  console.log(
    `${ROUNDS} rounds; per round and Hub ${CALLS} calls at 1, ${CALLS16} at 16; ${benchIdsLabel()}; ${cpus().length} CPUs${hubCpusLabel()}; load average at the start ${loadAtStart}, at the end ${loads()}`,
  );
  sides.forEach((s, i) => console.log(`${'AB'[i]}: ${s.root}`));
  console.log(`direct write p50 @1 per round, ms: ${list(directP50)} (median ${fmt(median(directP50))})`);
  const [a, b] = sides as [Side, Side];
  const rows = sides.map((s, i) => {
    const m = (pick: (c: HubCpuSpent) => number, of: HubCpuSpent[]) => median(of.map(pick));
    return [
      'AB'[i]!,
      median(s.samples1),
      percentile(
        [...s.samples1].sort((x, y) => x - y),
        90,
      ),
      m((c) => c.total, s.cpu1),
      m((c) => c.main, s.cpu1),
      m((c) => c.busiestOther, s.cpu1),
      m((c) => c.system, s.cpu1),
      s.cpu16.length ? m((c) => c.total, s.cpu16) : NaN,
      s.cpu16.length ? m((c) => c.main, s.cpu16) : NaN,
      s.cpu16.length ? m((c) => c.busiestOther, s.cpu16) : NaN,
      s.perS16.length ? median(s.perS16) : NaN,
    ];
  });
  console.log(
    table(
      [
        'Hub',
        'p50 ms @1',
        'p90 ms @1',
        'CPU ms/write @1',
        'main',
        STORE === 'postgres' ? 'busiest other' : 'writer',
        'kernel',
        'CPU ms/write @16',
        'main',
        STORE === 'postgres' ? 'busiest other' : 'writer',
        'writes/s @16',
      ],
      rows,
    ),
  );
  console.log("(p50/p90 over every round's calls; CPU figures and writes/s are medians of the rounds)");
  console.log(`p50 @1 per round, A: ${list(a.p50PerRound)}`);
  console.log(`p50 @1 per round, B: ${list(b.p50PerRound)}`);
  const ratios = b.p50PerRound.map((v, i) => v / a.p50PerRound[i]!);
  console.log(
    `B/A per round: ${list(ratios)} (median ${fmt(median(ratios))}; B lower in ${ratios.filter((x) => x < 1).length} of ${ratios.length})`,
  );
  const cpuRatios = b.cpu1.map((c, i) => c.total / a.cpu1[i]!.total);
  console.log(`CPU per write @1, B/A per round: ${list(cpuRatios)} (median ${fmt(median(cpuRatios))})`);
  const mainRatios = b.cpu1.map((c, i) => c.main / a.cpu1[i]!.main);
  console.log(
    `main thread's CPU per write @1, B/A per round: ${list(mainRatios)} (median ${fmt(median(mainRatios))})`,
  );
  if (a.cpu16.length) {
    const r16 = b.cpu16.map((c, i) => c.total / a.cpu16[i]!.total);
    console.log(`CPU per write @16, B/A per round: ${list(r16)} (median ${fmt(median(r16))})`);
    const m16 = b.cpu16.map((c, i) => c.main / a.cpu16[i]!.main);
    console.log(`main thread's CPU per write @16, B/A per round: ${list(m16)} (median ${fmt(median(m16))})`);
  }
  if (problems.length > 0) console.log(`\ncalls that did not succeed: ${problems.join('; ')}`);
} finally {
  for (const s of sides) await s.hubs.close();
  await loadgen.close();
  await shop.close();
  cluster?.stop();
}
