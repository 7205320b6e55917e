// Set-based permits on PostgreSQL (src-hub/store/postgres/permit-run.ts): a run of a batch's
// creations of one task's calls is decided in the Hub from the task row read once under its lock and
// written with one statement per table. What must hold: every answer, refusal code, record, audit
// entry and counter is what the one-change path gives when the same changes are applied one after
// another in the order the batch applies them (budget, in-flight and rate refusals in batch order,
// enrollment; releases after the batch's other changes: releases-last.ts);
// a failing change is rolled back alone; a repeated create is `stale`; two instances racing on one
// task stay exact; and a run costs the same statements whatever its length (a change alone
// is not a run).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { StoreOperationError } from '../../src-hub/store/errors.js';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { releasesLast } from '../../src-hub/store/postgres/releases-last.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { inTransaction } from '../../src-hub/store/postgres/transaction.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import { runAsync } from '../../src-hub/store/sql/session.js';
import type {
  HubStore,
  InvocationChange,
  InvocationChangeResult,
  TaskRecord,
} from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { TaskView } from '../../src-shared/hub-api.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countingPool } from './pg-counting.js';
import { refuseInsert } from './pg-faults.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';

const NOW = Date.parse(AT);
const MINUTE = 60_000;

/** One step of a scenario: create call `call` (a write unless `read`), or release call `call`'s permit. */
type Step =
  | { create: number; read?: boolean; session?: string; nowMs?: number; windowed?: boolean }
  | { release: number };

const asWrite = (change: InvocationChange): BatchWrite => ({
  op: applyInvocationChange as BatchWrite['op'],
  args: [change],
});

/**
 * The changes of a scenario for one task (fresh call and permit ids, so it can be played on two
 * tasks); a step's session is a label, its agent session `sessions(label)`.
 */
function changesFor(
  taskId: string,
  steps: readonly Step[],
  sessions: (label: string) => string = (label) => label,
): { changes: InvocationChange[]; ids: string[] } {
  const ids: string[] = [];
  const changes = steps.map((step): InvocationChange => {
    if ('release' in step)
      return {
        invocation_id: ids[step.release]!,
        from: 'dispatching',
        to: 'succeeded',
        at: AT,
        release_permit: { now_ms: NOW + 1 },
        audit: { actor: 'test', kind: 'invocation.succeeded', detail: {} },
      };
    const rec = invocation({
      task_id: taskId,
      agent_session_id: step.session ? sessions(step.session) : `sess-${randomUUID()}`,
      effect: step.read ? 'read' : 'write',
    });
    ids[step.create] = rec.invocation_id;
    const nowMs = step.nowMs ?? NOW;
    return dispatchChange(rec, {
      enrollment: { refused_to: 'not_dispatched' },
      operation_rate: { now_ms: nowMs, refused_to: 'not_dispatched' },
      permit: {
        ...permitFor(taskId, nowMs),
        effect: step.read ? 'read' : 'write',
        window_ms: step.windowed ? MINUTE : null,
      },
    });
  });
  return { changes, ids };
}

const answerOf = (r: InvocationChangeResult) =>
  r.kind === 'refused'
    ? `refused:${r.refusal.code}:${r.record.state}`
    : `${r.kind}:${r.kind === 'stale' ? r.current?.state : r.record.state}`;

