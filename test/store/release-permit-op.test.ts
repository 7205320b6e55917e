// The store's invocation change decides whether an outcome has a permit to free: from the call's
// own record (a permit is granted with `permit_id` set, in the same transaction), so every caller
// may ask for the release and a call holding none (no task) runs no permit statement. A refund
// without a permit still gives back the dispatch the call counted. Run against a real SQLite file,
// the operation's statements recorded.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import { runSync, type SqlSession } from '../../src-hub/store/sql/session.js';
import { sqliteFile } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { InvocationChange } from '../../src-hub/store/types.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';

let dir: string;
const ids = { untasked: '', untaskedRefund: '', tasked: '', taskedRefund: '' };
let taskId = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-release-op-'));
  const store = createSqliteStore({ dataDir: dir });
  try {
    await seedCatalog(store);
    const t = task({ budget: 5 });
    taskId = t.task_id;
    await store.createTask(t, audit);
    for (const key of Object.keys(ids) as Array<keyof typeof ids>) {
      const withTask = key.startsWith('tasked');
      const rec = invocation(withTask ? { task_id: t.task_id } : {});
      // every dispatch is counted in its operation's rate window (as transitionInvocation asks)
      const counted = { operation_rate: { now_ms: Date.parse(AT), refused_to: 'not_dispatched' as const } };
      const res = await store.applyInvocationChange(
        dispatchChange(rec, withTask ? { ...counted, permit: permitFor(t.task_id) } : counted),
      );
      if (res.kind !== 'applied') throw new Error(`${key} was not dispatched`);
      ids[key] = rec.invocation_id;
    }
  } finally {
    await store.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs one outcome change on the store file; answers the statements it ran and its result. */
function outcome(id: string, refund: boolean) {
  const db = new Database(sqliteFile(dir));
  try {
    const statements: string[] = [];
    const inner = createSqliteSession(db);
    const recorded = (sql: string) => statements.push(sql.replace(/\s+/g, ' ').trim());
    const sql: SqlSession = {
      dialect: inner.dialect,
      all: (q, p) => (recorded(q), inner.all(q, p)),
      get: (q, p) => (recorded(q), inner.get(q, p)),
      run: (q, p) => (recorded(q), inner.run(q, p)),
      write: (q, p, n) => (recorded(q), inner.write(q, p, n)),
    };
    const change: InvocationChange = {
      invocation_id: id,
      from: 'dispatching',
      to: refund ? 'not_dispatched' : 'succeeded',
      at: AT,
      patch: refund ? { dispatch: 'none', permit_id: null } : { dispatch: 'confirmed' },
      release_permit: { now_ms: Date.parse(AT) + 1, refund },
      audit,
    };
    const result = db.transaction(() =>
      runSync(applyInvocationChange({ sql, rules: STORE_RULES }, change)),
    )();
    const row = (q: string, ...p: unknown[]) =>
      db.prepare(q).get(...p) as Record<string, unknown> | undefined;
    return {
      result,
      permitStatements: statements.filter((s) => / permits /.test(` ${s} `) || /FROM permits/.test(s)),
      dispatchesLeft: Number(
        row('SELECT COUNT(*) AS n FROM operation_dispatches WHERE invocation_id = ?', id)?.n,
      ),
      permit: row('SELECT released_at_ms FROM permits WHERE invocation_id = ?', id),
      task: row('SELECT writes_used, permits_open FROM tasks WHERE task_id = ?', taskId),
    };
  } finally {
    db.close();
  }
}

describe('the outcome frees a permit only where the call holds one (decided by the store)', () => {
  it('a call without a task: no permit statement, succeeded', () => {
    const r = outcome(ids.untasked, false);
    expect(r.result).toMatchObject({ kind: 'applied', record: { state: 'succeeded' } });
    expect(r.permitStatements).toEqual([]);
    expect(r.dispatchesLeft).toBe(1);
  });

  it('a call without a task whose request never left: no permit statement, its counted dispatch given back', () => {
    const r = outcome(ids.untaskedRefund, true);
    expect(r.result).toMatchObject({ kind: 'applied', record: { state: 'not_dispatched' } });
    expect(r.permitStatements).toEqual([]);
    expect(r.dispatchesLeft).toBe(0);
  });

  it('a task-bound call: its permit is freed; one that never left is refunded', () => {
    const before = outcome(ids.tasked, false);
    expect(before.result).toMatchObject({ kind: 'applied', record: { state: 'succeeded' } });
    expect(before.permitStatements.length).toBeGreaterThan(0);
    expect(before.permit?.released_at_ms).toBe(Date.parse(AT) + 1);
    expect(before.task).toEqual({ writes_used: 2, permits_open: 1 });

    const refunded = outcome(ids.taskedRefund, true);
    expect(refunded.result).toMatchObject({ kind: 'applied', record: { state: 'not_dispatched' } });
    expect(refunded.permit).toBeUndefined();
    expect(refunded.dispatchesLeft).toBe(0);
    expect(refunded.task).toEqual({ writes_used: 1, permits_open: 0 });
  });
});
