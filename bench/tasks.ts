/**
 * npm run bench:tasks — task permits under contention, on SQLite with group commit and on
 * PostgreSQL with one and three Hub instances: task-bound governed writes (permit + send) at
 * concurrency 1 and 16 on one task, the permit transaction alone (check + grant + `dispatching`,
 * committed; nothing sent) with the budget checked for exactness, and the cost of a governed call
 * with a task versus without. Hubs and the load generator run as processes of their own; the
 * durability floors are measured in the same run. Figures are printed, never asserted.
 * BENCH_CALLS (default 300) calls per case; BENCH_PERMITS (default 2000) permit transactions at 16;
 * BENCH_PERMIT_WARMUP (default 1000) untimed permits before the warm case at 16.
 */
import type { OperationRecord, RunRecord } from '../src-hub/store/types.js';
import { BENCH_SHOP } from './lib/bench-shop.js';
import { printFloors, ratio, startBenchRun, type SetupName } from './lib/bench-run.js';
import type { BenchHubs } from './lib/hub-processes.js';
import { benchIdsLabel } from './lib/invocation-ids.js';
import { heading, summaryRow, SUMMARY_HEADERS, table } from './lib/print.js';
import type { Summary } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const PERMITS = Number(process.env.BENCH_PERMITS ?? 2000);
const CONCURRENCY = [1, 16] as const;
/**
 * The permit transaction alone at 1 and 16 on a freshly opened store (as earlier rounds measured it),
 * then at 16 again after BENCH_PERMIT_WARMUP untimed permits on a task of their own (default 1,000):
 * the store's code compiled, as in a Hub that has been running.
 */
const PERMIT_CASES: ReadonlyArray<readonly [number, boolean]> = [
  [1, false],
  [16, false],
  [16, true],
];
const PERMIT_WARMUP = Number(process.env.BENCH_PERMIT_WARMUP ?? 1000);
const CASES = ['task-bound write (permit + send)', 'read with task', 'read without task'] as const;

const run = await startBenchRun();
const results = new Map<string, Summary>();
const permits = new Map<
  string,
  {
    summary: Summary;
    granted: number;
    budget: number;
    refused: number;
    writesUsed: number;
    perCommit: number | null;
    cpuUs: number | null;
    threadsUs: string;
  }
>();
const problems: string[] = [];
const key = (setup: string, label: string, conc: number) => `${setup}|${label}|${conc}`;

async function task(hubs: BenchHubs, budget: number): Promise<string> {
  const r = await hubs.post('/agent/v1/tasks', {
    title: 'bench',
    authorizations: [
      { authorization_ref: BENCH_SHOP.authorization_ref, tools: ['update_product_content', 'get_product'] },
    ],
    write_budget: budget,
    in_flight_limit: 10_000,
  });
  if (r.status !== 201) throw new Error(`task: ${JSON.stringify(r.body)}`);
  return r.body.task_id as string;
}

/** A run of a session of its own, as the store records it (its first call enrolls the session). */
async function runRecord(hubs: BenchHubs, name: string): Promise<RunRecord> {
  const runId = await hubs.run(name);
  const view = await hubs.get(`/agent/v1/runs/${runId}`);
  return {
    run_id: runId,
    client_id: 'bench',
    agent_session_id: view.agent_session_id,
    turn_id: view.turn_id,
    authorization_ref: BENCH_SHOP.authorization_ref,
    state: 'open',
    created_at: view.created_at,
    ended_at: null,
  };
}

/** The untimed permits before a warm case: a task and a session of their own. */
async function warmupFor(hubs: BenchHubs, name: string) {
  return { task_id: await task(hubs, PERMIT_WARMUP), run: await runRecord(hubs, name), calls: PERMIT_WARMUP };
}

