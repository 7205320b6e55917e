// Group commit on PostgreSQL (src-hub/store/postgres/group-commit.ts, batch.ts): the changes of
// one task that arrive together run in one transaction, one after another against the same state,
// each in a SAVEPOINT, answered only after COMMIT. What must hold: a failing change is rolled back
// alone (a database error of one of its held-back writes, or an error thrown after it spent a
// permit) and the others commit; a failure at COMMIT fails every change of the batch and keeps
// nothing; an unreachable server fails every change with store_unavailable; through the store,
// concurrent changes of a task share transactions, budgets stay exact, every change is committed
// when it is answered, and the batch publishes the task's view (one per batch, in the same
// transaction), so a caller's successive changes each get theirs.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreOperationError, StoreUnavailableError } from '../../src-hub/store/errors.js';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { TaskView } from '../../src-shared/hub-api.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { failAtCommit } from './pg-faults.js';
import { AT, audit, invocation, MISSING_APPROVAL_DECISION, seedCatalog, task } from './fixtures.js';

const dispatch = (
  rec: InvocationRecord,
  taskId: string,
  permitId = `prm_${randomUUID()}`,
): InvocationChange => ({
  invocation_id: rec.invocation_id,
  from: 'new',
  to: 'dispatching',
  at: AT,
  create: rec,
  patch: { dispatch: 'attempted' },
  permit: {
    task_id: taskId,
    effect: 'write',
    now_ms: Date.parse(AT),
    window_ms: null,
    permit_id: permitId,
    refused_to: 'not_dispatched',
  },
  audit: { actor: 'test', kind: 'invocation.created', detail: {} },
});

const asWrite = (change: InvocationChange): BatchWrite => ({
  op: applyInvocationChange as BatchWrite['op'],
  args: [change],
});

