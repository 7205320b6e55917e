// One lock order for every PostgreSQL transaction (docs/architecture.md "Lock order"): the calls'
// locks, then the task row, then the agent session's, then the operation's rate key; a task's
// per-state counts and view marks only under its row. Each test forces an interleaving that
// deadlocked when two transactions took these in opposite orders: a third connection holds the
// task row, the two transactions are started one after the other and each is seen waiting, then
// the row is let go. A deadlock is broken by the server after deadlock_timeout (1 s) with 40P01 on
// one of them and its batch runs again, so the answers come out right either way: what must hold
// is that no statement of either transaction fails with 40P01, and the answers.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import {
  AT,
  audit,
  dispatchChange,
  invocation,
  operation,
  pendingApprovalOf,
  permitFor,
  seedCatalog,
  task,
} from './fixtures.js';

const NOW = Date.parse(AT);
const DEADLOCK = '40P01';

const asWrite = (change: InvocationChange): BatchWrite => ({
  op: applyInvocationChange as BatchWrite['op'],
  args: [change],
});

/** A pool whose connections count the statements that failed with a deadlock (40P01). */
function deadlockCounting(pool: pg.Pool, counts: { deadlocks: number }): pg.Pool {
  const wrapped = new WeakSet<object>();
  return {
    connect: async () => {
      const client = await pool.connect();
      if (wrapped.has(client)) return client;
      wrapped.add(client);
      const original = client.query.bind(client) as (...a: unknown[]) => Promise<unknown> | undefined;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        const answered = original(...args);
        answered?.catch((err: unknown) => {
          if ((err as { code?: string }).code === DEADLOCK) counts.deadlocks += 1;
        });
        return answered;
      };
      return client;
    },
  } as unknown as pg.Pool;
}

