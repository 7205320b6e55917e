/**
 * npm run bench:sqlite-permits — where the time of a SQLite permit transaction goes, in the
 * writer's own code. Runs the permit change (new -> dispatching with a task permit, as bench:tasks
 * does, with the gates transitionInvocation adds) through the group committer the writer thread
 * runs, in this process and on this thread, in batches of 1 and of 16 against a fresh store file
 * (synchronous=FULL, as the Hub). Prints per batch size: permits per second, CPU per permit (this
 * process, which here is the writer alone: no thread, no messages), and — in a second pass with a
 * timing session — every statement's calls per permit and mean time, BEGIN/COMMIT/savepoints
 * included, and the time in between (JavaScript of the operation: records, JSON, rules), and the
 * WAL pages a commit writes (that pass does not checkpoint, so every frame stays in the WAL file),
 * in all and by the B-tree (table or index) each page belongs to.
 * Figures are printed, never asserted.
 * BENCH_PERMITS (default 2000) permits; BENCH_BATCHES (default "1,16") batch sizes; BENCH_OUTCOMES=1
 * also records each granted permit's outcome (dispatching -> succeeded, the permit released, as the
 * Hub records a sent write's answer) in the next batch, so the writer's mix is a governed write's.
 * BENCH_TASK=0 sends calls without a task instead (the Hub's governed write in bench:hub: no
 * permit, the session and the operation's rate still checked; the budget is then not spent).
 * BENCH_AB=DIR_A,DIR_B compares two checkouts' group committers instead, batch by batch in this
 * process (bench/lib/committer-ab.ts: CPU per permit, B/A per round; BENCH_ROUNDS, default 6).
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { STORE_RULES } from '../src-hub/store-rules.js';
import { connectWriter, sqliteFile } from '../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../src-hub/store/sqlite/store.js';
import { createGroupCommitter } from '../src-hub/store/sqlite/writer/group-commit.js';
import type { WriteRequest } from '../src-hub/store/sqlite/writer/protocol.js';
import type { SqlSession } from '../src-hub/store/sql/session.js';
import type { InvocationChange, OperationRecord } from '../src-hub/store/types.js';
import type { HttpOperation } from '../src-hub/acc/types.js';
import { compareCommitters } from './lib/committer-ab.js';
import { benchIdsLabel } from './lib/invocation-ids.js';
import { runPermitJob } from './lib/permit-job.js';
import { createBenchTask } from './lib/permit-record.js';
import { heading, table } from './lib/print.js';
import { outcomeChange, permitChange as writePermitChange } from './lib/writer-changes.js';

const PERMITS = Number(process.env.BENCH_PERMITS ?? 2000);
const BATCHES = (process.env.BENCH_BATCHES ?? '1,16').split(',').map(Number);
const OUTCOMES = process.env.BENCH_OUTCOMES === '1';
const TASKED = process.env.BENCH_TASK !== '0';

const operation: HttpOperation = {
  tool: 'update_product_content',
  description: 'Update a product description',
  method: 'PATCH',
  path_template: '/products/{product_id}',
  path_params: ['product_id'],
  query_params: [],
  body_params: ['description'],
  has_body: true,
  body_required: true,
  input_schema: {
    type: 'object',
    properties: { product_id: { type: 'integer' }, description: { type: 'string', maxLength: 2000 } },
    required: ['product_id', 'description'],
    additionalProperties: false,
  },
  effect: 'write',
  declared_readonly: false,
  side_effect: 'write',
  risk_level: 'low',
  approval: { required: false, prompt: null, when: [] },
  idempotent: true,
  timeout_ms: 10_000,
  rate_limit: null,
  scope: 'products:write',
  subject_required: false,
  audit_sensitive: false,
  guidance: null,
  declaration_revision: 'rev-bench',
};

const BENCH_OPERATION: OperationRecord = {
  system_id: 'bench-shop',
  tool: operation.tool,
  declaration_revision: operation.declaration_revision,
  operation,
};

interface Timing {
  calls: number;
  ms: number;
}

/** A session that times every statement by its SQL text. */
function timed(inner: SqlSession, timings: Map<string, Timing>): SqlSession {
  const time =
    <A extends unknown[], R>(fn: (...a: A) => R) =>
    (...a: A): R => {
      const t0 = performance.now();
      const r = fn(...a);
      const key = String(a[0]).replace(/\s+/g, ' ').slice(0, 100);
      const t = timings.get(key) ?? { calls: 0, ms: 0 };
      t.calls += 1;
      t.ms += performance.now() - t0;
      timings.set(key, t);
      return r;
    };
  return {
    dialect: inner.dialect,
    all: time(inner.all.bind(inner)) as SqlSession['all'],
    get: time(inner.get.bind(inner)) as SqlSession['get'],
    run: time(inner.run.bind(inner)),
    write: time(inner.write.bind(inner)),
  };
}

