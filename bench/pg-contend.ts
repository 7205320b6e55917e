/**
 * npm run bench:pg-contend — one contended task served by three Hub instances on one PostgreSQL, as
 * test/cluster/exactness.test.ts loads it: Hub processes of their own on a private PostgreSQL
 * started with pg_stat_statements, the bench shop with a slow write (a delay fault), one task with a
 * write budget and an in-flight limit, and BENCH_CONTEND_WORKERS callers in this process (worker w
 * on instance w mod 3) invoking until the budget is exhausted, retrying a call refused
 * `in_flight_limit` after 5-25 ms. Prints, per invoke (most of them refused): invokes and refusals
 * per second, the Hubs' CPU, the statements the server executed, its transactions (commits of the
 * database), the Hubs' group-commit batches, each statement's calls and time, and what the Hubs'
 * connections waited on (pg_stat_activity sampled every 5 ms: a Lock wait is a batch queued on the
 * task row). Figures are printed, never asserted; the budget's exactness is checked and printed.
 * BENCH_CONTEND_ROUNDS (default 1) rounds, each on fresh Hubs and a fresh database;
 * BENCH_CONTEND_WORKERS (90), BENCH_CONTEND_BUDGET (150), BENCH_CONTEND_IN_FLIGHT (5),
 * BENCH_CONTEND_DELAY_MS (40), BENCH_CONTEND_INSTANCES (3). BENCH_FROM=<checkout> runs the Hubs
 * from another checkout (an A/B comparison; BENCH_AB=<checkout> alternates this one and that one
 * round by round).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Agent, request } from 'undici';
import pg from 'pg';
import { startStatsCluster } from './lib/pg-stats-cluster.js';
import { newInvocationId } from '../src-shared/invocation-id.js';
import { BENCH_SHOP, startBenchShop } from './lib/bench-shop.js';
import { cpuSpent, startHubs } from './lib/hub-processes.js';
import { heading, table } from './lib/print.js';
import { sampleWaits, type WaitSamples } from './lib/pg-waits.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const ROUNDS = env('BENCH_CONTEND_ROUNDS', 1);
const WORKERS = env('BENCH_CONTEND_WORKERS', 90);
const BUDGET = env('BENCH_CONTEND_BUDGET', 150);
const IN_FLIGHT = env('BENCH_CONTEND_IN_FLIGHT', 5);
const DELAY_MS = env('BENCH_CONTEND_DELAY_MS', 40);
const INSTANCES = env('BENCH_CONTEND_INSTANCES', 3);
const here = resolve(import.meta.dirname, '..');
const checkouts = process.env.BENCH_AB
  ? [here, resolve(process.env.BENCH_AB)]
  : [process.env.BENCH_FROM ? resolve(process.env.BENCH_FROM) : here];

const { cluster, admin } = await startStatsCluster();
const shop = await startBenchShop(randomBytes(24).toString('hex'));
shop.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: DELAY_MS, times: 'always' });
const http = new Agent({ connections: WORKERS, keepAliveTimeout: 30_000 });

interface Round {
  from: string;
  invokes: number;
  refused: number;
  wallMs: number;
  hubCpuMs: number;
  hubMainMs: number;
  statements: number;
  transactions: number;
  batches: number;
  changes: number;
  waits: Map<string, number>;
  samples: number;
  top: Array<{ query: string; calls: number; total: number }>;
  answers: Record<string, number>;
  exact: string;
  load: string;
}

async function round(n: number, from: string): Promise<Round> {
  const db = `contend_${n}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const hubs = await startHubs(
    `PostgreSQL, ${INSTANCES} instances`,
    shop,
    { postgresUrl: cluster.urlFor(db), instances: INSTANCES },
    from,
  );
  try {
    const task = await hubs.post('/agent/v1/tasks', {
      title: 'contention',
      authorizations: [
        { authorization_ref: BENCH_SHOP.authorization_ref, tools: ['update_product_content'] },
      ],
      write_budget: BUDGET,
      in_flight_limit: IN_FLIGHT,
    });
    if (task.status !== 201) throw new Error(`task: ${JSON.stringify(task.body)}`);
    const taskId = task.body.task_id as string;
    const decl = await hubs.declaration('update_product_content');
    const runId = await hubs.run(`sess-${randomUUID()}`);
    const invoke = async (w: number) => {
      const res = await request(`${hubs.urls[w % hubs.urls.length]}/agent/v1/invocations`, {
        method: 'POST',
        dispatcher: http,
        headers: { authorization: `Bearer ${hubs.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          invocation_id: newInvocationId(),
          run_id: runId,
          authorization_ref: BENCH_SHOP.authorization_ref,
          tool: 'update_product_content',
          declaration_revision: decl.declaration_revision,
          arguments: { product_id: 42, description: `worker ${w}` },
          host_call_id: `w${w}`,
          task_id: taskId,
        }),
      });
      const body = (await res.body.json()) as { state?: string; reason_code?: string | null };
      if (res.statusCode >= 300) throw new Error(`invoke: ${res.statusCode} ${JSON.stringify(body)}`);
      return body;
    };

    const stats = new pg.Client({ connectionString: cluster.urlFor(db) });
    await stats.connect();
    const xacts = async () =>
      Number(
        (
          await stats.query<{ n: string }>(
            'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
            [db],
          )
        ).rows[0]!.n,
      );
    await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await stats.query('SELECT pg_stat_statements_reset()');
    await stats.query('SELECT pg_stat_clear_snapshot()');
    const xactsBefore = await xacts();
    const commitsBefore = (await hubs.commits()) ?? { batches: 0, writes: 0 };
    const cpuBefore = hubs.cpuMs();
    const sampler = sampleWaits(stats, db);
    const load = loadavg()[0]!.toFixed(2);
    const answers: Record<string, number> = {};
    let invokes = 0;
    let sampled: WaitSamples;
    const t0 = performance.now();
    const worker = async (w: number) => {
      for (;;) {
        invokes++;
        const r = await invoke(w);
        const key = r.reason_code ?? r.state ?? 'unknown';
        answers[key] = (answers[key] ?? 0) + 1;
        if (r.reason_code === 'budget_exhausted') return;
        if (r.reason_code === 'in_flight_limit')
          await new Promise((res) => setTimeout(res, 5 + Math.random() * 20));
      }
    };
    try {
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    } finally {
      sampled = await sampler.stop();
    }
    const { waits, samples } = sampled;
    const wallMs = performance.now() - t0;
    const cpu = cpuSpent(cpuBefore!, hubs.cpuMs()!, 1);
    const commits = (await hubs.commits()) ?? { batches: 0, writes: 0 };
    await stats.query('SELECT pg_stat_clear_snapshot()');
    const transactions = (await xacts()) - xactsBefore;
    // a statement a function runs (the event sequencer's pass) is listed, marked, and not counted again
    const { rows: top } = await stats.query<{
      query: string;
      calls: number;
      total: number;
      toplevel: boolean;
    }>(
      `SELECT CASE WHEN toplevel THEN '' ELSE '(in a function) ' END || regexp_replace(query, '\\s+', ' ', 'g') AS query,
              calls::int, total_exec_time AS total, toplevel
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
       AND query NOT LIKE '%pg_stat%' ORDER BY calls DESC`,
      [db],
    );
    const view = await hubs.get(`/agent/v1/tasks/${taskId}`);
    await stats.end();
    const exact =
      view.writes_used === BUDGET && answers.succeeded === BUDGET && view.in_flight === 0
        ? 'exact'
        : `NOT EXACT (writes_used ${view.writes_used}, succeeded ${answers.succeeded}, in flight ${view.in_flight})`;
    return {
      from,
      invokes,
      refused: invokes - (answers.succeeded ?? 0),
      wallMs,
      hubCpuMs: cpu.total,
      hubMainMs: cpu.main,
      statements: top.reduce((a, s) => a + (s.toplevel ? s.calls : 0), 0),
      transactions,
      batches: commits.batches - commitsBefore.batches,
      changes: commits.writes - commitsBefore.writes,
      waits,
      samples,
      top,
      answers,
      exact,
      load,
    };
  } finally {
    await hubs.close();
  }
}

const rounds: Round[] = [];
try {
  for (let n = 0; n < ROUNDS * checkouts.length; n++) {
    const r = await round(n, checkouts[n % checkouts.length]!);
    rounds.push(r);
    const per = (v: number) => (v / r.invokes).toFixed(2);
    heading(
      `Round ${n + 1}: ${INSTANCES} Hubs from ${r.from}, ${WORKERS} callers, budget ${BUDGET}, in-flight ${IN_FLIGHT}, ${DELAY_MS} ms write (load ${r.load})`,
    );
    console.log(`answers ${JSON.stringify(r.answers)}: ${r.exact}`);
    console.log(
      `${r.invokes} invokes in ${r.wallMs.toFixed(0)} ms: ${((r.invokes * 1000) / r.wallMs).toFixed(0)} invokes/s, ` +
        `${((r.refused * 1000) / r.wallMs).toFixed(0)} refusals/s`,
    );
    console.log(
      `per invoke: Hub CPU ${per(r.hubCpuMs)} ms (main threads ${per(r.hubMainMs)}), statements ${per(r.statements)}, ` +
        `transactions ${per(r.transactions)} (pg_stat_database: each statement outside a transaction is one — the invoke's reads), group-commit batches ${per(r.batches)} (${(r.changes / Math.max(1, r.batches)).toFixed(1)} changes each)`,
    );
    // every batch takes the task row, and while the row is contended (a Lock wait in the table
    // below at most samples) they hold it one after another: the wall time per batch is its hold
    console.log(
      `the task row per batch: ${(r.wallMs / Math.max(1, r.batches)).toFixed(1)} ms of the run (its wall time / the batches)`,
    );
    console.log(
      table(
        ['statement (by calls)', 'calls', 'per invoke', 'total ms'],
        r.top
          .slice(0, 14)
          .map((s) => [s.query.slice(0, 100), String(s.calls), per(s.calls), s.total.toFixed(0)]),
      ),
    );
    console.log(`the Hubs' busy connections (${r.samples} samples of pg_stat_activity):`);
    console.log(
      table(
        ['wait', 'connection-samples', 'mean connections'],
        [...r.waits]
          .sort((a, b) => b[1] - a[1])
          .map(([w, k]) => [w, String(k), (k / Math.max(1, r.samples)).toFixed(2)]),
      ),
    );
  }
  if (rounds.length > 1) {
    heading('Rounds side by side');
    console.log(
      table(
        [
          'checkout',
          'invokes/s',
          'refusals/s',
          'Hub CPU ms/invoke',
          'statements/invoke',
          'transactions/invoke',
          'load',
        ],
        rounds.map((r) => [
          r.from,
          ((r.invokes * 1000) / r.wallMs).toFixed(0),
          ((r.refused * 1000) / r.wallMs).toFixed(0),
          (r.hubCpuMs / r.invokes).toFixed(2),
          (r.statements / r.invokes).toFixed(2),
          (r.transactions / r.invokes).toFixed(2),
          r.load,
        ]),
      ),
    );
  }
} finally {
  await http.close();
  await shop.close();
  await admin.end();
  cluster.stop();
}
