/**
 * bench:hub's proxy floors: what share of the direct call's throughput a Hub could reach at best on
 * this machine. Each floor (proxy-floor.ts, a process of its own) takes the load generator's
 * governed calls and forwards them to the bench shop: bare (HTTP in, the signed request out, the
 * answer back) and durable (the same plus two group-committed SQLite commits per call), each on
 * Node's `http` and on Fastify. Every case is measured like a Hub case: the direct call right
 * before and right after it, the process's CPU per call, and how busy the machine's CPUs were.
 *
 * Which floors run: BENCH_FLOORS=0 none; BENCH_FLOORS=WORDS those whose name holds one of the
 * comma-separated words (bare, durable, fastify, …); unset, those BENCH_SETUPS names (e.g.
 * `BENCH_SETUPS=proxy` runs every floor and no Hub), or else all of them when the SQLite Hub runs
 * (they are printed beside it).
 */
import type { CompiledOperation } from '../../src-hub/acc/types.js';
import { BENCH_SHOP } from './bench-shop.js';
import type { BenchRun } from './bench-run.js';
import { cpuSpent, type HubCpuSpent } from './hub-processes.js';
import type { LoadJob } from './loadgen.js';
import { whileMeasuringBusy, type MachineBusy } from './machine-busy.js';
import { fmt, heading, table } from './print.js';
import { startProxyFloor, type ProxyFloorSpec } from './proxy-floor-process.js';
import { WARMUP_CALLS, WARMUP_CONCURRENCY } from './warm-up.js';
import type { Stage, StageReading } from './proxy-floor-stages.js';
import type { Summary } from './stats.js';

export type CallKind = 'read' | 'write';

export const PROXY_FLOORS: readonly ProxyFloorSpec[] = [
  { name: 'bare proxy', server: 'node', durable: false },
  { name: 'durable proxy', server: 'node', durable: true },
  { name: 'bare proxy on Fastify', server: 'fastify', durable: false },
  { name: 'durable proxy on Fastify', server: 'fastify', durable: true },
];

const words = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
const named = (ws: string[]) => PROXY_FLOORS.filter((f) => ws.some((w) => f.name.toLowerCase().includes(w)));

export function chosenProxyFloors(sqliteHubRuns: boolean): ProxyFloorSpec[] {
  const floors = process.env.BENCH_FLOORS;
  if (floors !== undefined && floors.trim() === '0') return [];
  if (floors !== undefined && floors.trim() !== '') return named(words(floors));
  const bySetups = named(words(process.env.BENCH_SETUPS));
  if (bySetups.length > 0) return bySetups;
  return sqliteHubRuns ? [...PROXY_FLOORS] : [];
}

/** One case's figures, a floor's or a Hub's, as the floor table prints them. */
export interface CaseFigures {
  where: string;
  kind: CallKind;
  conc: number;
  summary: Summary;
  /** The direct call's figures at the start of the run (same call, same concurrency). */
  directStart: Summary;
  /** The CPU per call (ms) the load generator and the bench shop spent on the direct call then. */
  directStartCpuMs: number | null;
  /** The mean of the direct call right before and right after the case. */
  directAround: Pick<Summary, 'p50_ms' | 'per_s'> | null;
  /** CPU per call (ms) of the process(es) under test. */
  cpu: HubCpuSpent | null;
  busy: MachineBusy | null;
  /** Store changes per commit (SQLite: per fsync), and commits per second. */
  perCommit: number | null;
  commitsPerS: number | null;
  /**
   * CPUs this benchmark's own processes kept busy during the case (the process under test, the load
   * generator and the bench shop): the rest of `busy` is other work on the machine.
   */
  benchCores: number | null;
  /** A proxy floor's own clock: where its calls' time went, and its commit thread's. */
  inside?: FloorInside;
}

/** Where a proxy floor's calls spent their time during one case. */
export interface FloorInside {
  stages: StageReading;
  /** Mean time of one transaction in the commit thread (BEGIN to COMMIT's return), ms. */
  txMs: number;
  /** Share of the case's wall time the commit thread spent inside transactions. */
  writerBusy: number;
}

export interface FloorCaseInput {
  run: BenchRun;
  calls: number;
  concurrency: readonly number[];
  tools: Record<CallKind, keyof BenchRun['operations']>;
  directStart(kind: CallKind, conc: number): Summary;
  directStartCpuMs(kind: CallKind, conc: number): number | null;
  directJob(kind: CallKind): Omit<Extract<LoadJob, { kind: 'direct' }>, 'calls' | 'concurrency'>;
  cpuCount: number;
}

