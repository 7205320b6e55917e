/**
 * npm run bench:pg-permits — where the time of a PostgreSQL permit transaction goes. Runs the
 * permit transaction alone (new -> dispatching with a task permit, as bench:tasks does) against a
 * private PostgreSQL started with pg_stat_statements, and prints: permits per second, statements
 * per permit (statements the server executed / permits), each statement's calls, mean and total
 * server time, how many permits each group-commit transaction carried, the permit process's CPU per
 * permit, what the Hub's connections were waiting on (pg_stat_activity sampled every 5 ms),
 * and the server's durability settings (synchronous_commit and fsync stay on: the figures are of
 * a durable server). Then the same for governed writes without a task, as the Hub stores them
 * (the invoke's reads, then new -> dispatching with the operation's rate gate, then dispatching ->
 * succeeded: two changes per call, no task row lock), per call. Figures are printed, never asserted.
 * BENCH_PERMITS (default 2000) permits and calls; BENCH_CONCURRENCY (default "1,16");
 * BENCH_KINDS (default "permits,untasked"; "contend": one task contended by several store instances in
 * this process, bench/lib/contend-job.ts, with BENCH_CONTEND_INSTANCES (3), _WORKERS (90), _BUDGET
 * (150), _IN_FLIGHT (5), _DELAY_MS (40): most requests are refused `in_flight_limit`, and the
 * figures are per request); BENCH_PERMIT_WARMUP (default 0) untimed permits on a
 * task of their own before the timed ones, and as many untimed calls before the timed calls without
 * a task (the store's code compiled, as in a running Hub). The
 * server's CPU per permit is all the cluster's processes' (read from /proc), beside the time its
 * statements spent executing. BENCH_OUTCOMES=1 also records each granted permit's outcome right after
 * it (dispatching -> succeeded, the permit released), so the task's batches carry outcomes beside
 * new permits as a governed write's do; the figures stay per permit.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { startStatsCluster } from './lib/pg-stats-cluster.js';
import { transitionInvocation } from '../src-hub/invocations/transition.js';
import { openPostgresStore } from '../src-hub/store/postgres/store.js';
import type { HubStore, OperationRecord, RunRecord } from '../src-hub/store/types.js';
import { benchIdsLabel, benchInvocationId } from './lib/invocation-ids.js';
import { benchHubContext, runPermitJob, syscallCounts, threadCpuNs, threadSplit } from './lib/permit-job.js';
import { createBenchTask, permitInvocationRecord } from './lib/permit-record.js';
import { runContendJob } from './lib/contend-job.js';
import { runConcurrent } from './lib/stats.js';
import { heading, table } from './lib/print.js';
import { sampleWaits, type WaitSamples } from './lib/pg-waits.js';
import { pgServerCpu, pgServerCpuMs, type PgServerCpu } from './lib/pg-server-cpu.js';

const PERMITS = Number(process.env.BENCH_PERMITS ?? 2000);
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,16').split(',').map(Number);
const KINDS = (process.env.BENCH_KINDS ?? 'permits,untasked').split(',');
const WARMUP = Number(process.env.BENCH_PERMIT_WARMUP ?? 0);
const OUTCOMES = process.env.BENCH_OUTCOMES === '1';
const CONTEND = {
  instances: Number(process.env.BENCH_CONTEND_INSTANCES ?? 3),
  workers: Number(process.env.BENCH_CONTEND_WORKERS ?? 90),
  budget: Number(process.env.BENCH_CONTEND_BUDGET ?? 150),
  inFlight: Number(process.env.BENCH_CONTEND_IN_FLIGHT ?? 5),
  delayMs: Number(process.env.BENCH_CONTEND_DELAY_MS ?? 40),
};
let contendRound = 0;

const { cluster, admin } = await startStatsCluster();

const operation: OperationRecord = {
  system_id: 'bench-shop',
  tool: 'update_product_content',
  declaration_revision: 'rev-1',
  operation: {
    tool: 'update_product_content',
    effect: 'write',
    method: 'PATCH',
    path: '/products/{product_id}',
    description: 'bench',
  } as unknown as OperationRecord['operation'],
};

interface Measured {
  samples: number[];
  wallMs: number;
  /** Lines printed under the heading (exactness, group commit, CPU). */
  lines: string[];
}