/** BEGIN/COMMIT/SAVEPOINT statements the committer prepares, timed the same way. */
function timePrepared(db: Database.Database, timings: Map<string, Timing>): () => void {
  const original = db.prepare;
  const prepare = db.prepare.bind(db);
  (db as { prepare: unknown }).prepare = (sql: string) => {
    const stmt = prepare(sql);
    const run = stmt.run.bind(stmt);
    (stmt as { run: unknown }).run = (...a: unknown[]) => {
      const t0 = performance.now();
      const r = run(...a);
      const t = timings.get(sql) ?? { calls: 0, ms: 0 };
      t.calls += 1;
      t.ms += performance.now() - t0;
      timings.set(sql, t);
      return r;
    };
    return stmt;
  };
  return () => {
    (db as { prepare: unknown }).prepare = original;
  };
}

/**
 * The WAL frames written after `from` (bytes), counted by the B-tree (table or index) their page
 * belongs to now (dbstat). A frame is a 24-byte header (the page number first) and one page.
 */
function walPagesByTree(db: Database.Database, walFile: string, from: number, pageSize: number) {
  const owner = new Map<number, string>();
  for (const r of db.prepare('SELECT name, pageno FROM dbstat').all() as { name: string; pageno: number }[])
    owner.set(r.pageno, r.name);
  const wal = readFileSync(walFile);
  const byTree = new Map<string, number>();
  for (let at = Math.max(from, 32); at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const name = owner.get(wal.readUInt32BE(at)) ?? '(free page)';
    byTree.set(name, (byTree.get(name) ?? 0) + 1);
  }
  return byTree;
}

async function setUp(dir: string, budget: number) {
  const store = createSqliteStore({ dataDir: dir });
  try {
    return await createBenchTask(store, budget);
  } finally {
    await store.close();
  }
}

const permitChange = (taskId: string, session: string): InvocationChange =>
  writePermitChange(TASKED ? taskId : null, session, BENCH_OPERATION);