export async function runProxyFloors(
  floors: readonly ProxyFloorSpec[],
  input: FloorCaseInput,
): Promise<{ cases: CaseFigures[]; problems: string[] }> {
  const { run, calls } = input;
  const cases: CaseFigures[] = [];
  const problems: string[] = [];
  const operations: Record<string, CompiledOperation> = { ...run.operations };
  for (const floor of floors) {
    const proxy = await startProxyFloor(floor, run.shop, operations);
    try {
      const jobOf = (kind: 'read' | 'write', conc: number, n: number): LoadJob => ({
        kind: 'hub',
        urls: [proxy.url],
        token: 'proxy-floor',
        calls: n,
        concurrency: conc,
        invoke: {
          run_id: 'proxy-floor',
          authorization_ref: BENCH_SHOP.authorization_ref,
          tool: input.tools[kind],
          declaration_revision: 'proxy-floor',
          write: kind === 'write',
        },
      });
      // both kinds warmed before either is measured, as the Hub is
      for (const kind of ['read', 'write'] as const)
        await run.loadgen.run(jobOf(kind, WARMUP_CONCURRENCY, WARMUP_CALLS));
      for (const kind of ['read', 'write'] as const) {
        const job = (conc: number, n: number): LoadJob => jobOf(kind, conc, n);
        for (const conc of input.concurrency) {
          const direct = { ...input.directJob(kind), calls, concurrency: conc };
          const before = await run.loadgen.run(direct);
          const statsBefore = await proxy.stats(); // also starts the stages' interval
          const cpuBefore = proxy.cpuMs();
          const shopBefore = process.cpuUsage();
          const { value: r, busy } = await whileMeasuringBusy(input.cpuCount, () =>
            run.loadgen.run(job(conc, calls)),
          );
          const shopCpu = process.cpuUsage(shopBefore);
          const cpuAfter = proxy.cpuMs();
          const statsAfter = await proxy.stats();
          const cpu = cpuBefore && cpuAfter ? cpuSpent(cpuBefore, cpuAfter, calls) : null;
          const wallS = calls / r.summary.per_s;
          const ownMs = (shopCpu.user + shopCpu.system) / 1000 + (r.cpuMs ?? NaN);
          const after = await run.loadgen.run(direct);
          if ((r.states.http_200 ?? 0) !== calls)
            problems.push(`${floor.name} ${kind}@${conc}: ${JSON.stringify(r.states)}`);
          const figures: CaseFigures = {
            where: floor.name,
            kind,
            conc,
            summary: r.summary,
            directStart: input.directStart(kind, conc),
            directStartCpuMs: input.directStartCpuMs(kind, conc),
            directAround: {
              p50_ms: (before.summary.p50_ms + after.summary.p50_ms) / 2,
              per_s: (before.summary.per_s + after.summary.per_s) / 2,
            },
            cpu,
            busy,
            perCommit: null,
            commitsPerS: null,
            benchCores: cpu ? (cpu.total * calls + ownMs) / 1000 / wallS : null,
          };
          const c0 = statsBefore.commits;
          const c1 = statsAfter.commits;
          if (c0 && c1) {
            const batches = Math.max(1, c1.batches - c0.batches);
            figures.perCommit = (c1.changes - c0.changes) / batches;
            figures.commitsPerS = batches / wallS;
            figures.inside = {
              stages: statsAfter.stages,
              txMs: (c1.txMs - c0.txMs) / batches,
              writerBusy: (c1.txMs - c0.txMs) / 1000 / wallS,
            };
          }
          cases.push(figures);
        }
      }
    } finally {
      await proxy.close();
    }
  }
  return { cases, problems };
}

/** CPU per call (ms) of the process under test, the load generator and the bench shop together. */
const benchCpuMs = (c: CaseFigures) => ((c.benchCores ?? NaN) * 1000) / c.summary.per_s;

/**
 * The calls per second the case's CPU per call would allow with every CPU busy on this bench alone
 * (CPUs / the bench's CPU per call), and its share of the same for the direct call at the start: a
 * bound that other work on a shared machine hardly moves. A case that waits (commits, turns) stays
 * below it; the direct call at 16 too, so the measured share can be above this one.
 */
function ceiling(c: CaseFigures, cpuCount: number): string {
  const own = (cpuCount * 1000) / benchCpuMs(c);
  const direct = c.directStartCpuMs ? (cpuCount * 1000) / c.directStartCpuMs : NaN;
  return Number.isFinite(own) ? `${Math.round(own)} (${fmt(own / direct)}x)` : 'n/a';
}