/** Runs `job` against database `db` with pg_stat_statements and pg_stat_activity sampling, and prints it all per `unit`. */
async function measure(
  db: string,
  url: string,
  title: string,
  unit: string,
  job: (beforeTimed: () => Promise<void>) => Promise<Measured>,
) {
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  await stats.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  let serverCpuBefore: PgServerCpu | null = null;
  // the statements and the server's CPU are counted from here (after a warm-up, if any)
  const beforeTimed = async () => {
    await stats.query('SELECT pg_stat_statements_reset()');
    serverCpuBefore = pgServerCpu(cluster.port);
  };
  const sampler = sampleWaits(stats, db);
  const load = (await import('node:os')).loadavg()[0]!.toFixed(2);
  let r: Measured;
  let sampled: WaitSamples;
  await beforeTimed();
  try {
    r = await job(beforeTimed);
  } finally {
    sampled = await sampler.stop();
  }
  const { waits, samples } = sampled;
  const serverCpuMs = pgServerCpuMs(serverCpuBefore, pgServerCpu(cluster.port));
  const { rows: statements } = await stats.query<{
    query: string;
    calls: number;
    mean: number;
    total: number;
    toplevel: boolean;
  }>(
    // a statement a function runs (the event sequencer's pass) is listed, marked, and not counted again
    `SELECT CASE WHEN toplevel THEN '' ELSE '(in a function) ' END || regexp_replace(query, '\\s+', ' ', 'g') AS query,
            calls::int, mean_exec_time AS mean, total_exec_time AS total, toplevel
     FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1)
     AND query NOT LIKE '%pg_stat%' ORDER BY total_exec_time DESC`,
    [db],
  );
  const { rows: settings } = await stats.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'commit_delay', 'wal_sync_method') ORDER BY name`,
  );
  await stats.end();

  const n = r.samples.length;
  const calls = statements.reduce((a, s) => a + (s.toplevel ? s.calls : 0), 0);
  const serverMs = statements.reduce((a, s) => a + (s.toplevel ? s.total : 0), 0);
  const perS = (n * 1000) / r.wallMs;
  const sorted = [...r.samples].sort((a, b) => a - b);
  heading(`${title} (load ${load}; ${benchIdsLabel()})`);
  console.log(
    `${n} ${unit}s in ${r.wallMs.toFixed(0)} ms: ${perS.toFixed(0)}/s, p50 ${sorted[Math.floor(n / 2)]!.toFixed(2)} ms`,
  );
  for (const line of r.lines) console.log(line);
  console.log(
    `statements per ${unit}: ${(calls / n).toFixed(1)}; server time per ${unit} ${(serverMs / n).toFixed(3)} ms (executing statements); ` +
      `the server's CPU per ${unit} ${
        serverCpuMs === null
          ? 'n/a'
          : `${(serverCpuMs.total / n).toFixed(3)} ms (${[...serverCpuMs.byKind]
              .filter(([, ms]) => ms > 0)
              .sort((a, b) => b[1] - a[1])
              .map(([kind, ms]) => `${kind} ${(ms / n).toFixed(3)}`)
              .join(', ')}; autovacuum left out, the pg_stat_activity sampler's backend counted)`
      }`,
  );
  console.log(settings.map((s) => `${s.name}=${s.setting}`).join(', '));
  console.log(
    table(
      ['statement', 'calls', 'mean ms', 'total ms'],
      statements
        .slice(0, 25)
        .map((s) => [s.query.slice(0, 110), String(s.calls), s.mean.toFixed(3), s.total.toFixed(1)]),
    ),
  );
  console.log(
    `what the Hub's busy connections waited on (${samples} samples of pg_stat_activity; "active" = running):`,
  );
  console.log(
    table(
      ['wait', 'connection-samples'],
      [...waits].sort((a, b) => b[1] - a[1]).map(([w, k]) => [w, String(k)]),
    ),
  );
}