describeOnPostgres('set-based permits on PostgreSQL', () => {
  let url: string;
  let store: HubStore;
  let pool: pg.Pool;

  beforeEach(async () => {
    url = await createTestDatabase();
    store = await openPostgresStore({ url });
    await seedCatalog(store);
    pool = createPool({ url, max: 3, onIdleError: () => undefined });
  });
  afterEach(async () => {
    await pool.end();
    await store.close();
  });

  const newTask = async (boundary: Partial<TaskRecord['boundary']>): Promise<string> => {
    const t = task();
    t.boundary = { ...t.boundary, ...boundary };
    await store.createTask(t, audit);
    return t.task_id;
  };

  /** The same changes applied one after another, each in its own transaction, by the one-change path. */
  const oneByOne = async (changes: InvocationChange[]) => {
    const results: InvocationChangeResult[] = [];
    for (const c of changes)
      results.push(
        (
          await inTransaction(pool, 'BEGIN', (s) =>
            runAsync(applyInvocationChange({ sql: s, rules: STORE_RULES }, c)),
          )
        ).value,
      );
    return results;
  };

  /** What a scenario left: the task's counters, its permits, and its audit trail by call. */
  const state = async (taskId: string, ids: string[]) => {
    const t = (await store.getTask(taskId))!;
    const usage = await store.taskUsage(taskId, NOW + 2, null);
    const trail = (await store.listAudit({ task_id: taskId }))
      .filter((a) => a.invocation_id !== null)
      .map((a) => `${ids.indexOf(a.invocation_id!)}:${a.kind}:${a.from_state}->${a.to_state}`);
    return {
      writes_used: t.writes_used,
      permits_granted: t.permits_granted,
      in_flight: usage.in_flight,
      counts: usage.counts,
      permits: (await store.listPermits(taskId)).length,
      trail,
    };
  };

  /**
   * Plays `steps` on two like tasks: in one batch (set-based runs) and one change at a time, in the
   * order the batch applies them (its releases last); both must agree. Each play has sessions of its
   * own (`sessions`: label -> agent session, per play).
   */
  const playBoth = async (
    boundary: Partial<TaskRecord['boundary']>,
    steps: Step[],
    sessions: Array<(label: string) => string> = [(l) => l, (l) => l],
    ahead = false,
  ) => {
    const [a, b] = [await newTask(boundary), await newTask(boundary)];
    const together = changesFor(a, steps, sessions[0]);
    const alone = changesFor(b, steps, sessions[1]);
    // `ahead`: a batch of the task (group-commit.ts), which reads its calls, their sessions'
    // enrollments and the task row ahead (outcome-reads.ts, view-ahead.ts) for the run to take
    const batch = await runBatch(pool, STORE_RULES, together.changes.map(asWrite), ahead ? { task: a } : {});
    const answers = batch.answers.map((x) => {
      if (!x.ok) throw x.error;
      return answerOf(x.value as InvocationChangeResult);
    });
    const order = releasesLast(alone.changes) ?? alone.changes.map((_, i) => i);
    const applied = await oneByOne(order.map((i) => alone.changes[i]!));
    const expected: string[] = [];
    order.forEach((i, k) => (expected[i] = answerOf(applied[k]!)));
    expect(answers).toEqual(expected);
    expect(await state(a, together.ids)).toEqual(await state(b, alone.ids));
    return { answers, taskId: a, ids: together.ids };
  };

  for (const ahead of [false, true])
    it(`a mixed batch${ahead ? ' of the task (read ahead)' : ''}: budget, in-flight and rate refusals in batch order, its releases after them, as one change at a time`, async () => {
      const w = (n: number): Step => ({ create: n, windowed: true });
      const r = (n: number, nowMs = NOW): Step => ({ create: n, read: true, windowed: true, nowMs });
      const { answers, taskId } = await playBoth(
        { write_budget: 3, in_flight_limit: 5, rate_limit: { count: 4, window: '1m' } },
        [
          w(0),
          w(1),
          w(2),
          w(3), // budget: 3 writes spent
          r(4), // in flight: 0, 1, 2, 4
          { release: 0 }, // applied after the batch's other changes
          r(5), // the window's 4 permits are granted
          r(6, NOW + MINUTE), // the next window: its own run
          r(7, NOW + MINUTE), // in flight: 0, 1, 2, 4, 6 (call 0's release comes later)
          { release: 1 },
        ],
        undefined,
        ahead,
      );
      expect(answers).toEqual([
        'applied:dispatching',
        'applied:dispatching',
        'applied:dispatching',
        'refused:budget_exhausted:not_dispatched',
        'applied:dispatching',
        'applied:succeeded',
        'refused:rate_limited:not_dispatched',
        'applied:dispatching',
        'refused:in_flight_limit:not_dispatched',
        'applied:succeeded',
      ]);
      const t = (await store.getTask(taskId))!;
      expect([t.writes_used, t.permits_granted]).toEqual([3, 5]);
      expect((await store.taskUsage(taskId, NOW + 2, null)).in_flight).toBe(3);
    });

  for (const ahead of [false, true])
    it(`enrollment in a run${ahead ? ' of a batch of the task (read ahead)' : ''}: the first call of a session enrolls it, a call of a session enrolled elsewhere is refused`, async () => {
      const other = await newTask({});
      const plays = [randomUUID(), randomUUID()];
      const sessions = plays.map((p) => (label: string) => `sess-${label}-${p}`);
      // in both plays, `elsewhere` is enrolled in the other task first
      for (const of of sessions) {
        const [enrolling] = changesFor(other, [{ create: 0, session: 'elsewhere' }], of).changes;
        expect((await store.applyInvocationChange(enrolling!)).kind).toBe('applied');
      }
      const { answers } = await playBoth(
        {},
        [
          { create: 0, session: 'fresh' },
          { create: 1, session: 'elsewhere' },
          { create: 2, session: 'fresh' },
        ],
        sessions,
        ahead,
      );
      expect(answers).toEqual([
        'applied:dispatching',
        'refused:task_required:not_dispatched',
        'applied:dispatching',
      ]);
      const enrolled = (await store.listAudit({ kind: 'session.enrolled' })).map(
        (a) => (a.detail as { agent_session_id: string }).agent_session_id,
      );
      // the batch enrolled `fresh` once, with its first call
      expect(enrolled.filter((s) => s === sessions[0]!('fresh'))).toHaveLength(1);
      expect(enrolled.filter((s) => s === sessions[0]!('elsewhere'))).toHaveLength(1);
    });

  it('a run with one failing change: it is rolled back alone, the others commit', async () => {
    const taskId = await newTask({ write_budget: 3 });
    const { changes, ids } = changesFor(
      taskId,
      [0, 1, 2, 3, 4].map((n) => ({ create: n })),
    );
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await refuseInsert(admin, ids[1]!);
    await admin.end();

    const result = await runBatch(pool, STORE_RULES, changes.map(asWrite));

    expect(result.answers.map((a) => a.ok)).toEqual([true, false, true, true, true]);
    const failed = result.answers[1]!;
    expect(failed.ok === false && (failed.error as StoreOperationError).dbCode).toBe('P0001');
    // the failed change spent nothing: the budget of 3 goes to calls 0, 2 and 3
    expect(
      result.answers.map((a) => (a.ok ? answerOf(a.value as InvocationChangeResult) : 'failed')),
    ).toEqual([
      'applied:dispatching',
      'failed',
      'applied:dispatching',
      'applied:dispatching',
      'refused:budget_exhausted:not_dispatched',
    ]);
    expect(await store.getInvocation(ids[1]!)).toBeNull();
    const t = (await store.getTask(taskId))!;
    expect([t.writes_used, t.permits_granted]).toEqual([3, 3]);
    expect(await store.listPermits(taskId)).toHaveLength(3);
    expect((await store.listAudit({ invocation_id: ids[1]! })).length).toBe(0);
  });

  it('a repeated create is stale: the same call twice in a batch, and a call that exists already', async () => {
    const taskId = await newTask({});
    const { changes, ids } = changesFor(taskId, [{ create: 0 }, { create: 1 }, { create: 2 }]);
    expect((await store.applyInvocationChange(changes[1]!)).kind).toBe('applied');
    const again = { ...changes[0]!, permit: { ...changes[0]!.permit!, permit_id: `prm_${randomUUID()}` } };

    const result = await runBatch(pool, STORE_RULES, [...changes, again].map(asWrite));

    const kinds = result.answers.map((a) => (a.ok ? (a.value as InvocationChangeResult).kind : 'failed'));
    expect(kinds).toEqual(['applied', 'stale', 'applied', 'stale']);
    const t = (await store.getTask(taskId))!;
    expect(t.permits_granted).toBe(3);
    expect((await store.getInvocation(ids[0]!))?.permit_id).toBe(changes[0]!.permit!.permit_id);

    // a batch of the task reads its calls ahead (outcome-reads.ts): the run finds the existing one
    // there, and the changes go one at a time, the existing call's `stale`
    const next = changesFor(taskId, [{ create: 0 }, { create: 1 }]);
    const repeated = { ...changes[2]!, permit: { ...changes[2]!.permit!, permit_id: `prm_${randomUUID()}` } };
    const ahead = await runBatch(
      pool,
      STORE_RULES,
      [next.changes[0]!, repeated, next.changes[1]!].map(asWrite),
      {
        task: taskId,
      },
    );
    expect(ahead.answers.map((a) => (a.ok ? (a.value as InvocationChangeResult).kind : 'failed'))).toEqual([
      'applied',
      'stale',
      'applied',
    ]);
    expect((await store.getTask(taskId))!.permits_granted).toBe(5);
  });

  it('two instances racing on one task: budget and in-flight exact, the last view shows it', async () => {
    const second = await openPostgresStore({ url });
    try {
      for (const boundary of [
        { write_budget: 37, in_flight_limit: 1000 },
        { write_budget: 1000, in_flight_limit: 5 },
      ]) {
        const taskId = await newTask(boundary);
        const limit = Math.min(boundary.write_budget, boundary.in_flight_limit);
        const before = [(await store.commitStats!())!, (await second.commitStats!())!];
        const results = await Promise.all(
          Array.from({ length: 120 }, (_, i) => {
            const [change] = changesFor(taskId, [{ create: 0 }]).changes;
            return (i % 2 === 0 ? store : second).applyInvocationChange(change!);
          }),
        );
        expect(results.filter((r) => r.kind === 'applied')).toHaveLength(limit);
        expect(results.filter((r) => r.kind === 'refused')).toHaveLength(120 - limit);
        const t = (await store.getTask(taskId))!;
        expect([t.writes_used, t.permits_granted]).toEqual([limit, limit]);
        expect((await store.taskUsage(taskId, NOW, null)).in_flight).toBe(limit);
        // both instances grouped their changes (set-based runs of more than one)
        const after = [(await store.commitStats!())!, (await second.commitStats!())!];
        for (const i of [0, 1]) {
          expect(after[i]!.writes - before[i]!.writes).toBe(60);
          expect(after[i]!.batches - before[i]!.batches).toBeLessThan(60);
        }
        await store.flushEvents();
        await second.flushEvents();
        const views = (await store.listEvents('desk', 0, 100_000))
          .filter((e) => e.type === 'task.changed')
          .map((e) => (e.payload as { task: TaskView }).task)
          .filter((v) => v.task_id === taskId);
        // views are appended under the task row lock: in the order of the states they show
        const granted = views.map((v) => v.permits_granted);
        expect(granted).toEqual([...granted].sort((x, y) => x - y));
        expect(views.at(-1)!.permits_granted).toBe(limit);
      }
    } finally {
      await second.close();
    }
  });

  it('a run locks a session only for its first call: an enrolled one is not locked after the task row', async () => {
    const taskId = await newTask({});
    const session = `sess-${randomUUID()}`;
    const held = changesFor(taskId, [{ create: 0, session }]);
    expect((await store.applyInvocationChange(held.changes[0]!)).kind).toBe('applied'); // enrolls it
    const locks: string[][] = [];
    const watching = {
      connect: async () => {
        const client = await pool.connect();
        const original = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (config: { text?: string; values?: unknown[] }) => {
          if (String(config.text).includes('pg_advisory_xact_lock(hashtextextended(k'))
            locks.push(JSON.parse(String(config.values![0])) as string[]);
          return original(config);
        };
        const release = client.release.bind(client);
        client.release = (err?: Error | boolean) => {
          (client as unknown as { query: unknown }).query = original;
          release(err);
        };
        return client;
      },
    } as unknown as pg.Pool;
    const fresh = `sess-${randomUUID()}`;
    // the first change of the batch (counted in a rate window: not of the run) holds the task row before the run
    const { changes } = changesFor(taskId, [
      { create: 0, session, windowed: true },
      { create: 1, session },
      { create: 2, session },
      { create: 3, session: fresh },
    ]);
    const result = await runBatch(watching, STORE_RULES, changes.map(asWrite));
    expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual([
      'applied',
      'applied',
      'applied',
      'applied',
    ]);
    const sessionLocks = locks.flat().filter((k) => k.startsWith('enrollment:'));
    expect(sessionLocks).toEqual([`enrollment:desk:${fresh}`]);
    // the batch locks all its calls first, in key order (postgres/lock-order.ts): the run locks none again
    expect(locks[0]!.filter((k) => k.startsWith('invocation:'))).toHaveLength(4);
    expect(locks.flat().filter((k) => k.startsWith('invocation:'))).toHaveLength(4);
  });

  it('a run costs the same statements whatever its length; a change alone is not a run', async () => {
    const taskId = await newTask({ write_budget: 1000, rate_limit: { count: 1000, window: '1m' } });
    let statements = 0;
    let setWise = 0;
    const counting = countingPool(pool, (text) => {
      statements += 1;
      if (text.includes('json_populate_recordset')) setWise += 1;
    });
    const cost = async (n: number) => {
      const { changes } = changesFor(
        taskId,
        Array.from({ length: n }, (_, i) => ({ create: i, windowed: true })),
      );
      statements = 0;
      const result = await runBatch(counting, STORE_RULES, changes.map(asWrite));
      expect(result.answers.every((a) => a.ok)).toBe(true);
      return statements;
    };
    const two = await cost(2);
    expect(setWise).toBe(1);
    expect(await cost(16)).toBe(two);
    expect(await cost(32)).toBe(two);
    // a change alone is cheaper through its own statements: it is not a run
    await cost(1);
    expect(setWise).toBe(3);
  });
});
