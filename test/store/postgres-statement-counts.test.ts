// What the PostgreSQL store sends per batch (src-hub/store/postgres/): each statement costs the
// Hub's CPU (messages built and parsed, a promise chain) whatever its server time, so these counts
// are held. What must hold: a batch of a task's permits sets INDEX_PLANS once (its run's check of
// the calls and its view both need it); a batch of outcomes and new permits interleaved writes the
// permits as one run, not one at a time (its releases are applied last); an event sequencer's pass
// with nothing to render is four statements (BEGIN, its lock with its plan settings, the
// numbering, COMMIT); and in a batch of calls without a task, whose changes run at once on one
// connection, each change's writes go out as one statement however the changes interleave, as
// they do for a change alone.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createEventSequencer, PASS_FUNCTION } from '../../src-hub/store/postgres/event-sequencer.js';
import { INDEX_PLANS } from '../../src-hub/store/postgres/plans.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import type { HubStore, InvocationChange, InvocationChangeResult } from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countingPool, roundTripPool } from './pg-counting.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';

const NOW = Date.parse(AT);

/** A dispatched call's outcome: succeeded, its permit released. */
const succeededReleasing = (c: InvocationChange): InvocationChange => ({
  invocation_id: c.invocation_id,
  from: 'dispatching',
  to: 'succeeded',
  at: AT,
  patch: { dispatch: 'confirmed' },
  release_permit: { now_ms: NOW + 1 },
  audit,
});

const asWrite = (change: InvocationChange): BatchWrite => ({
  op: applyInvocationChange as BatchWrite['op'],
  args: [change],
});

/** New permit requests of one task, all from one fresh agent session (enrolled by the first). */
const sessionDispatches = (taskId: string) => {
  const session = `sess-${randomUUID()}`;
  return () =>
    dispatchChange(invocation({ task_id: taskId, agent_session_id: session }), {
      enrollment: { refused_to: 'not_dispatched' },
      operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' },
      permit: permitFor(taskId),
    });
};

