/**
 * npm run bench:hub — governed calls through the Hub versus the same signed requests sent straight
 * to the business system, on three Hub setups: SQLite with group commit, PostgreSQL with one
 * instance, PostgreSQL with three instances (calls spread over them), at concurrency 1 and 16.
 * The Hubs run as processes of their own and the load generator in another, so the figures are the
 * Hub's; the durability floors (fsync, bare transactions) are measured in the same run. Figures are
 * printed, never asserted. BENCH_CALLS sets calls per case (default 400). The calls go to the
 * bench shop (shop A without a declared per-operation rate limit, bench/lib/bench-shop.ts).
 */
import { cpus, loadavg } from 'node:os';
import { createSqliteStore } from '../src-hub/store/sqlite/store.js';
import { BENCH_SHOP } from './lib/bench-shop.js';
import { printFloors, ratio, startBenchRun, type SetupName } from './lib/bench-run.js';
import { cpuSpent, hubCpusLabel, type HubCpuSpent } from './lib/hub-processes.js';
import { benchIdsLabel } from './lib/invocation-ids.js';
import type { HubInvoke } from './lib/loadgen.js';
import { whileMeasuringBusy, type MachineBusy } from './lib/machine-busy.js';
import { fmt, heading, table } from './lib/print.js';
import {
  busyLabel,
  chosenProxyFloors,
  printFloorCases,
  runProxyFloors,
  type CaseFigures,
} from './lib/proxy-floor-cases.js';
import { printRegexCost } from './lib/regex-cost.js';
import type { Summary } from './lib/stats.js';
import { WARMUP_CALLS, WARMUP_CONCURRENCY } from './lib/warm-up.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const CONCURRENCY = [1, 16] as const;
type Kind = 'read' | 'write';
const TOOL: Record<Kind, 'get_product' | 'update_product_content'> = {
  read: 'get_product',
  write: 'update_product_content',
};

const loadAtStart = loadavg();
const run = await startBenchRun();
const results = new Map<string, Summary>();
const key = (where: string, kind: Kind, conc: number) => `${where}|${kind}|${conc}`;
const durability = new Map<string, string>();
const pings = new Map<string, Summary>();
const cpuPerCall = new Map<string, HubCpuSpent>();
const commits = new Map<string, number>();
/** SQLite: transactions (fsyncs) per second during each case. */
const commitRate = new Map<string, number>();
/** The load generator's own CPU per call (ms): small, so the figures are the Hub's (and the shop's). */
const generatorCpu = new Map<string, number>();
/** This process's CPU per call (ms): the bench shop answering (it runs here), the rest of this process idle. */
const shopCpu = new Map<string, number>();
/** The direct call measured right before and right after each Hub case (means of the two). */
const directAround = new Map<string, Pick<Summary, 'p50_ms' | 'per_s'>>();
/**
 * The direct write at concurrency 1 sent at the pace of the Hub's writes (idle before each call for
 * the Hub's p50 minus the direct call's): the shop's leg of a governed write, as the Hub meets it.
 */
