// A batch's task view on PostgreSQL (src-hub/store/postgres/task-view.ts) reads what the shared
// view (sql/task-events.ts publishTaskView) reads, in one round trip instead of one per read.
// What must hold: rendered in the same transaction over the same state, both append the same
// `task.changed` payload — a task whose unresolved calls span several states and outnumber the
// list (oldest 100, by creation time then id, across states), with calls an operator settled, with
// and without a rate window (in flight from the locked row; the window's permits counted).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createPgSession } from '../../src-hub/store/postgres/session.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { renderTaskView } from '../../src-hub/store/postgres/task-view.js';
import { runAsync } from '../../src-hub/store/sql/session.js';
import { publishTaskView } from '../../src-hub/store/sql/task-events.js';
import type { HubStore, TaskRecord } from '../../src-hub/store/types.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
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
  async function populate(t: TaskRecord): Promise<void> {
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