function newRun(at: string): RunRecord {
  return {
    run_id: `run_${randomUUID()}`,
    client_id: 'bench',
    agent_session_id: `session_${randomUUID()}`,
    turn_id: 'bench',
    authorization_ref: 'auth-bench-shop',
    state: 'open',
    created_at: at,
    ended_at: null,
  };
}

async function permits(conc: number) {
  const db = `permits_${conc}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const url = cluster.urlFor(db);
  const setup = await openPostgresStore({ url });
  const budget = PERMITS - 100; // the last 100 must be refused: the budget is exact
  const taskId = await createBenchTask(setup, budget);
  const warmupTask = WARMUP > 0 ? await createBenchTask(setup, WARMUP) : null;
  await setup.close();
  const at = new Date().toISOString();
  await measure(
    db,
    url,
    `Permit transactions ${OUTCOMES ? 'and their outcomes' : 'alone'} on PostgreSQL, concurrency ${conc}${warmupTask ? `, after ${WARMUP} untimed permits` : ''}`,
    'permit',
    async (beforeTimed) => {
      const r = await runPermitJob({
        ...(warmupTask ? { warmup: { task_id: warmupTask, run: newRun(at), calls: WARMUP } } : {}),
        beforeTimed,
        kind: 'permits',
        store: { url },
        client_id: 'bench',
        task_id: taskId,
        run: newRun(at),
        operation,
        calls: PERMITS,
        concurrency: conc,
        outcomes: OUTCOMES,
      });
      const granted = r.states.applied ?? 0;
      const commits = r.extra?.commits;
      return {
        samples: r.samples,
        wallMs: r.wallMs,
        lines: [
          `${granted} granted / budget ${budget}, writes_used ${r.extra?.writes_used}: ${granted === budget && r.extra?.writes_used === budget ? 'exact' : 'NOT EXACT'}`,
          `group commit: ${commits === undefined ? 'n/a' : `${commits} transactions, ${(Number(r.extra?.committed_writes) / Math.max(1, Number(commits))).toFixed(1)} ${OUTCOMES ? 'changes (permits and outcomes)' : 'permits'} each`}; ` +
            `the permit process's CPU per permit ${(Number(r.extra?.cpu_us_per_permit) / 1000).toFixed(3)} ms` +
            (r.extra?.cpu_us_main_thread === undefined
              ? ''
              : ` (main thread ${(Number(r.extra.cpu_us_main_thread) / 1000).toFixed(3)} ms, busiest other thread ${(Number(r.extra.cpu_us_busiest_other_thread) / 1000).toFixed(3)}, the rest ${(Number(r.extra.cpu_us_rest) / 1000).toFixed(3)})`) +
            (r.extra?.write_syscalls_per_permit === undefined
              ? ''
              : `; system calls per permit: ${Number(r.extra.write_syscalls_per_permit).toFixed(2)} writes, ${Number(r.extra.read_syscalls_per_permit).toFixed(2)} reads` +
                `, bytes per permit: ${Math.round(Number(r.extra.written_bytes_per_permit))} written, ${Math.round(Number(r.extra.read_bytes_per_permit))} read`),
        ],
      };
    },
  );
}

/**
 * The rows an invoke reads before deciding (HubStore.invokeReads): the client, the system, the
 * operation, the authorization granted to the client, and the run.
 */
