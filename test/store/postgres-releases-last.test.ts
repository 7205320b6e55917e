// A PostgreSQL batch applies the changes that release permits after its other changes
// (src-hub/store/postgres/releases-last.ts), so the slots a batch frees go to the next batch to
// take the task row — another instance's, queued on it — rather than to its own new requests, which
// let the instance that got a task's slots first keep them. What must hold: in one batch with
// outcomes and new requests, the requests are decided before the outcomes (refused in_flight_limit
// while the slots are held), every answer is its own change's, in the writes' order; the next batch
// gets the slots; the changes of one call keep their order; and with a failing change (the batch
// run again with savepoints) the order is the same.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { releasesLast } from '../../src-hub/store/postgres/releases-last.js';
import { requestsFirst } from '../../src-hub/store/postgres/view-ahead.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { TaskView } from '../../src-shared/hub-api.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import {
  AT,
  audit,
  dispatchChange,
  invocation,
  permitFor,
  MISSING_APPROVAL_DECISION,
  seedCatalog,
  task,
} from './fixtures.js';

const NOW = Date.parse(AT);

const dispatch = (rec: InvocationRecord, taskId: string): InvocationChange =>
  dispatchChange(rec, { permit: permitFor(taskId, NOW) });

const outcome = (rec: InvocationRecord, refund = false): InvocationChange => ({
  invocation_id: rec.invocation_id,
  from: 'dispatching',
  to: refund ? 'not_dispatched' : 'succeeded',
  at: AT,
  release_permit: { now_ms: NOW + 1, refund },
  audit,
});

const asWrite = (change: InvocationChange): BatchWrite => ({
  op: applyInvocationChange as BatchWrite['op'],
  args: [change],
});

describe('releasesLast (the order of a batch)', () => {
  const [a, b, c] = [invocation(), invocation(), invocation()];
  const t = 'task_1';

  it('moves the releases after the others, keeping each group in its order', () => {
    const changes = [dispatch(a, t), outcome(b), dispatch(c, t), outcome(a)];
    expect(releasesLast(changes)).toEqual([0, 2, 1, 3]);
  });

  it('leaves a batch as it is when no release comes before a permit request', () => {
    expect(releasesLast([dispatch(a, t), dispatch(b, t), outcome(c)])).toBeNull();
    expect(releasesLast([outcome(a), outcome(b)])).toBeNull();
    expect(releasesLast([dispatch(a, t)])).toBeNull();
    // a change that is no permit request (an annotation) after a release: nothing to move
    const annotate: InvocationChange = {
      ...outcome(c),
      release_permit: undefined,
      from: 'unknown',
      to: 'unknown',
    };
    expect(releasesLast([outcome(a), annotate])).toBeNull();
  });

  it('tells whether a task row read before the changes is what their first permit reads (view-ahead.ts requestsFirst)', () => {
    expect(requestsFirst([dispatch(a, t), dispatch(b, t), outcome(c)])).toBe(true);
    expect(requestsFirst([outcome(a), outcome(b)])).toBe(true);
    expect(requestsFirst([dispatch(a, t), null])).toBe(true);
    // a release writes the row without reading it: a permit after it would read another row
    expect(requestsFirst([dispatch(a, t), outcome(b), dispatch(c, t)])).toBe(false);
    expect(requestsFirst([outcome(a, true), dispatch(b, t)])).toBe(false);
    // what releasesLast orders always passes
    const changes = [dispatch(a, t), outcome(b), dispatch(c, t), outcome(a)];
    expect(requestsFirst(releasesLast(changes)!.map((i) => changes[i]!))).toBe(true);
  });

  it('keeps the changes of one call in their order: a later change of a released call moves with it', () => {
    const again: InvocationChange = { ...dispatch(invocation(), t), invocation_id: a.invocation_id };
    expect(releasesLast([outcome(a), dispatch(b, t), again, null])).toEqual([1, 3, 0, 2]);
  });
});

