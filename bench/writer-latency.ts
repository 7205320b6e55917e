/**
 * npm run bench:writer-latency — where one write's time through the SQLite writer thread goes at
 * concurrency 1: the main thread's post, the message's way to the thread, the batch's transaction,
 * the answer's way back and the caller's resumption. Runs permit changes (and each one's outcome
 * in the next write, as a governed write) one at a time through the writer client with its timing
 * mode on, with BENCH_GAP_US (default 500) of main-thread work between writes (the Hub's work
 * between a call's two commits, so the thread goes idle as in the Hub). Prints medians and p90s (µs).
 * BENCH_WRITES (default 1000) writes.
 * Then the same changes from BENCH_CONCURRENCY (default 16; 0 skips it) calls at once, as a Hub at
 * that concurrency sends them: each call sends its permit, does BENCH_GAP_US of main-thread work,
 * waits BENCH_SHOP_MS (default 1; the business call) without blocking, sends its outcome and does
 * the work again; prints where the writer thread's time went (its transactions, of them the
 * COMMITs, and idle, waiting for changes), writes per commit, the commit cycle and the stages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_RULES } from '../src-hub/store-rules.js';
import { connectWriter } from '../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../src-hub/store/sqlite/session.js';
import { createGroupCommitter } from '../src-hub/store/sqlite/writer/group-commit.js';
import { createSqliteStore } from '../src-hub/store/sqlite/store.js';
import { startSqliteWriter } from '../src-hub/store/sqlite/writer/client.js';
import type { WriterStamps } from '../src-hub/store/sqlite/writer/protocol.js';
import type { InvocationChange, OperationRecord } from '../src-hub/store/types.js';
import { createBenchTask } from './lib/permit-record.js';
import { heading, table } from './lib/print.js';
import { outcomeChange, permitChange as writePermitChange } from './lib/writer-changes.js';

const WRITES = Number(process.env.BENCH_WRITES ?? 1000);
const GAP_US = Number(process.env.BENCH_GAP_US ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SHOP_MS = Number(process.env.BENCH_SHOP_MS ?? 1);

const BENCH_OPERATION = {
  system_id: 'bench-shop',
  tool: 'update_product_content',
  declaration_revision: 'rev-bench',
  operation: {
    tool: 'update_product_content',
    method: 'PATCH',
    path_template: '/products/{product_id}',
    effect: 'write',
    declaration_revision: 'rev-bench',
  },
} as unknown as OperationRecord;

const permitChange = (taskId: string): InvocationChange =>
  writePermitChange(taskId, 'session-bench', BENCH_OPERATION);

const clock = () => Number(process.hrtime.bigint());
const spin = (us: number) => {
  const until = clock() + us * 1000;
  while (clock() < until);
};

const dir = mkdtempSync(join(tmpdir(), 'writer-latency-'));
try {
  const setup = createSqliteStore({ dataDir: dir });
  const taskId = await createBenchTask(setup, WRITES * 2);
  await setup.close();
  let last: { stamps: WriterStamps; arrivedAt: number } | null = null;
  const writer = startSqliteWriter(dir, { onTiming: (stamps, arrivedAt) => (last = { stamps, arrivedAt }) });
  const stages: Record<string, number[]> = {
    'write() to postMessage': [],
    'postMessage to thread handler': [],
    'thread handler to BEGIN': [],
    'transaction (BEGIN..COMMIT, answers)': [],
    'COMMIT returned to postMessage': [],
    'answer post to main handler': [],
    'main handler to caller resumed': [],
    'total (write() to caller resumed)': [],
  };
  const add = (k: string, ns: number) => stages[k]!.push(ns / 1000);
  const one = async (change: InvocationChange, timed: boolean) => {
    last = null;
    const issued = clock();
    const answer = (await writer.write('applyInvocationChange', [change])) as { kind: string };
    const resumed = clock();
    if (answer.kind !== 'applied') throw new Error(`not applied: ${JSON.stringify(answer)}`);
    const l = last as { stamps: WriterStamps; arrivedAt: number } | null;
    if (!timed || !l) return;
    const s = l.stamps;
    add('write() to postMessage', s.postedAt - issued);
    add('postMessage to thread handler', s.receivedAt - s.postedAt);
    add('thread handler to BEGIN', s.runFrom - s.receivedAt);
    add('transaction (BEGIN..COMMIT, answers)', s.runTo - s.runFrom);
    add('COMMIT returned to postMessage', s.answeredAt - s.runTo);
    add('answer post to main handler', l.arrivedAt - s.answeredAt);
    add('main handler to caller resumed', resumed - l.arrivedAt);
    add('total (write() to caller resumed)', resumed - issued);
  };
  for (let i = 0; i < WRITES / 2; i++) {
    const permit = permitChange(taskId);
    const timed = i >= 50; // the first are the thread's warm-up
    await one(permit, timed);
    spin(GAP_US);
    await one(outcomeChange(permit.invocation_id), timed);
    spin(GAP_US);
  }
  await writer.close();
  // the same writes on this thread (no messages), the COMMIT timed apart from the statements
  const db = connectWriter(dir);
  const commitUs: number[] = [];
  const prepare = db.prepare.bind(db);
  (db as { prepare: unknown }).prepare = (sql: string) => {
    const stmt = prepare(sql);
    if (sql !== 'COMMIT') return stmt;
    const run = stmt.run.bind(stmt);
    (stmt as { run: unknown }).run = (...a: unknown[]) => {
      const t0 = clock();
      const r = run(...a);
      commitUs.push((clock() - t0) / 1000);
      return r;
    };
    return stmt;
  };
  const committer = createGroupCommitter(db, { sql: createSqliteSession(db), rules: STORE_RULES });
  const runUs: number[] = [];
  let rid = 0;
  const runOne = (change: InvocationChange) => {
    const t0 = clock();
    const [a] = committer.run([{ id: ++rid, op: 'applyInvocationChange', args: [change] }]).answers;
    runUs.push((clock() - t0) / 1000);
    if (!a?.ok) throw new Error('failed');
    spin(GAP_US);
  };
  for (let i = 0; i < WRITES / 2; i++) {
    const permit = permitChange(taskId);
    runOne(permit);
    runOne(outcomeChange(permit.invocation_id));
  }
  db.close();
  const m = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!.toFixed(0);
  console.log(
    `on this thread: batch p50 ${m(runUs, 0.5)} µs (p90 ${m(runUs, 0.9)}), its COMMIT p50 ${m(commitUs, 0.5)} µs (p90 ${m(commitUs, 0.9)})`,
  );
  const tx = stages['transaction (BEGIN..COMMIT, answers)']!;
  const chunk = 200;
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
  const parts: string[] = [];
  for (let i = 0; i < tx.length; i += chunk) parts.push(med(tx.slice(i, i + chunk)).toFixed(0));
  console.log(`transaction p50 by ${chunk} writes, in order: ${parts.join(' ')}`);
  const q = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? NaN;
  heading(
    `One write at a time through the SQLite writer thread (gap ${GAP_US} µs, load ${loadavg()[0]!.toFixed(2)})`,
  );
  console.log(
    table(
      ['stage', 'p50 µs', 'p90 µs'],
      Object.entries(stages).map(([k, xs]) => [k, q(xs, 0.5).toFixed(0), q(xs, 0.9).toFixed(0)]),
    ),
  );
  if (CONCURRENCY > 0) await concurrent(taskId);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** BENCH_CONCURRENCY calls at once through the writer thread: where the thread's time goes. */