describeOnPostgres('group commit on PostgreSQL', () => {
  let url: string;
  let store: HubStore;
  let pool: pg.Pool;
  let taskId: string;

  beforeEach(async () => {
    url = await createTestDatabase();
    store = await openPostgresStore({ url });
    await seedCatalog(store);
    const t = task({ budget: 10 });
    taskId = t.task_id;
    await store.createTask(t, audit);
    pool = createPool({ url, max: 3, onIdleError: () => undefined });
  });
  afterEach(async () => {
    await pool.end();
    await store.close();
  });

  const views = async (): Promise<TaskView[]> => {
    await store.flushEvents();
    return (await store.listEvents('desk', 0, 10_000))
      .filter((e) => e.type === 'task.changed')
      .map((e) => (e.payload as { task: TaskView }).task);
  };

  it('a batch with one failing change: it is rolled back alone, the others commit', async () => {
    const recs = Array.from({ length: 5 }, () => invocation({ task_id: taskId }));
    const changes = recs.map((r) => dispatch(r, taskId));
    // change 2 reuses change 1's permit id: its held-back permit insert fails (unique violation)
    changes[1] = dispatch(recs[1]!, taskId, changes[0]!.permit!.permit_id);
    // change 4 spends a permit and then fails (an approval to decide that does not exist)
    changes[3] = {
      ...changes[3]!,
      decide_approval: MISSING_APPROVAL_DECISION,
    } as InvocationChange;
    const viewsBefore = (await views()).length;

    const result = await runBatch(pool, STORE_RULES, changes.map(asWrite));

    expect(result.answers.map((a) => a.ok)).toEqual([true, false, true, false, true]);
    const dup = result.answers[1]!;
    expect(dup.ok === false && dup.error).toBeInstanceOf(StoreOperationError);
    expect(dup.ok === false && (dup.error as StoreOperationError).dbCode).toBe('23505');
    // the committed ones are there; the failed ones left nothing: no record, permit, budget or audit
    for (const i of [0, 2, 4])
      expect((await store.getInvocation(recs[i]!.invocation_id))?.state).toBe('dispatching');
    for (const i of [1, 3]) expect(await store.getInvocation(recs[i]!.invocation_id)).toBeNull();
    const t = (await store.getTask(taskId))!;
    expect([t.writes_used, t.permits_granted]).toEqual([3, 3]);
    expect(await store.listPermits(taskId)).toHaveLength(3);
    expect((await store.taskUsage(taskId, Date.parse(AT), null)).in_flight).toBe(3);
    const audited = (await store.listAudit({})).filter((a) => a.kind === 'invocation.created');
    expect(audited.map((a) => a.invocation_id).sort()).toEqual(
      [0, 2, 4].map((i) => recs[i]!.invocation_id).sort(),
    );
    // one view for the batch, rendered in its transaction: the state after all three
    const after = (await views()).slice(viewsBefore);
    expect(after.map((v) => [v.permits_granted, v.in_flight])).toEqual([[3, 3]]);
  });

  it('a failure at COMMIT fails every change of the batch and nothing is kept', async () => {
    const recs = Array.from({ length: 3 }, () => invocation({ task_id: taskId }));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await failAtCommit(admin, recs[2]!.invocation_id);
    await admin.end();
    await store.flushEvents(); // the task's own view is sequenced by a pass nobody waited for
    const eventsBefore = (await store.listEvents('desk', 0, 10_000)).length;

    const result = await runBatch(
      pool,
      STORE_RULES,
      recs.map((r) => asWrite(dispatch(r, taskId))),
    );

    expect(result.answers).toHaveLength(3);
    for (const a of result.answers) {
      expect(a.ok).toBe(false);
      expect(a.ok === false && (a.error as StoreOperationError).dbCode).toBe('P0001');
    }
    for (const r of recs) expect(await store.getInvocation(r.invocation_id)).toBeNull();
    const t = (await store.getTask(taskId))!;
    expect([t.writes_used, t.permits_granted]).toEqual([0, 0]);
    expect(await store.listPermits(taskId)).toHaveLength(0);
    await store.flushEvents();
    expect(await store.listEvents('desk', 0, 10_000)).toHaveLength(eventsBefore);
  });

  it('a view that cannot be rendered in the batch: the changes commit, the task is marked and its view published after', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE FUNCTION no_views() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.type = 'task.changed' THEN RAISE EXCEPTION 'no views now' USING ERRCODE = 'P0001'; END IF;
            RETURN NEW;
          END $$;
          CREATE TRIGGER no_views BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION no_views();`);
      const viewsBefore = (await views()).length;
      const recs = Array.from({ length: 2 }, () => invocation({ task_id: taskId }));
      const result = await runBatch(
        pool,
        STORE_RULES,
        recs.map((r) => asWrite(dispatch(r, taskId))),
      );
      expect(result.answers.map((a) => a.ok)).toEqual([true, true]);
      expect(result.marked).toBe(1);
      const marks = await admin.query('SELECT task_id FROM task_views_pending');
      expect(marks.rows).toEqual([{ task_id: taskId }]);
      await admin.query('DROP TRIGGER no_views ON events');
      const after = (await views()).slice(viewsBefore); // flushEvents runs a pass
      expect(after.map((v) => [v.permits_granted, v.in_flight])).toEqual([[2, 2]]);
      expect((await admin.query('SELECT task_id FROM task_views_pending')).rows).toEqual([]);
    } finally {
      await admin.end();
    }
  });

  it('an unreachable server: every change of the batch is answered store_unavailable', async () => {
    const dead = createPool({
      url: 'postgres://postgres@127.0.0.1:1/none',
      connectTimeoutMs: 1_000,
      onIdleError: () => undefined,
    });
    try {
      const recs = Array.from({ length: 3 }, () => invocation({ task_id: taskId }));
      const result = await runBatch(
        dead,
        STORE_RULES,
        recs.map((r) => asWrite(dispatch(r, taskId))),
      );
      for (const a of result.answers) expect(a.ok === false && a.error).toBeInstanceOf(StoreUnavailableError);
    } finally {
      await dead.end();
    }
    expect(await store.listPermits(taskId)).toHaveLength(0);
  });

  it('through the store: concurrent changes of one task share transactions, budget exact, each committed when answered', async () => {
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    try {
      const before = (await store.commitStats!())!;
      const committedWhenAnswered: boolean[] = [];
      const results = await Promise.all(
        Array.from({ length: 24 }, () => invocation({ task_id: taskId })).map((r) =>
          store.applyInvocationChange(dispatch(r, taskId)).then(async (res) => {
            const seen = await watcher.query('SELECT state FROM invocations WHERE invocation_id = $1', [
              r.invocation_id,
            ]);
            committedWhenAnswered.push(seen.rows.length === 1);
            return res;
          }),
        ),
      );
      const stats = (await store.commitStats!())!;
      expect(stats.writes - before.writes).toBe(24);
      expect(stats.batches - before.batches).toBeLessThan(24); // arrived together: shared transactions
      expect(results.filter((r) => r.kind === 'applied')).toHaveLength(10);
      expect(results.filter((r) => r.kind === 'refused')).toHaveLength(14);
      expect(committedWhenAnswered).toEqual(Array.from({ length: 24 }, () => true));
      const t = (await store.getTask(taskId))!;
      expect([t.writes_used, t.permits_granted]).toEqual([10, 10]);
      const last = (await views()).at(-1)!;
      expect([last.permits_granted, last.in_flight]).toEqual([10, 10]);
    } finally {
      await watcher.end();
    }
  });

  it('callers answered by a batch who send their next change at once share the next batch', async () => {
    const t = task({ budget: 1000, inFlight: 1000 });
    await store.createTask(t, audit);
    const before = (await store.commitStats!())!;
    // 16 callers, each sending its next change as soon as its last one is answered
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 8; i++) {
          const r = await store.applyInvocationChange(
            dispatch(invocation({ task_id: t.task_id }), t.task_id),
          );
          expect(r.kind).toBe('applied');
        }
      }),
    );
    const stats = (await store.commitStats!())!;
    expect(stats.writes - before.writes).toBe(128);
    // the first change starts a batch alone, then 16 at a time; without waiting a turn for the
    // answered callers, batches alternate one change and fifteen (sixteen batches or more)
    expect(stats.batches - before.batches).toBeLessThanOrEqual(10);
  });

  it("a call's outcome joins its task's batches (the instance knows the call's task), and frees its slot", async () => {
    const recs = Array.from({ length: 8 }, () => invocation({ task_id: taskId }));
    await Promise.all(recs.map((r) => store.applyInvocationChange(dispatch(r, taskId))));
    const before = (await store.commitStats!())!;
    const outcomes = await Promise.all(
      recs.map((r) =>
        store.applyInvocationChange({
          invocation_id: r.invocation_id,
          from: 'dispatching',
          to: 'succeeded',
          at: AT,
          release_permit: { now_ms: Date.parse(AT) + 1 },
          audit,
        }),
      ),
    );
    const stats = (await store.commitStats!())!;
    expect(outcomes.map((o) => o.kind)).toEqual(recs.map(() => 'applied'));
    expect(stats.writes - before.writes).toBe(8);
    expect(stats.batches - before.batches).toBeLessThan(8);
    expect((await store.taskUsage(taskId, Date.parse(AT) + 2, null)).in_flight).toBe(0);
    const last = (await views()).at(-1)!;
    expect([last.permits_granted, last.in_flight]).toEqual([8, 0]);
  });

  it("a caller's successive changes each get their view, published with the change", async () => {
    const rec = invocation({ task_id: taskId });
    const viewsBefore = (await views()).length;
    const sent = await store.applyInvocationChange(dispatch(rec, taskId));
    expect(sent.kind).toBe('applied');
    await store.applyInvocationChange({
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to: 'succeeded',
      at: AT,
      release_permit: { now_ms: Date.parse(AT) + 1 },
      audit,
    });
    const after = (await views()).slice(viewsBefore);
    expect(after.map((v) => [v.permits_granted, v.in_flight])).toEqual([
      [1, 1],
      [1, 0],
    ]);
  });
});