/** "1.52 of 2 (76 %)": CPUs busy during a case, all processes on the machine. */
export const busyLabel = (b: MachineBusy | null | undefined, cpuCount: number): string =>
  b ? `${fmt(b.cores)} of ${cpuCount} (${Math.round(b.busy * 100)} %)` : 'n/a';

export function printFloorCases(cases: readonly CaseFigures[], cpuCount: number): void {
  heading(
    'Proxy floors beside the Hub: HTTP in, the signed request out, the answer back (durable: two group-committed SQLite commits per call between)',
  );
  const x = (v: number) => `${fmt(v)}x`;
  console.log(
    table(
      [
        'where',
        'call',
        'conc',
        'calls/s',
        'p50 ms',
        'share of direct (start)',
        'share of direct (around)',
        'p50 / direct (around)',
        'CPU ms/call',
        'main thread',
        'other threads (busiest)',
        'waited for a CPU ms/call (main thread)',
        'machine CPUs busy',
        'of which this bench',
        'bench CPU ms/call',
        'if CPU-bound: calls/s (share of direct)',
        'changes per commit',
        'commits/s',
      ],
      cases.map((c) => [
        c.where,
        c.kind,
        String(c.conc),
        Math.round(c.summary.per_s),
        c.summary.p50_ms,
        x(c.summary.per_s / c.directStart.per_s),
        c.directAround
          ? `${x(c.summary.per_s / c.directAround.per_s)} (${Math.round(c.directAround.per_s)}/s)`
          : 'n/a',
        c.directAround ? x(c.summary.p50_ms / c.directAround.p50_ms) : 'n/a',
        c.cpu ? fmt(c.cpu.total) : 'n/a',
        c.cpu ? fmt(c.cpu.main) : 'n/a',
        c.cpu ? `${fmt(c.cpu.total - c.cpu.main)} (${fmt(c.cpu.busiestOther)})` : 'n/a',
        c.cpu ? `${fmt(c.cpu.waited)} (${fmt(c.cpu.waitedMain)})` : 'n/a',
        busyLabel(c.busy, cpuCount),
        c.benchCores === null ? 'n/a' : fmt(c.benchCores),
        fmt(benchCpuMs(c)),
        ceiling(c, cpuCount),
        c.perCommit === null ? '—' : fmt(c.perCommit),
        c.commitsPerS === null ? '—' : Math.round(c.commitsPerS),
      ]),
    ),
  );
  console.log(
    '(share of direct: calls/s against the direct call at the same concurrency, measured at the start of the run and, "around", right before and right after the case; CPU: the process under test, /proc, 10 ms ticks; waited for a CPU: the time its threads were ready to run but on a run queue, /proc/…/schedstat; machine CPUs busy: every process on the machine during the case, from /proc/stat — near all CPUs busy means bound by CPU, well below it bound by waiting; "of which this bench": the CPU the process under test, the load generator and the bench shop spent over the case\'s wall time, the rest is other work on the machine; "if CPU-bound": all CPUs over the bench CPU per call, and its share of the same for the direct call at the start — a ceiling other work hardly moves; the Hub\'s changes per commit are its store writes per transaction)',
  );
  const inside = cases.filter((c) => c.inside);
  if (inside.length === 0) return;
  heading(
    "Durable proxies: where a call's time went (p50 ms at the load generator; inside the proxy p50 / mean ms)",
  );
  const stage = (c: CaseFigures, s: Stage) =>
    `${fmt(c.inside!.stages.p50[s] ?? NaN)} / ${fmt(c.inside!.stages.mean[s] ?? NaN)}`;
  console.log(
    table(
      [
        'where',
        'call',
        'conc',
        'p50 at the generator',
        'in the proxy',
        'permit commit',
        'shop',
        'outcome commit',
        'transaction ms (mean)',
        'commit thread in transactions',
        'main thread busy',
      ],
      inside.map((c) => [
        c.where,
        c.kind,
        String(c.conc),
        c.summary.p50_ms,
        stage(c, 'in proxy'),
        stage(c, 'permit commit'),
        stage(c, 'shop'),
        stage(c, 'outcome commit'),
        c.inside!.txMs,
        `${Math.round(c.inside!.writerBusy * 100)} %`,
        `${Math.round(c.inside!.stages.mainBusy * 100)} %`,
      ]),
    ),
  );
  console.log(
    '(a commit\'s wait: the post after the poll phase, the batch in flight before it, its own transaction (BEGIN to COMMIT\'s return, the fsync included), the answer back and the main thread getting to it; "main thread busy": its event-loop utilization over the case — near 100 %, calls queue behind its own work (time the OS gave the CPU to others is "waited for a CPU" above); "in the proxy" leaves out reading the request and writing the answer)',
  );
}