async function seedCatalog(store: HubStore, run: RunRecord): Promise<void> {
  const at = new Date().toISOString();
  const audit = { actor: 'bench', kind: 'bench.seeded', detail: {} };
  await store.createClient(
    { client_id: run.client_id, name: 'bench', token_hash: 'h', created_at: at },
    audit,
  );
  await store.upsertSystem(
    {
      system_id: operation.system_id,
      name: 'bench shop',
      base_url: 'http://127.0.0.1:9',
      spec_path: '/spec',
      signing_secret: 'sealed',
      spec_signing: 'signed',
      signed_path: 'operation',
      allow_insecure_http: true,
    },
    at,
    audit,
  );
  await store.replaceOperations(operation.system_id, [operation], 'spec-1', [], at, audit);
  await store.createAuthorization(
    {
      authorization_ref: run.authorization_ref,
      system_id: operation.system_id,
      account: 'bench',
      on_behalf_of: 'bench@example.com',
      state: 'active',
      revision: 1,
      created_at: at,
      updated_at: at,
    },
    audit,
  );
  await store.grant(run.authorization_ref, run.client_id, audit);
  await store.createRun(run);
}

/**
 * Governed writes without a task as the Hub stores them, through the real store: the invoke's
 * reads (invokeReads), then through transitionInvocation new -> dispatching (enrollment and
 * operation-rate gates) and, as if the business system answered, dispatching -> succeeded.
 * Nothing is sent.
 */
async function runUntaskedJob(job: {
  url: string;
  run: RunRecord;
  calls: number;
  concurrency: number;
  /** Calls made first, untimed (BENCH_PERMIT_WARMUP). */
  warmup: number;
  beforeTimed(): Promise<void>;
}) {
  const store = await openPostgresStore({ url: job.url });
  await seedCatalog(store, job.run);
  const ctx = await benchHubContext(store, 'bench-untasked');
  let succeeded = 0;
  /** One governed write's store traffic: the invoke's reads, `dispatching`, then `succeeded`. */
  const call = async (): Promise<void> => {
    const at = new Date().toISOString();
    const id = benchInvocationId();
    const reads = await store.invokeReads({
      invocation_id: id,
      run_id: job.run.run_id,
      authorization_ref: job.run.authorization_ref,
      client_id: job.run.client_id,
      tool: operation.tool,
      task_id: null,
    });
    if (!reads.granted || !reads.operation || !reads.system || !reads.run)
      throw new Error('the invoke reads found no granted operation');
    const rec = permitInvocationRecord({
      invocation_id: id,
      client_id: job.run.client_id,
      task_id: null,
      run: job.run,
      operation,
      at: new Date(at),
    });
    const audit = { actor: 'bench', kind: 'invocation.created', detail: {} };
    const sent = await transitionInvocation(ctx, {
      invocation_id: id,
      from: 'new',
      to: 'dispatching',
      create: rec,
      patch: { dispatch: 'attempted' },
      audit,
    });
    if (sent.kind !== 'applied') return;
    const done = await transitionInvocation(ctx, {
      invocation_id: id,
      from: 'dispatching',
      to: 'succeeded',
      at: new Date().toISOString(),
      patch: { dispatch: 'confirmed', business_status: 200 },
      audit: { ...audit, kind: 'invocation.succeeded' },
    });
    if (done.kind === 'applied') succeeded++;
  };
  if (job.warmup > 0) await runConcurrent(job.warmup, job.concurrency, call);
  succeeded = 0;
  await job.beforeTimed();
  const before = (await store.commitStats!())!;
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpuNs();
  const syscallsBefore = syscallCounts();
  try {
    const { samples, wallMs } = await runConcurrent(job.calls, job.concurrency, call);
    const cpu = process.cpuUsage(cpuBefore);
    const syscallsAfter = syscallCounts();
    const threads = threadSplit(threadsBefore, threadCpuNs(), job.calls);
    const after = (await store.commitStats!())!;
    return {
      samples,
      wallMs,
      succeeded,
      commits: after.batches - before.batches,
      writes: after.writes - before.writes,
      cpuUsPerCall: (cpu.user + cpu.system) / job.calls,
      threads,
      syscalls:
        syscallsBefore && syscallsAfter
          ? {
              writes: (syscallsAfter.writes - syscallsBefore.writes) / job.calls,
              reads: (syscallsAfter.reads - syscallsBefore.reads) / job.calls,
            }
          : null,
    };
  } finally {
    await store.close();
  }
}