describeOnPostgres('statements the PostgreSQL store sends', () => {
  let store: HubStore;
  let pool: pg.Pool;
  /** Every statement's text sent on the counting pool's connections, in order. */
  let sent: string[];
  let counting: pg.Pool;

  beforeEach(async () => {
    const url = await createTestDatabase();
    // no timer passes: the only pass is the one a test runs
    store = await openPostgresStore({ url, sequenceIntervalMs: 600_000 });
    await seedCatalog(store);
    pool = createPool({ url, max: 3, onIdleError: () => undefined });
    sent = [];
    counting = countingPool(pool, (text) => sent.push(text));
  });
  afterEach(async () => {
    await pool.end();
    await store.close();
  });

  it("a batch of a task's permits sets INDEX_PLANS once, for its run and its view", async () => {
    const t = task({ budget: 100 });
    await store.createTask(t, audit);
    const changes = Array.from({ length: 16 }, () =>
      dispatchChange(invocation({ task_id: t.task_id }), {
        enrollment: { refused_to: 'not_dispatched' },
        operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' },
        permit: permitFor(t.task_id),
      }),
    );
    const result = await runBatch(counting, STORE_RULES, changes.map(asWrite));
    expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual(
      changes.map(() => 'applied'),
    );
    expect(sent.filter((text) => text === INDEX_PLANS)).toHaveLength(1);
    // BEGIN; the run's plans, call locks, calls, enrollments, task row; the session locks and
    // enrollments again (first calls); its writes (two statements); the view's task row, counts,
    // settled calls and unresolved calls; the view's event; COMMIT
    expect(sent).toHaveLength(16);
  });

  it("a batch of a task's outcomes and new permits, interleaved: the permits are one run, the outcomes after it", async () => {
    const t = task({ budget: 100 });
    await store.createTask(t, audit);
    const dispatch = () =>
      dispatchChange(invocation({ task_id: t.task_id }), {
        enrollment: { refused_to: 'not_dispatched' },
        operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' },
        permit: permitFor(t.task_id),
      });
    const sentBefore: InvocationChange[] = Array.from({ length: 8 }, dispatch);
    for (const c of sentBefore) expect((await store.applyInvocationChange(c)).kind).toBe('applied');
    const changes = sentBefore.flatMap((c): InvocationChange[] => [succeededReleasing(c), dispatch()]);
    const result = await runBatch(counting, STORE_RULES, changes.map(asWrite));
    expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual(
      changes.map(() => 'applied'),
    );
    // the eight permits written set-wise (one run), the outcomes after them (releases-last.ts): 48
    // statements when written; applied in the order they arrived, each outcome ended the run before
    // it and every permit went alone through the one-change path: 105
    expect(sent.filter((text) => text.includes('json_populate_recordset'))).toHaveLength(1);
    expect(sent.length).toBeLessThan(60);
  });

  it("a batch of a task's outcomes and new permits holds the task row for two round trips", async () => {
    const t = task({ budget: 100 });
    await store.createTask(t, audit);
    // each session enrolled by its first call: a new call of it reads its enrollment, locking nothing more
    const dispatch = (agent_session_id = `sess-${randomUUID()}`) =>
      dispatchChange(invocation({ task_id: t.task_id, agent_session_id }), {
        enrollment: { refused_to: 'not_dispatched' },
        operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' },
        permit: permitFor(t.task_id),
      });
    const sentBefore: InvocationChange[] = Array.from({ length: 8 }, () => dispatch());
    for (const c of sentBefore) expect((await store.applyInvocationChange(c)).kind).toBe('applied');
    const changes = sentBefore.flatMap((c): InvocationChange[] => [
      succeededReleasing(c),
      dispatch(c.create!.agent_session_id),
    ]);
    const trips: Array<{ text: string; roundTrip: number }> = [];
    const result = await runBatch(
      roundTripPool(pool, (text, roundTrip) => trips.push({ text, roundTrip })),
      STORE_RULES,
      changes.map(asWrite),
      { task: t.task_id },
    );
    expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual(
      changes.map(() => 'applied'),
    );
    // the round trip that locks the task row (its first FOR UPDATE) through the one that commits:
    // the locks of the calls, the reads of the settled ones, the task row and its view's inputs
    // (one round trip); the writes, the view's event and COMMIT (outcome-reads.ts, view-ahead.ts).
    // Each outcome read its call and learnt its release's row count one change at a time after the
    // row was locked, then the view was read after the writes and appended before COMMIT: 19.
    // (With the run's reads taken from the first round trip, its writes leave as soon as the task
    // row's answer is in, while the view's reads are still answered: the counter may see one.)
    const locked = trips.find((x) => /FROM tasks WHERE task_id = \$1 FOR UPDATE/.test(x.text))!.roundTrip;
    const committed = trips.find((x) => x.text === 'COMMIT')!.roundTrip;
    expect(committed - locked + 1).toBeLessThanOrEqual(2);
    expect(trips.filter((x) => x.roundTrip < locked)).toHaveLength(0);
    // the eight outcomes released their permits, the eight new calls hold theirs
    const { rows } = await pool.query<{ open: number; released: number }>(
      `SELECT t.permits_open::int AS open,
         (SELECT COUNT(*)::int FROM permits p WHERE p.task_id = t.task_id AND p.released_at_ms IS NOT NULL) AS released
       FROM tasks t WHERE t.task_id = $1`,
      [t.task_id],
    );
    expect(rows[0]).toEqual({ open: 8, released: 8 });
  });

  it("a batch of a task's permits reads ahead once: its run locks no call and reads neither the calls, the sessions nor the task row again", async () => {
    const t = task({ budget: 100 });
    await store.createTask(t, audit);
    const dispatch = sessionDispatches(t.task_id);
    expect((await store.applyInvocationChange(dispatch())).kind).toBe('applied'); // enrolls the session
    const changes = Array.from({ length: 16 }, dispatch);
    const result = await runBatch(counting, STORE_RULES, changes.map(asWrite), { task: t.task_id });
    expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual(
      changes.map(() => 'applied'),
    );
    const count = (re: RegExp) => sent.filter((text) => re.test(text)).length;
    expect(count(/^SELECT pg_advisory_xact_lock\(hashtextextended\(k/)).toBe(1); // the calls, once
    expect(count(/FROM tasks WHERE task_id = \$1 FOR UPDATE/)).toBe(1);
    expect(count(/FROM session_enrollments/)).toBe(1);
    expect(count(/^SELECT invocation_id FROM invocations/)).toBe(0); // the run's own check of the calls
    // BEGIN; the calls' locks, their sessions' enrollments, plans, the calls, the task row, its
    // counts, settled and unresolved calls; the run's writes and the view's event (two statements);
    // COMMIT. Its run locked the calls again, read them, their sessions and the task row again: 16
    expect(sent).toHaveLength(12);
    const { rows } = await pool.query<{ open: number; used: number }>(
      'SELECT permits_open::int AS open, writes_used::int AS used FROM tasks WHERE task_id = $1',
      [t.task_id],
    );
    expect(rows[0]).toEqual({ open: 17, used: 17 });
  });

  for (const kind of ['permit', 'outcome'] as const)
    it(`a batch of one change of a task (a ${kind}) reads ahead as a larger one: two round trips in all`, async () => {
      const t = task({ budget: 100 });
      await store.createTask(t, audit);
      const dispatch = sessionDispatches(t.task_id);
      const first = dispatch();
      expect((await store.applyInvocationChange(first)).kind).toBe('applied'); // enrolls the session
      const change = kind === 'permit' ? dispatch() : succeededReleasing(first);
      const trips: Array<{ text: string; roundTrip: number }> = [];
      const result = await runBatch(
        roundTripPool(pool, (text, roundTrip) => trips.push({ text, roundTrip })),
        STORE_RULES,
        [asWrite(change)],
        { task: t.task_id },
      );
      expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual([
        'applied',
      ]);
      // the call locked and read, its session's enrollment, the task row and the view's inputs; then
      // its writes, the view's event and COMMIT (which may leave while the view's reads are still
      // answered: the counter sees one or two). Alone it read the call, then the enrollment, then
      // the task row, then the view after its writes, then committed: five (a permit), four (an outcome)
      expect(trips.find((x) => x.text === 'COMMIT')!.roundTrip).toBeLessThanOrEqual(2);
      expect(trips.filter((x) => /FROM tasks WHERE task_id = \$1 FOR UPDATE/.test(x.text))).toHaveLength(1);
      expect(trips.filter((x) => x.text.startsWith('SELECT * FROM invocations'))).toHaveLength(0);
      const { rows } = await pool.query<{ open: number }>(
        'SELECT permits_open::int AS open FROM tasks WHERE task_id = $1',
        [t.task_id],
      );
      expect(rows[0]!.open).toBe(kind === 'permit' ? 2 : 0);
      const { rows: views } = await pool.query<{ payload_json: string }>(
        `SELECT payload_json FROM events WHERE type = 'task.changed' AND payload_json LIKE $1 ORDER BY id DESC LIMIT 1`,
        [`%${t.task_id}%`],
      );
      const view = JSON.parse(views[0]!.payload_json) as { task: { in_flight: number } };
      expect(view.task.in_flight).toBe(kind === 'permit' ? 2 : 0);
    });

  it("an event sequencer's pass with no view to render is one statement (its connection's function)", async () => {
    const sequencer = createEventSequencer(counting, {
      onSequenced: () => undefined,
      onError: (err) => {
        throw err;
      },
      intervalMs: 600_000,
    });
    try {
      await store.appendEvent('desk', 'test.event', { n: 1 }, AT);
      sent = [];
      await sequencer.sequenceNow();
      // a connection's first pass creates the pass's function on it (pg_temp), then calls it
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(/^CREATE OR REPLACE FUNCTION pg_temp\.bailing_sequence_pass/);
      expect(sent[1]).toBe(`SELECT clients, numbered, marked FROM ${PASS_FUNCTION}()`);
      expect((await store.listEvents('desk', 0, 10)).map((e) => e.type)).toContain('test.event');
      // a later pass on the same connection: the call alone, one statement, its own transaction
      await store.appendEvent('desk', 'test.later', { n: 2 }, AT);
      sent = [];
      await sequencer.sequenceNow();
      expect(sent).toEqual([`SELECT clients, numbered, marked FROM ${PASS_FUNCTION}()`]);
      expect((await store.listEvents('desk', 0, 10)).map((e) => e.type)).toContain('test.later');
    } finally {
      await sequencer.stop();
    }
  });

  it('a batch of calls without a task running at once: each change writes with one statement', async () => {
    const changes = Array.from({ length: 4 }, () =>
      dispatchChange(invocation({ agent_session_id: `sess-${randomUUID()}` }), {
        enrollment: { refused_to: 'not_dispatched' },
        operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' },
      }),
    );
    const result = await runBatch(counting, STORE_RULES, changes.map(asWrite), { independent: true });
    expect(result.answers.every((a) => a.ok)).toBe(true);
    // the batch's BEGIN, its calls' locks (one statement, in key order: postgres/lock-order.ts) and
    // COMMIT; per change: its read, its session's enrollment, its writes (call, dispatch count,
    // audit, event) as one statement
    expect(sent).toHaveLength(3 + 4 * 3);
    expect(sent.filter((text) => text.includes('pg_advisory_xact_lock'))).toHaveLength(1);
    const writes = sent.filter((text) => /^\s*(WITH\s+w1\s+AS\s+\()?\s*INSERT\b/i.test(text));
    expect(writes).toHaveLength(4);
  });
});
