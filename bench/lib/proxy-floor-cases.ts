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
  /** The mean of the direct call right before and right after the case. */
  directAround: Pick<Summary, 'p50_ms' | 'per_s'> | null;
  /** CPU per call (ms) of the process(es) under test. */
  cpu: HubCpuSpent | null;
  busy: MachineBusy | null;
  /** Store changes per commit (SQLite: per fsync). */
  perCommit: number | null;
}

export interface FloorCaseInput {
  run: BenchRun;
  calls: number;
  concurrency: readonly number[];
  tools: Record<CallKind, keyof BenchRun['operations']>;
  directStart(kind: CallKind, conc: number): Summary;
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
      for (const kind of ['read', 'write'] as const) {
        const job = (conc: number, n: number): LoadJob => ({
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
        await run.loadgen.run(job(8, 40)); // warm-up, as the Hub gets
        for (const conc of input.concurrency) {
          const direct = { ...input.directJob(kind), calls, concurrency: conc };
          const before = await run.loadgen.run(direct);
          const commitsBefore = await proxy.commits();
          const cpuBefore = proxy.cpuMs();
          const { value: r, busy } = await whileMeasuringBusy(input.cpuCount, () =>
            run.loadgen.run(job(conc, calls)),
          );
          const cpuAfter = proxy.cpuMs();
          const commitsAfter = await proxy.commits();
          const after = await run.loadgen.run(direct);
          if ((r.states.http_200 ?? 0) !== calls)
            problems.push(`${floor.name} ${kind}@${conc}: ${JSON.stringify(r.states)}`);
          cases.push({
            where: floor.name,
            kind,
            conc,
            summary: r.summary,
            directStart: input.directStart(kind, conc),
            directAround: {
              p50_ms: (before.summary.p50_ms + after.summary.p50_ms) / 2,
              per_s: (before.summary.per_s + after.summary.per_s) / 2,
            },
            cpu: cpuBefore && cpuAfter ? cpuSpent(cpuBefore, cpuAfter, calls) : null,
            busy,
            perCommit:
              commitsBefore && commitsAfter
                ? (commitsAfter.changes - commitsBefore.changes) /
                  Math.max(1, commitsAfter.batches - commitsBefore.batches)
                : null,
          });
        }
      }
    } finally {
      await proxy.close();
    }
  }
  return { cases, problems };
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
        'machine CPUs busy',
        'changes per commit',
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
        busyLabel(c.busy, cpuCount),
        c.perCommit === null ? '—' : fmt(c.perCommit),
      ]),
    ),
  );
  console.log(
    '(share of direct: calls/s against the direct call at the same concurrency, measured at the start of the run and, "around", right before and right after the case; CPU: the process under test, /proc, 10 ms ticks; machine CPUs busy: every process on the machine during the case, from /proc/stat — near all CPUs busy means bound by CPU, well below it bound by waiting; the Hub\'s changes per commit are its store writes per transaction)',
  );
}
