// The SQLite writer keeps, for one transaction, the task rows its permit gates read, brought up to
// date by each grant and written once for all of them (writer/task-rows.ts), so a batch's permits
// of one task read the row once and write it once. The decisions must stay exactly those of one
// change at a time, and the stored row and the views exact: after grants, releases and refunds in
// the same batch, a task paused in the middle of a batch, a rate window, and a grant undone alone
// (each test fails when the corresponding drop or write of the grants is taken out).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlSession } from '../../src-hub/store/sql/session.js';
import { connectWriter } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import type { WriteAnswer, WriteRequest } from '../../src-hub/store/sqlite/writer/protocol.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type {
  HubStore,
  InvocationChange,
  InvocationChangeResult,
  InvocationRecord,
  TaskChange,
  TaskRecord,
} from '../../src-hub/store/types.js';
import type { TaskView } from '../../src-shared/hub-api.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';

let dir: string;
let store: HubStore;
let db: Database.Database;
let committer: ReturnType<typeof createGroupCommitter>;
let taskId: string;
let nextId = 0;
/** Reads of a task row by the writer (the permit gates' and the views'). */
let taskReads: number;
/** The writes of the counters of a task row, while not null. */
let taskRowWrites: string[] | null = null;
/** The audit kind whose entry fails to be written (a fault after the change's grant), while > 0 times. */
let failAuditOf: { kind: string; times: number };

function faulty(inner: SqlSession): SqlSession {
  return {
    ...inner,
    dialect: inner.dialect,
    get: ((sql: string, params?: never[]) => {
      if (sql.startsWith('SELECT * FROM tasks WHERE task_id = ?')) taskReads += 1;
      return inner.get(sql, params);
    }) as SqlSession['get'],
    write: ((sql: string, params?: never[], expect?: number) => {
      if (sql.startsWith('UPDATE tasks SET writes_used')) taskRowWrites?.push(sql);
      if (failAuditOf.times > 0 && sql.startsWith('INSERT INTO audit') && params?.[2] === failAuditOf.kind) {
        failAuditOf.times -= 1;
        throw new Error('injected: the audit entry cannot be written');
      }
      return inner.write(sql, params, expect);
    }) as SqlSession['write'],
  };
}