try {
  for (const setup of run.setups) {
    const hubs = await run.startSetup(setup);
    try {
      const write = await hubs.declaration('update_product_content');
      const read = await hubs.declaration('get_product');
      // task-bound calls come from one agent session (enrolled by its first call); the calls
      // without a task from another session, which an enrollment would refuse
      const taskRun = await hubs.run(`bench-task-${setup}`);
      const freeRun = await hubs.run(`bench-free-${setup}`);
      const taskId = await task(hubs, 1_000_000);
      const invoke = (tool: 'get_product' | 'update_product_content', withTask: boolean) => ({
        run_id: withTask ? taskRun : freeRun,
        authorization_ref: BENCH_SHOP.authorization_ref,
        tool,
        declaration_revision: (tool === 'get_product' ? read : write).declaration_revision,
        write: tool === 'update_product_content',
        ...(withTask ? { task_id: taskId } : {}),
      });
      const jobs: Record<(typeof CASES)[number], ReturnType<typeof invoke>> = {
        'task-bound write (permit + send)': invoke('update_product_content', true),
        'read with task': invoke('get_product', true),
        'read without task': invoke('get_product', false),
      };
      for (const label of CASES) {
        await run.loadgen.run({
          kind: 'hub',
          urls: hubs.urls,
          token: hubs.token,
          calls: 40,
          concurrency: 8,
          invoke: jobs[label],
        });
        for (const conc of CONCURRENCY) {
          const urls = conc === 1 ? hubs.urls.slice(0, 1) : hubs.urls;
          const r = await run.loadgen.run({
            kind: 'hub',
            urls,
            token: hubs.token,
            calls: CALLS,
            concurrency: conc,
            invoke: jobs[label],
          });
          if ((r.states.succeeded ?? 0) !== CALLS)
            problems.push(`${setup} ${label}@${conc}: ${JSON.stringify(r.states)}`);
          results.set(key(setup, label, conc), r.summary);
        }
      }

      // The permit transaction alone, straight against the store (instances do not matter here).
      if (setup !== 'PostgreSQL, 3 instances') {
        const operation: OperationRecord = {
          system_id: BENCH_SHOP.system_id,
          tool: 'update_product_content',
          declaration_revision: write.declaration_revision,
          operation: run.operations.update_product_content,
        };
        for (const [conc, warm] of PERMIT_CASES) {
          const calls = conc === 1 ? Math.min(500, PERMITS) : PERMITS;
          const budget = conc === 1 ? calls : calls - 100; // the last 100 must be refused: budget_exhausted
          const permitTask = await task(hubs, budget);
          // a session of its own: its first call enrolls it in this task
          const permitRun = await runRecord(hubs, `bench-permits-${setup}-${conc}${warm ? '-warm' : ''}`);
          const warmup = warm ? await warmupFor(hubs, `bench-permits-warmup-${setup}-${conc}`) : undefined;
          const r = await run.loadgen.run({
            kind: 'permits',
            store: hubs.store,
            client_id: 'bench',
            task_id: permitTask,
            run: permitRun,
            operation,
            calls,
            concurrency: conc,
            ...(warmup ? { warmup } : {}),
          });
          permits.set(key(setup, warm ? 'permits-warm' : 'permits', conc), {
            summary: r.summary,
            granted: r.states.applied ?? 0,
            refused: r.states.budget_exhausted ?? 0,
            budget,
            writesUsed: r.extra?.writes_used ?? -1,
            cpuUs: r.extra?.cpu_us_per_permit ?? null,
            threadsUs:
              r.extra?.cpu_us_main_thread === undefined
                ? '—'
                : [r.extra.cpu_us_main_thread, r.extra.cpu_us_busiest_other_thread, r.extra.cpu_us_rest]
                    .map((us) => (us ?? 0).toFixed(0))
                    .join(' / '),
            perCommit:
              r.extra?.commits && r.extra.committed_writes !== undefined
                ? r.extra.committed_writes / r.extra.commits
                : null,
          });
        }
      }
    } finally {
      await hubs.close();
    }
  }

  printFloors(run);
  heading('Task permits under contention (one task, loopback, bench shop)');
  console.log(
    `calls per case: ${CALLS}; Hubs and the load generator are separate processes; ${benchIdsLabel()}`,
  );
  const rows: Array<Array<string | number>> = [];
  for (const setup of run.setups)
    for (const label of CASES)
      for (const conc of CONCURRENCY)
        rows.push([setup, ...summaryRow(label, conc, results.get(key(setup, label, conc))!)]);
  console.log(table(['setup', ...SUMMARY_HEADERS], rows));
  console.log('(calls/s of a task-bound write = permits granted per second, each also sent and answered)');

  heading(
    `The permit transaction alone (check + grant + dispatching, committed; target ≥ 5,000/s at 16 with the budget exact; ${benchIdsLabel()})`,
  );
  const prow: Array<Array<string | number>> = [];
  for (const [k, p] of permits) {
    const [setup, label, conc] = k.split('|');
    prow.push([
      setup!,
      label === 'permits-warm' ? `${conc!} warm` : conc!,
      String(p.summary.n),
      p.summary.p50_ms,
      p.summary.p99_ms,
      p.summary.per_s,
      p.perCommit === null ? '—' : p.perCommit.toFixed(1),
      p.cpuUs === null ? '—' : p.cpuUs.toFixed(0),
      p.threadsUs,
      `${p.granted} granted / budget ${p.budget}, ${p.refused} refused, writes_used ${p.writesUsed}: ${p.granted === p.budget && p.writesUsed === p.budget ? 'exact' : 'NOT EXACT'}`,
    ]);
  }
  console.log(
    table(
      [
        'setup',
        'conc',
        'calls',
        'p50 ms',
        'p99 ms',
        'permits/s',
        'per commit',
        'CPU µs/permit',
        'main / writer / rest',
        'budget',
      ],
      prow,
    ),
  );
  console.log(
    "(per commit: permits per SQLite transaction, i.e. per fsync. CPU: the permit process's, all threads, per permit; then split by thread: its main thread (the callers and the store's client side), the busiest other thread (on SQLite the writer) and the rest (V8's JIT compilation and GC helpers). Nothing is sent here, so every call stays dispatching: the task's view lists the oldest 100 and counts the rest)",
  );
  const f = run.floors;
  console.log(
    `floors in this run: bare SQLite transaction ${f.sqliteTx.per_s.toFixed(0)}/s one at a time${f.pgTx16 ? `; bare PostgreSQL transaction ${f.pgTx1!.per_s.toFixed(0)}/s at 1, ${f.pgTx16.per_s.toFixed(0)}/s at 16 (one task row)` : ''}`,
  );

  heading('Cost of a task (governed read with task / without task)');
  const costRows: Array<Array<string | number>> = [];
  for (const setup of run.setups as SetupName[])
    for (const conc of CONCURRENCY) {
      const w = results.get(key(setup, 'read with task', conc))!;
      const wo = results.get(key(setup, 'read without task', conc))!;
      costRows.push([
        setup,
        String(conc),
        ratio(w.p50_ms / wo.p50_ms),
        ratio(w.p99_ms / wo.p99_ms),
        ratio(wo.per_s / w.per_s),
      ]);
    }
  console.log(table(['setup', 'conc', 'p50 ratio', 'p99 ratio', 'throughput ratio'], costRows));
  if (problems.length > 0) console.log(`\ncalls that did not succeed: ${problems.join('; ')}`);
} finally {
  await run.close();
}