describeOnPostgres('a batch applies its releases after its new permit requests (PostgreSQL)', () => {
  let store: HubStore;
  let pool: pg.Pool;
  let taskId: string;
  let held: InvocationRecord[];

  beforeEach(async () => {
    const url = await createTestDatabase();
    store = await openPostgresStore({ url });
    await seedCatalog(store);
    const t = task({ budget: 10, inFlight: 2 });
    taskId = t.task_id;
    await store.createTask(t, audit);
    pool = createPool({ url, max: 2, onIdleError: () => undefined });
    // both slots held
    held = [invocation({ task_id: taskId }), invocation({ task_id: taskId })];
    for (const r of held)
      expect((await store.applyInvocationChange(dispatch(r, taskId))).kind).toBe('applied');
  });
  afterEach(async () => {
    await pool.end();
    await store.close();
  });

  const lastView = async (): Promise<TaskView> => {
    await store.flushEvents();
    const events = await store.listEvents('desk', 0, 10_000);
    return (events.filter((e) => e.type === 'task.changed').at(-1)!.payload as { task: TaskView }).task;
  };

  const answerOf = (a: { ok: boolean; value?: unknown }) => {
    const r = a.ok
      ? (a.value as { kind: string; record: InvocationRecord; refusal?: { code: string } })
      : null;
    return r ? [r.record.invocation_id, r.kind, r.refusal?.code ?? r.record.state] : null;
  };

  it('outcomes and new requests in one batch: the requests find the slots held, the next batch gets them', async () => {
    const fresh = [0, 1, 2].map(() => invocation({ task_id: taskId }));
    const changes = [
      dispatch(fresh[0]!, taskId),
      outcome(held[0]!),
      dispatch(fresh[1]!, taskId),
      outcome(held[1]!),
    ];
    changes.push(dispatch(fresh[2]!, taskId));

    const result = await runBatch(pool, STORE_RULES, changes.map(asWrite));

    // in order of the writes, each its own change's answer; in the order they arrived, the request
    // after the first outcome would have taken its slot, and the last request the second's
    expect(result.answers.map(answerOf)).toEqual([
      [fresh[0]!.invocation_id, 'refused', 'in_flight_limit'],
      [held[0]!.invocation_id, 'applied', 'succeeded'],
      [fresh[1]!.invocation_id, 'refused', 'in_flight_limit'],
      [held[1]!.invocation_id, 'applied', 'succeeded'],
      [fresh[2]!.invocation_id, 'refused', 'in_flight_limit'],
    ]);
    const t = (await store.getTask(taskId))!;
    expect([t.writes_used, t.permits_granted]).toEqual([2, 2]);
    expect((await store.taskUsage(taskId, NOW + 2, null)).in_flight).toBe(0);
    const view = await lastView();
    expect([view.in_flight, view.counts.succeeded, view.counts.not_dispatched]).toEqual([0, 2, 3]);

    // the next batch to take the task row gets both slots
    const next = [0, 1, 2].map(() => invocation({ task_id: taskId }));
    const second = await runBatch(
      pool,
      STORE_RULES,
      next.map((r) => asWrite(dispatch(r, taskId))),
    );
    expect(second.answers.map(answerOf).map((a) => a?.[2])).toEqual([
      'dispatching',
      'dispatching',
      'in_flight_limit',
    ]);
  });

  it('a refund (the request never left) gives its budget back after the batch decided its requests', async () => {
    const t = task({ budget: 2, inFlight: 10 });
    await store.createTask(t, audit);
    const spent = [invocation({ task_id: t.task_id }), invocation({ task_id: t.task_id })];
    for (const r of spent) await store.applyInvocationChange(dispatch(r, t.task_id));
    const fresh = invocation({ task_id: t.task_id });

    const result = await runBatch(
      pool,
      STORE_RULES,
      [outcome(spent[0]!, true), dispatch(fresh, t.task_id)].map(asWrite),
    );

    expect(result.answers.map(answerOf)).toEqual([
      [spent[0]!.invocation_id, 'applied', 'not_dispatched'],
      [fresh.invocation_id, 'refused', 'budget_exhausted'],
    ]);
    const after = (await store.getTask(t.task_id))!;
    expect([after.writes_used, after.permits_granted]).toEqual([1, 1]);
  });

  it('with a failing change (the batch run again with a savepoint per change) the order is the same', async () => {
    const fresh = invocation({ task_id: taskId });
    // a call without a task that fails after writing its record: an approval to decide that does not exist
    const lost = invocation();
    const failing: InvocationChange = {
      invocation_id: lost.invocation_id,
      from: 'new',
      to: 'dispatching',
      at: AT,
      create: lost,
      decide_approval: MISSING_APPROVAL_DECISION,
      audit,
    };
    const changes = [outcome(held[0]!), dispatch(fresh, taskId), failing];

    const result = await runBatch(pool, STORE_RULES, changes.map(asWrite));

    expect(result.answers.map(answerOf)).toEqual([
      [held[0]!.invocation_id, 'applied', 'succeeded'],
      [fresh.invocation_id, 'refused', 'in_flight_limit'],
      null,
    ]);
    expect(await store.getInvocation(lost.invocation_id)).toBeNull();
    expect((await store.taskUsage(taskId, NOW + 2, null)).in_flight).toBe(1);
  });
});