async function untasked(conc: number) {
  const db = `untasked_${conc}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const url = cluster.urlFor(db);
  await measure(
    db,
    url,
    `Governed writes without a task on PostgreSQL (the invoke's reads, two changes), concurrency ${conc}${WARMUP > 0 ? `, after ${WARMUP} untimed calls` : ''}`,
    'call',
    async (beforeTimed) => {
      const r = await runUntaskedJob({
        url,
        run: newRun(new Date().toISOString()),
        calls: PERMITS,
        concurrency: conc,
        warmup: WARMUP,
        beforeTimed,
      });
      const t = r.threads;
      return {
        samples: r.samples,
        wallMs: r.wallMs,
        lines: [
          `${r.succeeded} of ${PERMITS} calls succeeded; group commit: ${r.commits} transactions, ${(r.writes / Math.max(1, r.commits)).toFixed(1)} changes each; ` +
            `the process's CPU per call ${(r.cpuUsPerCall / 1000).toFixed(3)} ms` +
            (t.cpu_us_main_thread === undefined
              ? ''
              : ` (main thread ${(t.cpu_us_main_thread / 1000).toFixed(3)} ms, V8's helper threads ${((t.cpu_us_busiest_other_thread! + t.cpu_us_rest!) / 1000).toFixed(3)})`) +
            (r.syscalls
              ? `; system calls per call: ${r.syscalls.writes.toFixed(2)} writes, ${r.syscalls.reads.toFixed(2)} reads`
              : ''),
        ],
      };
    },
  );
}

/** One task contended by several instances (bench/lib/contend-job.ts): where a refused call's time goes. */
async function contend() {
  const db = `contend_${contendRound++}`;
  await admin.query(`CREATE DATABASE ${db}`);
  const url = cluster.urlFor(db);
  const setup = await openPostgresStore({ url });
  const taskId = await createBenchTask(setup, CONTEND.budget, CONTEND.inFlight);
  await setup.close();
  const c = CONTEND;
  await measure(
    db,
    url,
    `One task, ${c.instances} instances, ${c.workers} callers, budget ${c.budget}, in-flight ${c.inFlight}, ` +
      `a ${c.delayMs} ms operation; figures per permit request (granted or refused)`,
    'request',
    async (beforeTimed) => {
      const r = await runContendJob({
        url,
        task_id: taskId,
        run: newRun(new Date().toISOString()),
        operation,
        instances: c.instances,
        workers: c.workers,
        delayMs: c.delayMs,
        beforeTimed,
      });
      const n = r.samples.length;
      const refused = n - (r.answers.applied ?? 0);
      const exact = r.writesUsed === c.budget && r.answers.applied === c.budget && r.permitsOpen === 0;
      return {
        samples: r.samples,
        wallMs: r.wallMs,
        lines: [
          `answers: ${JSON.stringify(r.answers)}; granted by instance: ${r.grantedBy.join(' / ')}; ` +
            `writes_used ${r.writesUsed}, in flight after ${r.permitsOpen}: ${exact ? 'exact' : 'NOT EXACT'}`,
          `refusals: ${((refused * 1000) / r.wallMs).toFixed(0)}/s; ` +
            `group commit: ${r.batches} transactions for ${r.changes} changes (requests and outcomes), ` +
            `${(r.changes / Math.max(1, r.batches)).toFixed(2)} changes each, ${(r.batches / n).toFixed(2)} per request; ` +
            `the process's CPU per request ${(r.cpuUs / n / 1000).toFixed(3)} ms; ` +
            `the task row per batch ${(r.wallMs / Math.max(1, r.batches)).toFixed(1)} ms of the run (wall time / batches: they hold it one after another while it is contended)`,
        ],
      };
    },
  );
}

try {
  if (KINDS.includes('contend')) await contend();
  if (KINDS.includes('permits')) for (const conc of CONCURRENCY) await permits(conc);
  if (KINDS.includes('untasked')) for (const conc of CONCURRENCY) await untasked(conc);
} finally {
  await admin.end();
  cluster.stop();
}