const directPaced = new Map<string, Pick<Summary, 'p50_ms'> & { idleMs: number }>();
/** The machine's 1-minute load average when each case ended: other work on a shared machine shows here. */
const loadAfter = new Map<string, number>();
/** How busy all the machine's CPUs were during each case (/proc/stat): bound by CPU or by waiting. */
const busy = new Map<string, MachineBusy | null>();
const cpuCount = cpus().length;
const floorCases: CaseFigures[] = [];
const cpuSince = (before: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(before);
  return (d.user + d.system) / 1000;
};
const problems: string[] = [];
try {
  const directJob = (kind: Kind) => ({
    kind: 'direct' as const,
    url: run.shop.url,
    systemId: run.shop.systemId,
    secret: run.shop.secret,
    operation: run.operations[TOOL[kind]],
    write: kind === 'write',
  });
  // straight to the shop, from the load generator; both kinds warmed before either is measured
  for (const kind of ['read', 'write'] as const)
    await run.loadgen.run({ ...directJob(kind), calls: WARMUP_CALLS, concurrency: WARMUP_CONCURRENCY });
  for (const kind of ['read', 'write'] as const) {
    const job = directJob(kind);
    for (const conc of CONCURRENCY) {
      const cpu = process.cpuUsage();
      const { value: r, busy: b } = await whileMeasuringBusy(cpuCount, () =>
        run.loadgen.run({ ...job, calls: CALLS, concurrency: conc }),
      );
      busy.set(key('direct', kind, conc), b);
      shopCpu.set(key('direct', kind, conc), cpuSince(cpu) / CALLS);
      loadAfter.set(key('direct', kind, conc), loadavg()[0]!);
      if ((r.states.http_200 ?? 0) !== CALLS)
        problems.push(`direct ${kind}@${conc}: ${JSON.stringify(r.states)}`);
      results.set(key('direct', kind, conc), r.summary);
      if (r.cpuMs !== null) generatorCpu.set(key('direct', kind, conc), r.cpuMs / CALLS);
    }
  }
  for (const setup of run.setups) {
    const hubs = await run.startSetup(setup);
    try {
      durability.set(setup, hubs.durability);
      // the HTTP round trip floor: the same generator, the same Hub process, a route that does nothing
      await run.loadgen.run({ kind: 'get', url: `${hubs.urls[0]}/health`, calls: 50, concurrency: 1 });
      const ping = await run.loadgen.run({
        kind: 'get',
        url: `${hubs.urls[0]}/health`,
        calls: CALLS,
        concurrency: 1,
      });
      pings.set(setup, ping.summary);
      const runId = await hubs.run(`bench-${setup}`);
      const invokes = {} as Record<Kind, HubInvoke>;
      for (const kind of ['read', 'write'] as const) {
        const d = await hubs.declaration(TOOL[kind]);
        invokes[kind] = {
          run_id: runId,
          authorization_ref: BENCH_SHOP.authorization_ref,
          tool: TOOL[kind],
          declaration_revision: d.declaration_revision,
          write: kind === 'write',
        };
        // both kinds warmed before either is measured
        await run.loadgen.run({
          kind: 'hub',
          urls: hubs.urls,
          token: hubs.token,
          calls: WARMUP_CALLS,
          concurrency: WARMUP_CONCURRENCY,
          invoke: invokes[kind],
        });
      }
      for (const kind of ['read', 'write'] as const) {
        const invoke = invokes[kind];
        for (const conc of CONCURRENCY) {
          // concurrency 1 talks to one instance; 16 spreads over every instance
          const urls = conc === 1 ? hubs.urls.slice(0, 1) : hubs.urls;
          // the direct call again right before and right after, for a ratio this machine's drift
          // (2x within the hour for the same code) cannot move between the two measurements
          const directBefore = await run.loadgen.run({ ...directJob(kind), calls: CALLS, concurrency: conc });
          const before = await hubs.commits();
          const cpuBefore = hubs.cpuMs();
          const shopBefore = process.cpuUsage();
          const { value: r, busy: b } = await whileMeasuringBusy(cpuCount, () =>
            run.loadgen.run({
              kind: 'hub',
              urls,
              token: hubs.token,
              calls: CALLS,
              concurrency: conc,
              invoke,
            }),
          );
          busy.set(key(setup, kind, conc), b);
          shopCpu.set(key(setup, kind, conc), cpuSince(shopBefore) / CALLS);
          loadAfter.set(key(setup, kind, conc), loadavg()[0]!);
          const after = await hubs.commits();
          const cpuAfter = hubs.cpuMs();
          if (cpuBefore !== null && cpuAfter !== null)
            cpuPerCall.set(key(setup, kind, conc), cpuSpent(cpuBefore, cpuAfter, CALLS));
          if (before && after) {
            const batches = after.batches - before.batches;
            commits.set(key(setup, kind, conc), (after.writes - before.writes) / Math.max(1, batches));
            commitRate.set(key(setup, kind, conc), (batches * r.summary.per_s) / CALLS);
          }
          if ((r.states.succeeded ?? 0) !== CALLS)
            problems.push(`${setup} ${kind}@${conc}: ${JSON.stringify(r.states)}`);
          results.set(key(setup, kind, conc), r.summary);
          if (r.cpuMs !== null) generatorCpu.set(key(setup, kind, conc), r.cpuMs / CALLS);
          const directAfter = await run.loadgen.run({ ...directJob(kind), calls: CALLS, concurrency: conc });
          directAround.set(key(setup, kind, conc), {
            p50_ms: (directBefore.summary.p50_ms + directAfter.summary.p50_ms) / 2,
            per_s: (directBefore.summary.per_s + directAfter.summary.per_s) / 2,
          });
          if (kind === 'write' && conc === 1) {
            const idleMs = Math.max(1, Math.round(r.summary.p50_ms - directBefore.summary.p50_ms));
            const paced = await run.loadgen.run({ ...directJob(kind), calls: CALLS, concurrency: 1, idleMs });
            directPaced.set(setup, { p50_ms: paced.summary.p50_ms, idleMs });
          }
        }
      }
      if (setup === 'SQLite, group commit') {
        const store = createSqliteStore({ dataDir: hubs.store.dataDir! });
        try {
          await printRegexCost(store);
        } finally {
          await store.close();
        }
      }
    } finally {
      await hubs.close();
    }
  }
  const floors = chosenProxyFloors(run.setups.includes('SQLite, group commit'));
  if (floors.length > 0) {
    const measured = await runProxyFloors(floors, {
      run,
      calls: CALLS,
      concurrency: CONCURRENCY,
      tools: TOOL,
      directStart: (kind, conc) => results.get(key('direct', kind, conc))!,
      directStartCpuMs,
      directJob,
      cpuCount,
    });
    floorCases.push(...measured.cases);
    problems.push(...measured.problems);
  }

  printFloors(run);
  heading('Governed calls through the Hub vs straight to the bench shop (loopback)');
  console.log(
    `calls per case: ${CALLS}; Hubs and the load generator are separate processes; the bench shop runs in this one; ${benchIdsLabel()}`,
  );
  const loads = (l: number[]) => l.map((v) => v.toFixed(2)).join(' ');
  console.log(
    `${cpuCount} CPUs${hubCpusLabel()}; load average (1, 5, 15 min) at the start: ${loads(loadAtStart)}, at the end: ${loads(loadavg())}`,
  );
  for (const [setup, d] of durability) console.log(`${setup}: ${d}`);
  const rows: Array<Array<string | number>> = [];
  for (const where of ['direct', ...run.setups] as const) {
    for (const kind of ['read', 'write'] as const) {
      for (const conc of CONCURRENCY) {
        const s = results.get(key(where, kind, conc))!;
        rows.push([
          where === 'direct' ? 'straight to the shop' : where,
          kind,
          String(conc),
          String(s.n),
          s.p50_ms,
          s.p99_ms,
          s.per_s,
          fmt(generatorCpu.get(key(where, kind, conc)) ?? NaN),
          fmt(shopCpu.get(key(where, kind, conc)) ?? NaN),
          fmt(loadAfter.get(key(where, kind, conc)) ?? NaN),
          busyLabel(busy.get(key(where, kind, conc)), cpuCount),
          fmt(benchCores(where, kind, conc)),
        ]);
      }
    }
  }
  console.log(
    table(
      [
        'where',
        'call',
        'conc',
        'calls',
        'p50 ms',
        'p99 ms',
        'calls/s',
        'load generator CPU ms/call',
        'bench shop CPU ms/call',
        'load avg after',
        'machine CPUs busy',
        'of which this bench',
      ],
      rows,
    ),
  );
  if (cpuPerCall.size > 0) {
    heading('CPU the Hub processes spent per governed call (all threads; /proc, 10 ms ticks)');
    console.log(
      table(
        [
          'setup',
          'call',
          'conc',
          'Hub CPU ms per call',
          'main thread',
          'other threads',
          'of which the busiest (SQLite: the writer)',
          'in the kernel',
          'calls/s one core could carry',
        ],
        [...cpuPerCall].map(([k, cpu]) => {
          const [setup, kind, conc] = k.split('|');
          return [
            setup!,
            kind!,
            conc!,
            fmt(cpu.total),
            fmt(cpu.main),
            fmt(cpu.total - cpu.main),
            fmt(cpu.busiestOther),
            fmt(cpu.system),
            cpu.total > 0 ? Math.round(1000 / cpu.total) : '—',
          ];
        }),
      ),
    );
  }

  heading(
    'Hub against the direct call (targets: write p50 at conc 1 ≤ 2x direct; conc 16 throughput ≥ 0.5x direct)',
  );
  const ratioRows: Array<Array<string | number>> = [];
  for (const setup of run.setups as SetupName[]) {
    for (const kind of ['read', 'write'] as const) {
      const h1 = results.get(key(setup, kind, 1))!;
      const d1 = results.get(key('direct', kind, 1))!;
      const h16 = results.get(key(setup, kind, 16))!;
      const d16 = results.get(key('direct', kind, 16))!;
      const a1 = directAround.get(key(setup, kind, 1));
      const a16 = directAround.get(key(setup, kind, 16));
      ratioRows.push([
        setup,
        kind,
        ratio(h1.p50_ms / d1.p50_ms),
        ratio(h1.p99_ms / d1.p99_ms),
        ratio(h16.per_s / d16.per_s),
        a1 ? `${ratio(h1.p50_ms / a1.p50_ms)} (direct ${fmt(a1.p50_ms)} ms)` : 'n/a',
        a16 ? `${ratio(h16.per_s / a16.per_s)} (direct ${Math.round(a16.per_s)}/s)` : 'n/a',
      ]);
    }
  }
  console.log(
    table(
      [
        'setup',
        'call',
        'p50 ratio @1',
        'p99 ratio @1',
        'throughput share @16',
        'p50 ratio @1, direct around it',
        'throughput share @16, direct around it',
      ],
      ratioRows,
    ),
  );
  console.log(
    '(the first three against the direct figures measured at the start; "direct around it": the mean of the direct call measured right before and right after that Hub case)',
  );

  heading(
    'Hub against its floor (a governed write is one HTTP round trip to the Hub, two commits — dispatching, outcome — and the direct call)',
  );
  const f = run.floors;
  const floorRows: Array<Array<string | number>> = [];
  for (const setup of run.setups) {
    const tx = setup === 'SQLite, group commit' ? f.sqliteTx : f.pgTx1;
    const ping = pings.get(setup);
    if (!tx || !ping) continue;
    const direct = results.get(key('direct', 'write', 1))!.p50_ms;
    const floor = direct + ping.p50_ms + 2 * tx.p50_ms;
    const hub = results.get(key(setup, 'write', 1))!.p50_ms;
    const paced = directPaced.get(setup);
    floorRows.push([
      setup,
      fmt(direct),
      fmt(ping.p50_ms),
      fmt(2 * tx.p50_ms),
      fmt(floor),
      ratio(floor / direct),
      fmt(hub),
      ratio(hub / floor),
      paced ? `${fmt(paced.p50_ms)} (idle ${paced.idleMs} ms)` : 'n/a',
      paced ? ratio(hub / paced.p50_ms) : 'n/a',
    ]);
  }
  console.log(
    table(
      [
        'setup',
        'direct p50 ms',
        'GET /health p50 ms',
        '2 bare commits ms',
        'floor ms',
        'floor / direct',
        'Hub write p50 ms @1',
        'Hub / floor',
        "direct p50 ms at the Hub's pace",
        'Hub / direct at its pace',
      ],
      floorRows,
    ),
  );
  console.log(
    '(floor / direct above 2x means the p50 target is out of reach on this machine at that moment; "at the Hub\'s pace": the direct write again with the idle time the shop sees between a Hub\'s calls before each call — an idle shop and client answer slower than a back-to-back loop)',
  );
  if (commits.size > 0) {
    heading('Group commit at work (SQLite: store writes per transaction, i.e. per fsync)');
    console.log(
      table(
        ['call', 'conc', 'writes per commit'],
        [...commits].map(([k, v]) => {
          const [, kind, conc] = k.split('|');
          return [kind!, conc!, fmt(v)];
        }),
      ),
    );
  }
  if (floorCases.length > 0) printFloorCases([...sqliteHubCases(), ...floorCases], cpuCount);
  console.log(`\nbusiness writes in the shop ledger: ${run.shop.ledger().length}`);
  if (problems.length > 0) console.log(`\ncalls that did not succeed: ${problems.join('; ')}`);
} finally {
  await run.close();
}