async function concurrent(taskId: string): Promise<void> {
  const batches: Array<{ stamps: WriterStamps; arrivedAt: number }> = [];
  const writer = startSqliteWriter(dir, {
    onTiming: (stamps, arrivedAt) => batches.push({ stamps, arrivedAt }),
  });
  const latencies: number[] = [];
  const write = async (change: InvocationChange) => {
    const t0 = clock();
    const answer = (await writer.write('applyInvocationChange', [change])) as { kind: string };
    latencies.push((clock() - t0) / 1000);
    if (answer.kind !== 'applied') throw new Error(`not applied: ${JSON.stringify(answer)}`);
  };
  const shop = () => new Promise((r) => setTimeout(r, SHOP_MS));
  const call = async () => {
    const permit = permitChange(taskId);
    await write(permit);
    spin(GAP_US);
    await shop();
    await write(outcomeChange(permit.invocation_id));
    spin(GAP_US);
  };
  const run = async (calls: number) => {
    let left = calls;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await call();
      }),
    );
  };
  await run(100); // the thread's warm-up
  batches.length = 0;
  latencies.length = 0;
  const t0 = clock();
  await run(WRITES / 2);
  const wallNs = clock() - t0;
  await writer.close();
  const stats = { writes: latencies.length, batches: batches.length };
  const sum = (f: (b: WriterStamps, arrivedAt: number) => number) =>
    batches.reduce((n, b) => n + f(b.stamps, b.arrivedAt), 0);
  const share = (ns: number) => `${((100 * ns) / wallNs).toFixed(0)} %`;
  const perBatch = (ns: number) => (ns / stats.batches / 1000).toFixed(0);
  const transaction = sum((b) => b.runTo - b.runFrom);
  const commit = sum((b) => b.commitTo - b.commitFrom);
  // idle: from a batch's answers posted to the next batch's message handled
  let idle = 0;
  for (let i = 1; i < batches.length; i++)
    idle += Math.max(0, batches[i]!.stamps.receivedAt - batches[i - 1]!.stamps.answeredAt);
  const q = (xs: number[], p: number) =>
    [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? NaN;
  const stage = (f: (b: WriterStamps, arrivedAt: number) => number) => {
    const xs = batches.map((b) => f(b.stamps, b.arrivedAt) / 1000);
    return [q(xs, 0.5).toFixed(0), q(xs, 0.9).toFixed(0)];
  };
  heading(
    `${CONCURRENCY} calls at once through the SQLite writer thread (gap ${GAP_US} µs, business call ${SHOP_MS} ms, load ${loadavg()[0]!.toFixed(2)})`,
  );
  console.log(
    `${stats.writes} writes in ${(wallNs / 1e6).toFixed(0)} ms: ${((stats.writes / wallNs) * 1e9).toFixed(0)} writes/s, ` +
      `${(stats.writes / stats.batches).toFixed(1)} per commit, a commit every ${perBatch(wallNs)} µs; ` +
      `write p50 ${q(latencies, 0.5).toFixed(0)} µs (p90 ${q(latencies, 0.9).toFixed(0)})`,
  );
  console.log(
    table(
      ['the writer thread', 'share of the time', 'µs per commit'],
      [
        ['in transactions (BEGIN..COMMIT, answers built)', share(transaction), perBatch(transaction)],
        ['  of which COMMIT (its fsync)', share(commit), perBatch(commit)],
        [
          '  of which the statements and their code',
          share(transaction - commit),
          perBatch(transaction - commit),
        ],
        ['idle, waiting for changes', share(idle), perBatch(idle)],
        [
          'the rest (taking messages, posting answers)',
          share(wallNs - transaction - idle),
          perBatch(wallNs - transaction - idle),
        ],
      ],
    ),
  );
  console.log(
    table(
      ['stage, per batch', 'p50 µs', 'p90 µs'],
      [
        ['postMessage to thread handler', ...stage((b) => b.receivedAt - b.postedAt)],
        ['thread handler to BEGIN', ...stage((b) => b.runFrom - b.receivedAt)],
        ['transaction (BEGIN..COMMIT, answers)', ...stage((b) => b.runTo - b.runFrom)],
        ['  its COMMIT', ...stage((b) => b.commitTo - b.commitFrom)],
        ['COMMIT returned to postMessage', ...stage((b) => b.answeredAt - b.runTo)],
        ['answer post to main handler', ...stage((b, arrivedAt) => arrivedAt - b.answeredAt)],
      ],
    ),
  );
}
