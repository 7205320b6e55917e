// A batch's task view on PostgreSQL (src-hub/store/postgres/task-view.ts) reads what the shared
// view (sql/task-events.ts publishTaskView) reads, in one round trip instead of one per read.
// What must hold: rendered in the same transaction over the same state, both append the same
// `task.changed` payload — a task whose unresolved calls span several states and outnumber the
// list (oldest 100, by creation time then id, across states), with calls an operator settled, with
// and without a rate window (in flight from the locked row; the window's permits counted).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { createPgSession } from '../../src-hub/store/postgres/session.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import { TASK_STATE_COUNTS_SQL } from '../../src-hub/store/sql/ops/task-usage.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { renderTaskView } from '../../src-hub/store/postgres/task-view.js';
import { runAsync } from '../../src-hub/store/sql/session.js';
import { publishTaskView } from '../../src-hub/store/sql/task-events.js';
import type {
  HubStore,
  InvocationChange,
  InvocationChangeResult,
  TaskRecord,
} from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countingPool } from './pg-counting.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';

/** AT plus `s` seconds, as the store writes times. */
const at = (s: number) => new Date(Date.parse(AT) + s * 1000).toISOString();

describeOnPostgres(`a batch's task view on PostgreSQL`, () => {
  let url: string;
  let store: HubStore;

  beforeEach(async () => {
    url = await createTestDatabase();
    store = await openPostgresStore({ url, sequenceIntervalMs: 600_000 });
    await seedCatalog(store);
  });
  afterEach(async () => {
    await store.close();
  });

  /** Calls of the task in many states: dispatching, awaiting approval, unknown, settled by an operator. */
  async function populate(t: TaskRecord): Promise<string[]> {
    await store.createTask(t, audit);
    const ids: string[] = [];
    // 104 dispatching (a few created later than the others, some at the same time: ordered by id)
    for (let i = 0; i < 104; i++) {
      const created = at(i % 7 === 0 ? 30 : i % 3);
      const rec = invocation({ task_id: t.task_id, created_at: created, updated_at: created });
      const res = await store.applyInvocationChange(
        dispatchChange(rec, { at: created, permit: permitFor(t.task_id, Date.parse(created)) }),
      );
      expect(res.kind).toBe('applied');
      ids.push(rec.invocation_id);
    }
    // 6 awaiting approval, created before most of them
    for (let i = 0; i < 6; i++) {
      const rec = invocation({ task_id: t.task_id, created_at: at(-1), updated_at: at(-1) });
      await store.applyInvocationChange(dispatchChange(rec, { to: 'awaiting_approval', patch: {} }));
    }
    // 4 unknown, 2 of them then settled by an operator
    for (const [i, id] of ids.slice(0, 4).entries()) {
      await store.applyInvocationChange({
        invocation_id: id,
        from: 'dispatching',
        to: 'unknown',
        at: at(40),
        release_permit: { now_ms: Date.parse(at(40)) },
        audit,
      });
      if (i < 2)
        await store.applyInvocationChange({
          invocation_id: id,
          from: 'unknown',
          to: i === 0 ? 'succeeded' : 'failed',
          at: at(41),
          patch: { reason_code: 'operator_attested', reason_message: 'checked' },
          audit,
        });
    }
    return ids;
  }

  /** The payloads both renderers append in one transaction (rolled back). */
  async function bothViews(taskId: string, when: string): Promise<[unknown, unknown]> {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const s = createPgSession(client);
      const env = { sql: s, rules: STORE_RULES };
      const before = Number((await client.query('SELECT COALESCE(MAX(id), 0) AS id FROM events')).rows[0].id);
      await runAsync(publishTaskView(env, taskId, when, s.dialect.forUpdate));
      await renderTaskView(s, env, taskId, when);
      await s.flush();
      const { rows } = await client.query<{ payload_json: string }>(
        `SELECT payload_json FROM events WHERE id > $1 AND type = 'task.changed' ORDER BY id`,
        [before],
      );
      expect(rows).toHaveLength(2);
      return [JSON.parse(rows[0]!.payload_json), JSON.parse(rows[1]!.payload_json)];
    } finally {
      await client.query('ROLLBACK');
      client.release();
      await pool.end();
    }
  }

  it('the same view as the shared one: unresolved calls of several states past the list, settled by an operator, no rate window', async () => {
    const t = task({ budget: 500, inFlight: 1000 });
    await populate(t);
    const [shared, batched] = await bothViews(t.task_id, at(50));
    expect(batched).toEqual(shared);
    const view = (batched as { task: { unresolved: unknown[]; unresolved_total: number } }).task;
    expect(view.unresolved).toHaveLength(100);
    expect(view.unresolved_total).toBe(6 + 100 + 2);
  });

  it('the same view with a rate window: the permits in it counted', async () => {
    const t = task({ budget: 500, inFlight: 1000 });
    t.boundary.rate_limit = { count: 1000, window: '1m' };
    await populate(t);
    const [shared, batched] = await bothViews(t.task_id, at(50));
    expect(batched).toEqual(shared);
    expect(JSON.stringify(batched)).toContain('"window"');
  });

  /** The last `task.changed` payload appended for the task, and the shared renderer's at `when` now. */
  async function lastAndShared(taskId: string, when: string): Promise<[unknown, unknown]> {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    try {
      const last = await client.query<{ payload_json: string }>(
        `SELECT payload_json FROM events WHERE type = 'task.changed' AND payload_json LIKE $1 ORDER BY id DESC LIMIT 1`,
        [`%${taskId}%`],
      );
      await client.query('BEGIN');
      const s = createPgSession(client);
      const before = Number((await client.query('SELECT COALESCE(MAX(id), 0) AS id FROM events')).rows[0].id);
      await runAsync(publishTaskView({ sql: s, rules: STORE_RULES }, taskId, when, s.dialect.forUpdate));
      await s.flush();
      const { rows } = await client.query<{ payload_json: string }>(
        `SELECT payload_json FROM events WHERE id > $1 AND type = 'task.changed' ORDER BY id`,
        [before],
      );
      expect(rows).toHaveLength(1);
      return [JSON.parse(last.rows[0]!.payload_json), JSON.parse(rows[0]!.payload_json)];
    } finally {
      await client.query('ROLLBACK');
      client.release();
      await pool.end();
    }
  }

  const asWrite = (change: InvocationChange): BatchWrite => ({
    op: applyInvocationChange as BatchWrite['op'],
    args: [change],
  });

  it("a batch's view read ahead (view-ahead.ts) is the shared one after the batch: outcomes leaving the list, an operator's settlement, new calls listed and not", async () => {
    const t = task({ budget: 500, inFlight: 1000 });
    const ids = await populate(t);
    const outcome = (id: string, s: number): InvocationChange => ({
      invocation_id: id,
      from: 'dispatching',
      to: 'succeeded',
      at: at(s),
      patch: { dispatch: 'confirmed' },
      release_permit: { now_ms: Date.parse(at(s)) },
      audit,
    });
    const created = (c: string) => invocation({ task_id: t.task_id, created_at: c, updated_at: c });
    const changes: InvocationChange[] = [
      // new calls: two older than every listed call, two newer than the list's last
      ...[at(-3), at(-2), at(45), at(46)].map((c) =>
        dispatchChange(created(c), { at: at(47), permit: permitFor(t.task_id, Date.parse(at(47))) }),
      ),
      ...ids.slice(4, 10).map((id, i) => outcome(id, 48 + i)),
      {
        invocation_id: ids[2]!,
        from: 'unknown',
        to: 'succeeded',
        at: at(55),
        patch: { reason_code: 'operator_attested', reason_message: 'checked' },
        audit,
      },
    ];
    const sent: string[] = [];
    const pool = createPool({ url, max: 2, onIdleError: () => undefined });
    try {
      const result = await runBatch(
        countingPool(pool, (text) => sent.push(text)),
        STORE_RULES,
        changes.map(asWrite),
        {
          task: t.task_id,
        },
      );
      expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual(
        changes.map(() => 'applied'),
      );
    } finally {
      await pool.end();
    }
    // read ahead: the view's reads went out before any write, none after
    const firstWrite = sent.findIndex((text) => /^\s*(WITH\s+w1\s+AS\s+\()?\s*(INSERT|UPDATE)\b/i.test(text));
    expect(sent.lastIndexOf(TASK_STATE_COUNTS_SQL.replace('?', '$1'))).toBeLessThan(firstWrite);
    const [batched, shared] = await lastAndShared(t.task_id, at(55));
    expect(batched).toEqual(shared);
    const view = (
      batched as { task: { unresolved: Array<{ invocation_id: string }>; unresolved_total: number } }
    ).task;
    expect(view.unresolved_total).toBe(6 + 100 + 2 + 4 - 6 - 1);
    expect(view.unresolved.map((r) => r.invocation_id)).toContain(changes[0]!.invocation_id);
  });

  it("a batch's view read ahead with calls refused in_flight_limit is the shared one after the batch", async () => {
    const t = task({ budget: 50, inFlight: 3 });
    await store.createTask(t, audit);
    const changes = Array.from({ length: 6 }, () =>
      dispatchChange(invocation({ task_id: t.task_id }), {
        at: at(1),
        permit: { ...permitFor(t.task_id, Date.parse(at(1))), refused_to: 'not_dispatched' },
      }),
    );
    const pool = createPool({ url, max: 2, onIdleError: () => undefined });
    try {
      const result = await runBatch(pool, STORE_RULES, changes.map(asWrite), { task: t.task_id });
      expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual([
        'applied',
        'applied',
        'applied',
        'refused',
        'refused',
        'refused',
      ]);
    } finally {
      await pool.end();
    }
    const [batched, shared] = await lastAndShared(t.task_id, at(1));
    expect(batched).toEqual(shared);
  });

  it('a batch of outcomes whose view cannot be read ahead (a rate window): its view, read after the writes, shows the slots they freed', async () => {
    const t = task({ budget: 50, inFlight: 10 });
    t.boundary.rate_limit = { count: 1000, window: '1m' };
    await store.createTask(t, audit);
    const recs = Array.from({ length: 4 }, () => invocation({ task_id: t.task_id }));
    for (const rec of recs)
      expect(
        (
          await store.applyInvocationChange(
            dispatchChange(rec, {
              at: at(1),
              permit: { ...permitFor(t.task_id, Date.parse(at(1))), window_ms: 60_000 },
            }),
          )
        ).kind,
      ).toBe('applied');
    // the batch reads the task row ahead (view-ahead.ts) and offers it to its first permit; with no
    // permit in the batch nothing takes it, and the view is read after the writes (a rate window)
    const changes = recs.slice(0, 3).map((rec): InvocationChange => ({
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to: 'succeeded',
      at: at(2),
      patch: { dispatch: 'confirmed' },
      release_permit: { now_ms: Date.parse(at(2)) },
      audit,
    }));
    const pool = createPool({ url, max: 2, onIdleError: () => undefined });
    try {
      const result = await runBatch(pool, STORE_RULES, changes.map(asWrite), { task: t.task_id });
      expect(result.answers.map((a) => a.ok && (a.value as InvocationChangeResult).kind)).toEqual(
        changes.map(() => 'applied'),
      );
    } finally {
      await pool.end();
    }
    const [batched, shared] = await lastAndShared(t.task_id, at(2));
    expect(batched).toEqual(shared);
    expect((batched as { task: { in_flight: number } }).task.in_flight).toBe(1);
  });

  it('no view for a task that does not exist', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const s = createPgSession(client);
      await renderTaskView(s, { sql: s, rules: STORE_RULES }, `task_${randomUUID()}`, AT);
      await s.flush();
      expect(s.appendedEvents).toBe(false);
    } finally {
      await client.query('ROLLBACK');
      client.release();
      await pool.end();
    }
  });
});