/** The SQLite Hub's cases in the proxy floors' terms, printed above them. */
function sqliteHubCases(): CaseFigures[] {
  const setup: SetupName = 'SQLite, group commit';
  if (!run.setups.includes(setup)) return [];
  return (['read', 'write'] as const).flatMap((kind) =>
    CONCURRENCY.map((conc) => {
      const k = key(setup, kind, conc);
      const summary = results.get(k)!;
      const cpu = cpuPerCall.get(k) ?? null;
      return {
        where: 'Hub (SQLite)',
        kind,
        conc,
        summary,
        directStart: results.get(key('direct', kind, conc))!,
        directStartCpuMs: directStartCpuMs(kind, conc),
        directAround: directAround.get(k) ?? null,
        cpu,
        busy: busy.get(k) ?? null,
        perCommit: commits.get(k) ?? null,
        commitsPerS: commitRate.get(k) ?? null,
        benchCores: cpu ? benchCores(setup, kind, conc) : null,
      };
    }),
  );
}

/**
 * CPUs this benchmark's processes kept busy during a case (the Hub's, the load generator's, the
 * bench shop's CPU per call over the calls per second): the rest of the machine's busy CPUs is
 * other work.
 */
function benchCores(where: string, kind: Kind, conc: number): number {
  const k = key(where, kind, conc);
  const hub = where === 'direct' ? 0 : (cpuPerCall.get(k)?.total ?? NaN);
  const perCall = hub + (generatorCpu.get(k) ?? NaN) + (shopCpu.get(k) ?? NaN);
  return (perCall * (results.get(k)?.per_s ?? NaN)) / 1000;
}

/** The load generator's and the bench shop's CPU per direct call (ms) at the start of the run. */
function directStartCpuMs(kind: Kind, conc: number): number | null {
  const k = key('direct', kind, conc);
  const ms = (generatorCpu.get(k) ?? NaN) + (shopCpu.get(k) ?? NaN);
  return Number.isFinite(ms) ? ms : null;
}