async function measure(batch: number, timings: Map<string, Timing> | null) {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-permits-'));
  try {
    const budget = PERMITS - 100;
    const taskId = await setUp(dir, budget);
    const db = connectWriter(dir);
    const untime = timings ? timePrepared(db, timings) : () => undefined;
    // the timed pass keeps every frame in the WAL (no checkpoint), so its size counts the pages written
    if (timings) db.pragma('wal_autocheckpoint = 0');
    const walBytes = () => statSync(`${sqliteFile(dir)}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const wal0 = walBytes();
    const sql = createSqliteSession(db);
    const committer = createGroupCommitter(db, {
      sql: timings ? timed(sql, timings) : sql,
      rules: STORE_RULES,
    });
    untime(); // only the committer's own statements (BEGIN, COMMIT, savepoints) are timed by text
    const session = `session_${randomUUID()}`;
    let id = 0;
    let granted = 0;
    let refused = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let dispatched: string[] = [];
    const change = (r: WriteRequest) => r.args[0] as InvocationChange;
    for (let done = 0; done < PERMITS; done += batch) {
      const requests: WriteRequest[] = dispatched.map((inv) => ({
        id: ++id,
        op: 'applyInvocationChange',
        args: [outcomeChange(inv)],
      }));
      dispatched = [];
      for (let i = 0; i < Math.min(batch, PERMITS - done); i++)
        requests.push({ id: ++id, op: 'applyInvocationChange', args: [permitChange(taskId, session)] });
      committer.run(requests).answers.forEach((a, k) => {
        if (!a.ok) throw new Error(a.error.message);
        const req = requests[k]!;
        if (change(req).from !== 'new') return;
        if ((a.value as { kind: string }).kind !== 'applied') refused += 1;
        else {
          granted += 1;
          if (OUTCOMES) dispatched.push(change(req).invocation_id);
        }
      });
    }
    committer.publishViews();
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    // a WAL frame is a 24-byte header and one page; the file starts with a 32-byte header
    const frames = (walBytes() - Math.max(wal0, 32)) / (pageSize + 24);
    const byTree = timings ? walPagesByTree(db, `${sqliteFile(dir)}-wal`, wal0, pageSize) : null;
    const used = db.prepare('SELECT writes_used FROM tasks WHERE task_id = ?').get(taskId) as {
      writes_used: number;
    };
    db.close();
    return {
      perSecond: (PERMITS / wallMs) * 1000,
      cpuUs: (cpu.user + cpu.system) / PERMITS,
      pagesPerCommit: frames / Math.max(1, committer.stats.batches),
      commits: committer.stats.batches,
      byTree,
      budget: TASKED
        ? `${granted} granted, ${refused} refused, writes_used ${used.writes_used} of ${budget}: ${
            granted === budget && used.writes_used === budget ? 'exact' : 'NOT EXACT'
          }`
        : `${granted} dispatched, ${refused} refused (no task)`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same permits through the real store (transitionInvocation, writer thread, messages), as bench:tasks runs them. */
async function throughStore(concurrency: number) {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-permits-'));
  try {
    const budget = PERMITS - 100;
    const taskId = await setUp(dir, budget);
    const r = await runPermitJob({
      kind: 'permits',
      store: { dataDir: dir },
      client_id: 'bench',
      task_id: taskId,
      run: {
        run_id: 'run-bench',
        client_id: 'bench',
        agent_session_id: `session_${randomUUID()}`,
        turn_id: 'bench',
        authorization_ref: 'auth-bench-shop',
        state: 'open',
        created_at: new Date().toISOString(),
        ended_at: null,
      },
      operation: BENCH_OPERATION,
      calls: PERMITS,
      concurrency,
    });
    const granted = r.states.applied ?? 0;
    const exact = granted === budget && r.extra.writes_used === budget;
    return [
      String(concurrency),
      String(PERMITS),
      ((PERMITS / r.wallMs) * 1000).toFixed(0),
      r.extra.commits ? (PERMITS / r.extra.commits).toFixed(1) : '-',
      r.extra.cpu_us_per_permit.toFixed(0),
      `${granted} granted, writes_used ${r.extra.writes_used} of ${budget}: ${exact ? 'exact' : 'NOT EXACT'}`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const AB = (process.env.BENCH_AB ?? '')
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean);
if (AB.length === 2) {
  await compareCommitters(
    AB.map((r) => resolve(r)),
    {
      permits: PERMITS,
      batches: BATCHES,
      rounds: Number(process.env.BENCH_ROUNDS ?? 6),
      outcomes: OUTCOMES,
      permitChange,
      outcomeChange,
    },
  );
  process.exit(0);
}

if (process.env.BENCH_STORE !== '0' && TASKED) {
  heading(
    `SQLite permits through the store (writer thread), this process (load ${loadavg()[0]!.toFixed(2)}; ${benchIdsLabel()})`,
  );
  const rows: string[][] = [];
  for (const conc of BATCHES) rows.push(await throughStore(conc));
  console.log(
    table(['conc', 'permits', 'permits/s', 'per commit', 'CPU µs/permit (all threads)', 'budget'], rows),
  );
}

heading(
  `SQLite ${TASKED ? 'permit transaction' : 'dispatching change without a task'} in the writer's code${OUTCOMES ? ', each with its outcome in the next batch' : ''}, in-process (load ${loadavg()[0]!.toFixed(2)}; ${benchIdsLabel()})`,
);
const rows: string[][] = [];
const detail: Array<[number, Map<string, Timing>]> = [];
const trees: Array<[number, Map<string, number>, number]> = [];
for (const batch of BATCHES) {
  const r = await measure(batch, null);
  const timings = new Map<string, Timing>();
  const t = await measure(batch, timings);
  rows.push([
    String(batch),
    String(PERMITS),
    r.perSecond.toFixed(0),
    r.cpuUs.toFixed(0),
    t.pagesPerCommit.toFixed(1),
    r.budget,
  ]);
  detail.push([batch, timings]);
  if (t.byTree) trees.push([batch, t.byTree, t.commits]);
}
console.log(table(['batch', 'permits', 'permits/s', 'CPU µs/permit', 'WAL pages/commit', 'budget'], rows));
for (const [batch, timings] of detail) {
  heading(`statements per permit, batch of ${batch} (a timed pass)`);
  const sorted = [...timings].sort((a, b) => b[1].ms - a[1].ms);
  const total = sorted.reduce((n, [, t]) => n + t.ms, 0);
  console.log(
    table(
      ['µs per permit', 'per permit', 'mean µs', 'statement'],
      sorted.map(([sql, t]) => [
        ((t.ms * 1000) / PERMITS).toFixed(1),
        (t.calls / PERMITS).toFixed(2),
        ((t.ms * 1000) / t.calls).toFixed(1),
        sql,
      ]),
    ),
  );
  console.log(`all statements: ${((total * 1000) / PERMITS).toFixed(0)} µs per permit`);
}
for (const [batch, byTree, commits] of trees) {
  heading(`WAL pages per commit by B-tree, batch of ${batch} (the timed pass)`);
  const sorted = [...byTree].sort((a, b) => b[1] - a[1]);
  console.log(
    table(
      ['pages/commit', 'B-tree (table or index)'],
      sorted.map(([name, n]) => [(n / Math.max(1, commits)).toFixed(1), name]),
    ),
  );
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
