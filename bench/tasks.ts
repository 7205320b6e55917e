/**
 * npm run bench:tasks — task permits under contention: permits per second and p50/p99 latency of
 * task-bound governed writes with 1 and 16 concurrent clients on one task, the latency of the
 * permit transaction alone (check + grant + `dispatching`, fsynced), and the cost of a governed
 * call with a task versus without. Figures are printed, never asserted. BENCH_CALLS (default 300).
 */
import { randomUUID } from 'node:crypto';
import { newId } from '../src-hub/ids.js';
import { transitionInvocation } from '../src-hub/invocations/transition.js';
import type { InvocationRecord } from '../src-hub/store/types.js';
import { BENCH_SHOP } from './lib/bench-shop.js';
import { startBenchHub } from './lib/hub-env.js';
import { fmt, heading, summaryRow, SUMMARY_HEADERS, table } from './lib/print.js';
import { runConcurrent, summarize, type Summary } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const CONCURRENCY = [1, 16];

const AUTH = BENCH_SHOP.authorization_ref;

const env = await startBenchHub();
try {
  // The bench shop is demo shop A without a declared rate limit (bench/lib/bench-shop.ts).
  const write = await env.declaration(AUTH, 'update_product_content');
  const read = await env.declaration(AUTH, 'get_product');
  // Task-bound calls come from one agent session (enrolled in the task by its first call); the
  // calls without a task come from another session, which a task enrollment would refuse.
  const runId = await env.run(AUTH);
  const freeRunId = await env.run(AUTH);
  const task = await env.post('/agent/v1/tasks', {
    title: 'bench',
    authorizations: [{ authorization_ref: AUTH, tools: ['update_product_content', 'get_product'] }],
    write_budget: 1_000_000,
    in_flight_limit: 10_000,
  });
  const taskId = task.body.task_id as string;
  const call = (tool: 'get_product' | 'update_product_content', withTask: boolean) => async () => {
    const r = await env.post('/agent/v1/invocations', {
      invocation_id: `bench_${randomUUID()}`,
      run_id: withTask ? runId : freeRunId,
      authorization_ref: AUTH,
      tool,
      declaration_revision: tool === 'get_product' ? read.declaration_revision : write.declaration_revision,
      arguments:
        tool === 'get_product'
          ? { product_id: 42 }
          : { product_id: 42, description: `bench ${randomUUID()}` },
      host_call_id: 'bench',
      ...(withTask ? { task_id: taskId } : {}),
    });
    if (r.body.state !== 'succeeded') throw new Error(JSON.stringify(r.body));
  };

  const results = new Map<string, Summary>();
  const measure = async (label: string, fn: () => Promise<void>) => {
    await runConcurrent(20, 4, fn);
    for (const conc of CONCURRENCY) {
      const { samples, wallMs } = await runConcurrent(CALLS, conc, fn);
      results.set(`${label}@${conc}`, summarize(samples, wallMs));
    }
  };
  await measure('task-bound write (permit + send)', call('update_product_content', true));
  await measure('read with task', call('get_product', true));
  await measure('read without task', call('get_product', false));

  // The permit transaction alone, through the real store: new -> dispatching with a permit, then released.
  const ctx = env.hub.ctx;
  const op = (await ctx.store.currentOperation(BENCH_SHOP.system_id, 'update_product_content'))!;
  const run = (await ctx.store.getRun(runId))!;
  const permitOnly = async () => {
    const at = ctx.now();
    const id = `perm_${randomUUID()}`;
    const rec: InvocationRecord = {
      invocation_id: id,
      client_id: 'bench',
      run_id: run.run_id,
      agent_session_id: run.agent_session_id,
      turn_id: run.turn_id,
      authorization_ref: AUTH,
      authorization_revision: 1,
      system_id: BENCH_SHOP.system_id,
      tool: op.tool,
      declaration_revision: op.declaration_revision,
      operation: op.operation,
      arguments: { product_id: 42 },
      parameter_digest: id,
      host_call_id: 'bench',
      task_id: taskId,
      effect: 'write',
      state: 'not_dispatched',
      dispatch: 'none',
      reason_code: null,
      reason_message: null,
      retry_after_ms: null,
      result: null,
      result_truncated: false,
      business_status: null,
      approval_id: null,
      reconciliation: [],
      permit_id: null,
      owner_instance: null,
      owner_incarnation: null,
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
    };
    const r = await transitionInvocation(ctx, {
      invocation_id: id,
      from: 'new',
      to: 'dispatching',
      create: rec,
      patch: { dispatch: 'attempted' },
      permit: {
        task_id: taskId,
        effect: 'write',
        now_ms: at.getTime(),
        window_ms: null,
        permit_id: newId('prm'),
        refused_to: 'not_dispatched',
      },
      audit: { actor: 'bench', kind: 'invocation.created', detail: {} },
    });
    if (r.kind !== 'applied') throw new Error('permit refused');
    granted.push(id);
  };
  const granted: string[] = [];
  const permitResults = new Map<number, Summary>();
  for (const conc of CONCURRENCY) {
    const { samples, wallMs } = await runConcurrent(CALLS, conc, permitOnly);
    permitResults.set(conc, summarize(samples, wallMs));
  }
  // release the micro-benchmark's permits (outside the timed part) so the task's in-flight is 0 again
  for (const id of granted) {
    await transitionInvocation(ctx, {
      invocation_id: id,
      from: 'dispatching',
      to: 'unknown',
      release_permit: { now_ms: Date.now() },
      patch: { reason_code: 'benchmark_only', reason_message: 'permit micro-benchmark: never sent' },
      audit: { actor: 'bench', kind: 'invocation.dispatched', detail: {} },
    });
  }

  heading('Task permits under contention (one task, loopback, demo shop)');
  console.log(`calls per case: ${CALLS}; Hub store: ${env.hub.store.durability}`);
  console.log(
    'business system: demo shop A data and operations, spec without execution.rate_limit (system bench-shop)',
  );
  const rows: Array<Array<string | number>> = [];
  for (const label of ['task-bound write (permit + send)', 'read with task', 'read without task']) {
    for (const conc of CONCURRENCY) rows.push(summaryRow(label, conc, results.get(`${label}@${conc}`)!));
  }
  for (const conc of CONCURRENCY)
    rows.push(summaryRow('permit transaction only', conc, permitResults.get(conc)!));
  console.log(table(SUMMARY_HEADERS, rows));
  console.log(
    '(calls/s of a task-bound write = permits granted per second; "permit transaction only" = check + grant + dispatching, one fsynced SQLite transaction)',
  );

  heading('Cost of a task (governed read with task / without task)');
  console.log(
    table(
      ['conc', 'p50 ratio', 'p99 ratio', 'throughput ratio'],
      CONCURRENCY.map((conc) => {
        const w = results.get(`read with task@${conc}`)!;
        const wo = results.get(`read without task@${conc}`)!;
        return [
          String(conc),
          `${fmt(w.p50_ms / wo.p50_ms)}x`,
          `${fmt(w.p99_ms / wo.p99_ms)}x`,
          `${fmt(wo.per_s / w.per_s)}x`,
        ];
      }),
    ),
  );
  const v = await fetch(`${env.hub.url}/agent/v1/tasks/${taskId}`, {
    headers: { authorization: `Bearer ${env.token}` },
  }).then((r) => r.json());
  console.log(
    `\ntask accounting: permits_granted=${v.permits_granted} writes_used=${v.writes_used} in_flight=${v.in_flight}`,
  );
} finally {
  await env.close();
}