async function open(budget: number, inFlight: number) {
  const t = task({ budget, inFlight });
  taskId = t.task_id;
  await store.createTask(t, audit);
  await store.flushEvents();
  db = connectWriter(dir);
  committer = createGroupCommitter(db, { sql: faulty(createSqliteSession(db)), rules: STORE_RULES });
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-task-rows-'));
  store = createSqliteStore({ dataDir: dir });
  await seedCatalog(store);
  taskReads = 0;
  failAuditOf = { kind: '', times: 0 };
});
afterEach(async () => {
  db?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (op: WriteRequest['op'], arg: unknown): WriteRequest => ({
  id: ++nextId,
  op,
  args: [structuredClone(arg)],
});
const run = (...changes: InvocationChange[]): WriteAnswer[] =>
  committer.run(changes.map((c) => request('applyInvocationChange', c))).answers;
const kinds = (answers: WriteAnswer[]) =>
  answers.map((a) => {
    if (!a.ok) return 'failed';
    const r = a.value as InvocationChangeResult;
    return r.kind === 'refused' ? `refused:${r.refusal.code}` : r.kind;
  });
const permit = (kind = audit.kind): [InvocationRecord, InvocationChange] => {
  const rec = invocation({ task_id: taskId });
  return [rec, dispatchChange(rec, { permit: permitFor(taskId), audit: { ...audit, kind } })];
};
const settle = (rec: InvocationRecord, refund = false): InvocationChange => ({
  invocation_id: rec.invocation_id,
  from: 'dispatching',
  to: refund ? 'not_dispatched' : 'succeeded',
  at: AT,
  audit,
  release_permit: { now_ms: Date.parse(AT) + 1, ...(refund ? { refund: true } : {}) },
});
const stored = () =>
  db
    .prepare('SELECT writes_used, permits_granted, permits_open FROM tasks WHERE task_id = ?')
    .get(taskId) as { writes_used: number; permits_granted: number; permits_open: number };

describe('SQLite writer: the task rows of a transaction', () => {
  it("a batch's permits of one task read its row once; the grants keep it up to date: budget and in-flight exact", async () => {
    await open(10, 4);
    const calls = Array.from({ length: 6 }, () => permit());
    taskReads = 0;
    const answers = run(...calls.map(([, c]) => c));
    // one read for the gates, one for the batch's view
    expect(taskReads).toBe(2);
    expect(kinds(answers)).toEqual([
      'applied',
      'applied',
      'applied',
      'applied',
      'refused:in_flight_limit',
      'refused:in_flight_limit',
    ]);
    expect(stored()).toEqual({ writes_used: 4, permits_granted: 4, permits_open: 4 });
  });

  it('a release or a refund in the batch makes the next permit read the row again: each decision as one change at a time', async () => {
    await open(4, 2);
    const [a, ca] = permit();
    const [b, cb] = permit();
    expect(kinds(run(ca, cb))).toEqual(['applied', 'applied']);
    const [, c1] = permit();
    const [r2, c2] = permit();
    const [, c3] = permit();
    const [, c4] = permit();
    const [, c5] = permit();
    // full; a released (one slot); c2 granted; full; b refunded (its slot and its write given
    // back); c4 granted; full again: c5 refused
    const answers = run(c1, settle(a), c2, c3, settle(b, true), c4, c5);
    expect(kinds(answers)).toEqual([
      'refused:in_flight_limit',
      'applied',
      'applied',
      'refused:in_flight_limit',
      'applied',
      'applied',
      'refused:in_flight_limit',
    ]);
    // a, b, c2, c4 granted, b refunded: 3 writes used; c2 and c4 in flight
    expect(stored()).toEqual({ writes_used: 3, permits_granted: 3, permits_open: 2 });
    // c2 released: c6 granted, the budget (4) spent: c7 refused for it
    const [, c6] = permit();
    const [, c7] = permit();
    expect(kinds(run(settle(r2), c6, c7))).toEqual(['applied', 'applied', 'refused:budget_exhausted']);
  });

  it("a task paused in the middle of a batch refuses the batch's later permits", async () => {
    await open(10, 10);
    const [, c1] = permit();
    const [, c2] = permit();
    const pause: TaskChange = { task_id: taskId, from: 'active', to: 'paused', at: AT, audit };
    const answers = committer.run([
      request('applyInvocationChange', c1),
      request('changeTaskState', pause),
      request('applyInvocationChange', c2),
    ]).answers;
    expect(answers.map((a) => a.ok)).toEqual([true, true, true]);
    expect(kinds([answers[0]!, answers[2]!])).toEqual(['applied', 'refused:task_paused']);
    // the pause read the row with c1's grant written (the kept row's grants are written before it)
    const paused = (answers[1] as { value: TaskRecord }).value;
    expect([paused.state, paused.writes_used, paused.permits_granted]).toEqual(['paused', 1, 1]);
    expect(stored()).toEqual({ writes_used: 1, permits_granted: 1, permits_open: 1 });
  });

  it("a batch's grants are written to the task row once, before its view reads it: the view shows them", async () => {
    await open(10, 10);
    const calls = Array.from({ length: 3 }, () => permit());
    const writes: string[] = [];
    taskRowWrites = writes;
    expect(kinds(run(...calls.map(([, c]) => c)))).toEqual(['applied', 'applied', 'applied']);
    taskRowWrites = null;
    expect(writes).toHaveLength(1);
    expect(stored()).toEqual({ writes_used: 3, permits_granted: 3, permits_open: 3 });
    const view = JSON.parse(
      (
        db
          .prepare("SELECT payload_json FROM events WHERE type = 'task.changed' ORDER BY seq DESC LIMIT 1")
          .get() as { payload_json: string }
      ).payload_json,
    ) as { task: TaskView };
    expect([view.task.writes_used, view.task.permits_granted, view.task.in_flight]).toEqual([3, 3, 3]);
  });

  it("with a rate window, a batch's permits in flight are the kept row's (its grants not yet written to the stored row)", async () => {
    await open(10, 2);
    db.prepare('UPDATE tasks SET boundary_json = ? WHERE task_id = ?').run(
      JSON.stringify({ ...task({ inFlight: 2 }).boundary, rate_limit: { count: 100, window: '1m' } }),
      taskId,
    );
    const windowed = () => {
      const rec = invocation({ task_id: taskId });
      return dispatchChange(rec, { permit: { ...permitFor(taskId), window_ms: 60_000 }, audit });
    };
    expect(kinds(run(windowed(), windowed(), windowed(), windowed()))).toEqual([
      'applied',
      'applied',
      'refused:in_flight_limit',
      'refused:in_flight_limit',
    ]);
    expect(stored()).toEqual({ writes_used: 2, permits_granted: 2, permits_open: 2 });
  });

  it('a grant undone alone is not counted by the next permit of its batch', async () => {
    await open(1, 10);
    const [, c1] = permit('granted-then-failing');
    const [, c2] = permit();
    // c1's audit entry fails after its grant: in the batch, and again alone, where it is undone
    failAuditOf = { kind: 'granted-then-failing', times: 2 };
    const answers = run(c1, c2);
    expect(kinds(answers)).toEqual(['failed', 'applied']);
    expect(committer.stats.retried).toBe(1);
    expect(stored()).toEqual({ writes_used: 1, permits_granted: 1, permits_open: 1 });
  });

  it('a grant undone alone is not written by a later write of its batch that writes the kept grants first', async () => {
    await open(10, 10);
    const [, c1] = permit('granted-then-failing');
    failAuditOf = { kind: 'granted-then-failing', times: 2 };
    const pause: TaskChange = { task_id: taskId, from: 'active', to: 'paused', at: AT, audit };
    const answers = committer.run([
      request('applyInvocationChange', c1),
      request('changeTaskState', pause),
    ]).answers;
    expect(answers.map((a) => a.ok)).toEqual([false, true]);
    expect(stored()).toEqual({ writes_used: 0, permits_granted: 0, permits_open: 0 });
  });
});
