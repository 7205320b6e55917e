// The SQLite writer sums a batch's task state counts and writes them once (writer/state-counts.ts)
// instead of change by change. The counts must stay those of the invocation rows, and the task views
// of the batch must show them: after a batch, after a batch rolled back and run again write by
// write, and after one write of such a batch undone alone (each test fails when the sums are not
// dropped with what was rolled back, or not written before the views).
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
import type { WriteAnswer } from '../../src-hub/store/sqlite/writer/protocol.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import type { TaskView } from '../../src-shared/hub-api.js';
import {
  AT,
  audit,
  dispatchChange,
  invocation,
  MISSING_APPROVAL_DECISION,
  permitFor,
  seedCatalog,
  task,
} from './fixtures.js';
import { runChanges } from './writer-changes.js';

let dir: string;
let store: HubStore;
let db: Database.Database;
let committer: ReturnType<typeof createGroupCommitter>;
let taskId: string;
/** Statements that wrote task_state_counts. */
let countWrites: number;
/** The audit kind whose entry fails to be written (a fault after the change's counts), while > 0 times. */
let failAuditOf: { kind: string; times: number };

function faulty(inner: SqlSession): SqlSession {
  return {
    ...inner,
    dialect: inner.dialect,
    write: ((sql: string, params?: never[], expect?: number) => {
      if (sql.startsWith('INSERT INTO task_state_counts')) countWrites += 1;
      if (failAuditOf.times > 0 && sql.startsWith('INSERT INTO audit') && params?.[2] === failAuditOf.kind) {
        failAuditOf.times -= 1;
        throw new Error('injected: the audit entry cannot be written');
      }
      return inner.write(sql, params, expect);
    }) as SqlSession['write'],
  };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-state-counts-'));
  store = createSqliteStore({ dataDir: dir });
  await seedCatalog(store);
  const t = task({ budget: 1000 });
  taskId = t.task_id;
  await store.createTask(t, audit);
  await store.flushEvents();
  db = connectWriter(dir);
  countWrites = 0;
  failAuditOf = { kind: '', times: 0 };
  committer = createGroupCommitter(db, { sql: faulty(createSqliteSession(db)), rules: STORE_RULES });
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...changes: InvocationChange[]): WriteAnswer[] => runChanges(committer, changes);
const permit = (): [InvocationRecord, InvocationChange] => {
  const rec = invocation({ task_id: taskId });
  return [rec, dispatchChange(rec, { permit: permitFor(taskId), audit })];
};
const settle = (rec: InvocationRecord, extra: Partial<InvocationChange> = {}): InvocationChange => ({
  invocation_id: rec.invocation_id,
  from: 'dispatching',
  to: 'succeeded',
  at: AT,
  audit,
  patch: { dispatch: 'confirmed', business_status: 200 },
  release_permit: { now_ms: Date.parse(AT) + 1 },
  ...extra,
});

/** The kept counts, the counts of the invocation rows, and those the last task view showed. */
function counts() {
  const kept = Object.fromEntries(
    (
      db
        .prepare('SELECT state, n FROM task_state_counts WHERE task_id = ? AND n > 0 ORDER BY state')
        .all(taskId) as Array<{ state: string; n: number }>
    ).map((r) => [r.state, r.n]),
  );
  const rows = Object.fromEntries(
    (
      db
        .prepare(
          'SELECT state, COUNT(*) AS n FROM invocations WHERE task_id = ? GROUP BY state ORDER BY state',
        )
        .all(taskId) as Array<{ state: string; n: number }>
    ).map((r) => [r.state, r.n]),
  );
  const payload = db
    .prepare("SELECT payload_json FROM events WHERE type = 'task.changed' ORDER BY seq DESC LIMIT 1")
    .pluck()
    .get() as string;
  const view = (JSON.parse(payload) as { task: TaskView }).task;
  const shown = Object.fromEntries(Object.entries(view.counts).filter(([, n]) => n > 0));
  return { kept, rows, shown };
}

describe('SQLite writer: the task state counts of a batch, summed', () => {
  it("a batch writes its task's counts in one statement, and its view shows them", () => {
    const [a, ca] = permit();
    const [b, cb] = permit();
    expect(run(ca, cb).every((x) => x.ok)).toBe(true);
    countWrites = 0;
    const fresh = Array.from({ length: 14 }, () => permit());
    const answers = run(
      settle(a),
      settle(b, { to: 'unknown', patch: { dispatch: 'attempted' } }),
      ...fresh.map(([, c]) => c),
    );
    expect(answers.every((x) => x.ok)).toBe(true);
    expect(countWrites).toBe(1);
    const c = counts();
    expect(c.rows).toEqual({ dispatching: 14, succeeded: 1, unknown: 1 });
    expect(c.kept).toEqual(c.rows);
    expect(c.shown).toEqual(c.rows);
  });

  it('a batch rolled back and run again write by write counts each write once', () => {
    const [a, ca] = permit();
    expect(run(ca)[0]?.ok).toBe(true);
    const [, cb] = permit();
    const [, cc] = permit();
    // the second write fails (an approval that does not exist): the batch runs again alone
    const answers = run(cb, settle(a, { decide_approval: MISSING_APPROVAL_DECISION }), cc);
    expect(answers.map((x) => x.ok)).toEqual([true, false, true]);
    expect(committer.stats.retried).toBe(1);
    const c = counts();
    expect(c.rows).toEqual({ dispatching: 3 });
    expect(c.kept).toEqual(c.rows);
    expect(c.shown).toEqual(c.rows);
  });

  it("a write undone alone takes its counts with it; the batch's other writes keep theirs", () => {
    const [a, ca] = permit();
    expect(run(ca)[0]?.ok).toBe(true);
    const [, cb] = permit();
    // the outcome's audit entry fails after its counts were added: in the batch, and again alone
    failAuditOf = { kind: 'settled-and-failing', times: 2 };
    const answers = run(settle(a, { audit: { ...audit, kind: 'settled-and-failing' } }), cb);
    expect(answers.map((x) => x.ok)).toEqual([false, true]);
    expect(committer.stats.retried).toBe(1);
    const c = counts();
    expect(c.rows).toEqual({ dispatching: 2 });
    expect(c.kept).toEqual(c.rows);
    expect(c.shown).toEqual(c.rows);
  });
});