describeOnPostgres('PostgreSQL lock order', () => {
  let url: string;
  let store: HubStore;
  let pools: pg.Pool[];
  let holder: pg.Client;
  let watcher: pg.Client;
  const counts = { deadlocks: 0 };

  beforeEach(async () => {
    url = await createTestDatabase();
    store = await openPostgresStore({ url });
    await seedCatalog(store);
    pools = [0, 1].map(() => createPool({ url, max: 2, onIdleError: () => undefined }));
    holder = new pg.Client({ connectionString: url });
    watcher = new pg.Client({ connectionString: url });
    await holder.connect();
    await watcher.connect();
    counts.deadlocks = 0;
  });
  afterEach(async () => {
    await holder.end();
    await watcher.end();
    for (const p of pools) await p.end();
    await store.close();
  });

  /** Two "instances": pools of their own, counting deadlocks. */
  const instance = (i: number) => deadlockCounting(pools[i]!, counts);

  /** Resolves once `n` connections of this database wait for a lock (a row's, a transaction's, a key's). */
  const waiting = async (n: number) => {
    for (let i = 0; i < 500; i++) {
      const r = await watcher.query<{ n: number }>(
        `SELECT COUNT(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if ((r.rows[0]?.n ?? 0) >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`${n} transactions never waited for a lock`);
  };

  /** Holds the task row (as a batch of the task on a third instance would) until `let go`. */
  const holdTaskRow = async (taskId: string) => {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tasks WHERE task_id = $1 FOR UPDATE', [taskId]);
    return { letGo: () => holder.query('ROLLBACK') };
  };

  const newTask = async (): Promise<string> => {
    const t = task({ budget: 10 });
    t.boundary = {
      ...t.boundary,
      authorizations: [{ authorization_ref: 'auth-a', tools: ['update_thing', 'update_other'] }],
    };
    await store.createTask(t, audit);
    return t.task_id;
  };

  const firstCall = (rec: InvocationRecord): InvocationChange =>
    dispatchChange(rec, {
      enrollment: { refused_to: 'not_dispatched' },
      permit: permitFor(rec.task_id!, NOW),
    });

  it("a session's first call with its permit and its first call awaiting approval, on two instances, never deadlock", async () => {
    const taskId = await newTask();
    const session = `sess-${randomUUID()}`;
    const permitted = invocation({ task_id: taskId, agent_session_id: session });
    const approvalId = `apr_${randomUUID()}`;
    const asked = invocation({ task_id: taskId, agent_session_id: session });
    const askApproval: InvocationChange = {
      invocation_id: asked.invocation_id,
      from: 'new',
      to: 'awaiting_approval',
      at: AT,
      create: asked,
      enrollment: { refused_to: 'not_dispatched' },
      create_approval: pendingApprovalOf(asked, { approval_id: approvalId }),
      audit,
    };
    const row = await holdTaskRow(taskId);
    // instance 1: a batch of one permit, its task row read ahead (queued behind the holder)
    const first = runBatch(instance(0), STORE_RULES, [asWrite(firstCall(permitted))], { task: taskId });
    await waiting(1);
    // instance 2: the same session's first call needing an approval (its view is read after its writes)
    const second = runBatch(instance(1), STORE_RULES, [asWrite(askApproval)], { task: taskId });
    await waiting(2);
    await row.letGo();
    const [a, b] = await Promise.all([first, second]);
    expect(counts.deadlocks).toBe(0);
    expect(a.answers[0]).toMatchObject({
      ok: true,
      value: { kind: 'applied', record: { state: 'dispatching' } },
    });
    expect(b.answers[0]).toMatchObject({
      ok: true,
      value: { kind: 'applied', record: { state: 'awaiting_approval' } },
    });
    const enrolled = await watcher.query(
      'SELECT task_id FROM session_enrollments WHERE agent_session_id = $1',
      [session],
    );
    expect(enrolled.rows).toEqual([{ task_id: taskId }]);
    expect((await store.getTask(taskId))?.writes_used).toBe(1);
  });

  it("an operator's settlement on an instance that never saw the call, and a batch of its task, never deadlock", async () => {
    const taskId = await newTask();
    const settled = invocation({ task_id: taskId });
    const timedOut = invocation({ task_id: taskId });
    for (const rec of [settled, timedOut])
      expect((await store.applyInvocationChange(firstCall(rec))).kind).toBe('applied');
    const toUnknown = (rec: InvocationRecord): InvocationChange => ({
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to: 'unknown',
      at: AT,
      patch: { dispatch: 'attempted' },
      release_permit: { now_ms: NOW + 1 },
      audit,
    });
    expect((await store.applyInvocationChange(toUnknown(settled))).kind).toBe('applied');
    const settle: InvocationChange = {
      invocation_id: settled.invocation_id,
      from: 'unknown',
      to: 'succeeded',
      at: AT,
      patch: { reason_code: 'operator_attested', dispatch: 'confirmed' },
      audit,
    };
    const row = await holdTaskRow(taskId);
    // instance 1: the task's batch (its row read ahead): a call timed out, moved to unknown
    const first = runBatch(instance(0), STORE_RULES, [asWrite(toUnknown(timedOut))], { task: taskId });
    await waiting(1);
    // instance 2 never saw the settled call: its change runs alone, its task unknown until read
    const second = runBatch(instance(1), STORE_RULES, [asWrite(settle)]);
    await waiting(2);
    await row.letGo();
    const [a, b] = await Promise.all([first, second]);
    expect(counts.deadlocks).toBe(0);
    expect(a.answers[0]).toMatchObject({
      ok: true,
      value: { kind: 'applied', record: { state: 'unknown' } },
    });
    expect(b.answers[0]).toMatchObject({
      ok: true,
      value: { kind: 'applied', record: { state: 'succeeded' } },
    });
    const usage = await store.taskUsage(taskId, NOW + 2, null);
    expect(usage.counts).toMatchObject({ unknown: 1, succeeded: 1 });
    expect(usage.in_flight).toBe(0);
  });

  it('a batch its view cannot follow locks all its calls before its task row: a repeated create on another instance never deadlocks', async () => {
    const taskId = await newTask();
    const limited = operation('update_other', { rate_limit: { count: 100, window: '1h' } });
    const plain = invocation({ task_id: taskId });
    const repeated = invocation({ task_id: taskId, operation: limited });
    const asked = invocation({ task_id: taskId });
    const withRate = (rec: InvocationRecord): InvocationChange => ({
      ...dispatchChange(rec, { permit: permitFor(taskId, NOW) }),
      operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' },
    });
    // a call awaiting approval: the batch's view is read after its writes (view-ahead.ts follows no approval)
    const askApproval: InvocationChange = {
      invocation_id: asked.invocation_id,
      from: 'new',
      to: 'awaiting_approval',
      at: AT,
      create: asked,
      create_approval: pendingApprovalOf(asked),
      audit,
    };
    const row = await holdTaskRow(taskId);
    // instance 1: a batch whose first change takes the task row and whose second creates `repeated`
    const first = runBatch(
      instance(0),
      STORE_RULES,
      [asWrite(withRate(plain)), asWrite(withRate(repeated)), asWrite(askApproval)],
      { task: taskId },
    );
    await waiting(1);
    // instance 2: the same create of `repeated` again (a client's retry reaching another instance)
    const second = runBatch(instance(1), STORE_RULES, [asWrite(withRate(repeated))], { task: taskId });
    await waiting(2);
    await row.letGo();
    const [a, b] = await Promise.all([first, second]);
    expect(counts.deadlocks).toBe(0);
    const kinds = [...a.answers, ...b.answers].map((x) =>
      x.ok ? (x.value as { kind: string }).kind : 'error',
    );
    // `repeated` is created once: one of its two creates finds the other's record
    expect(kinds.filter((k) => k === 'stale')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'applied')).toHaveLength(3);
    expect((await store.getTask(taskId))?.writes_used).toBe(2);
  });
});
