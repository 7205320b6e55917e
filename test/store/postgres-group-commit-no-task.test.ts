// Group commit on PostgreSQL for calls without a task (src-hub/store/postgres/group-commit.ts):
// their changes take no task row lock, so the ones that arrive together on an instance share a
// transaction too — without a rate limit in "free" batches (one at a time per instance, carrying
// every change that arrived while the one before ran), with one in their operation's rate
// key's batches. What must hold, as for a task's batches: each change is committed when it is
// answered; a failing change is rolled back alone; a failure at COMMIT fails every change of its
// batch and keeps nothing; a declared rate limit stays exact across two instances; batches keyed by
// different rate keys on two instances never wait for each other (no deadlock).
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreOperationError } from '../../src-hub/store/errors.js';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { batchKey } from '../../src-hub/store/postgres/group-commit.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { failAtCommit, refuseInsert } from './pg-faults.js';
import { AT, audit, dispatchChange, invocation, operation, seedCatalog } from './fixtures.js';

const NOW = Date.parse(AT);

const dispatch = (rec: InvocationRecord): InvocationChange =>
  dispatchChange(rec, { operation_rate: { now_ms: NOW, refused_to: 'not_dispatched' } });

const succeed = (rec: InvocationRecord): InvocationChange => ({
  invocation_id: rec.invocation_id,
  from: 'dispatching',
  to: 'succeeded',
  at: AT,
  patch: { dispatch: 'confirmed' },
  audit,
});

describe('batch keys', () => {
  const limited = operation('update_thing', { rate_limit: { count: 3, window: '1h' } });
  it('a task is its key; a call without one is free unless it takes its rate lock; an unknown call runs alone', () => {
    const tasked = invocation({ task_id: 'task_1' });
    expect(batchKey(dispatch(tasked), undefined)).toBe('task:task_1');
    expect(batchKey(dispatch(invocation()), undefined)).toBe('free');
    const rec = invocation({ operation: limited });
    expect(batchKey(dispatch(rec), undefined)).toBe('rate:auth-a:update_thing');
    expect(batchKey({ ...dispatch(rec), operation_rate: undefined }, undefined)).toBe('free');
    // later changes: keyed by what the instance saw the call with
    expect(batchKey(succeed(rec), undefined)).toBeNull();
    expect(batchKey(succeed(rec), { task: null, rateKey: 'rate:auth-a:update_thing' })).toBe('free');
    expect(batchKey(succeed(tasked), { task: 'task_1', rateKey: null })).toBe('task:task_1');
    const resumed = { ...succeed(rec), to: 'dispatching', operation_rate: dispatch(rec).operation_rate };
    expect(batchKey(resumed as InvocationChange, { task: null, rateKey: 'rate:auth-a:update_thing' })).toBe(
      'rate:auth-a:update_thing',
    );
  });
});

describeOnPostgres('group commit of calls without a task on PostgreSQL', () => {
  let url: string;
  let store: HubStore;
  let watcher: pg.Client;

  beforeEach(async () => {
    url = await createTestDatabase();
    store = await openPostgresStore({ url });
    await seedCatalog(store);
    watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
  });
  afterEach(async () => {
    await watcher.end();
    await store.close();
  });

  const stored = async (id: string): Promise<string | null> =>
    (
      (await watcher.query<{ state: string }>('SELECT state FROM invocations WHERE invocation_id = $1', [id]))
        .rows[0] ?? null
    )?.state ?? null;

  it('concurrent calls and their outcomes share transactions, each committed when answered', async () => {
    const recs = Array.from({ length: 24 }, () => invocation());
    const before = (await store.commitStats!())!;
    const seenAtAnswer = await Promise.all(
      recs.map((r) => store.applyInvocationChange(dispatch(r)).then(() => stored(r.invocation_id))),
    );
    expect(seenAtAnswer).toEqual(recs.map(() => 'dispatching'));
    const mid = (await store.commitStats!())!;
    expect(mid.writes - before.writes).toBe(24);
    expect(mid.batches - before.batches).toBeLessThan(24);

    const outcomes = await Promise.all(
      recs.map((r) => store.applyInvocationChange(succeed(r)).then(() => stored(r.invocation_id))),
    );
    expect(outcomes).toEqual(recs.map(() => 'succeeded'));
    const after = (await store.commitStats!())!;
    expect(after.writes - mid.writes).toBe(24);
    expect(after.batches - mid.batches).toBeLessThan(24);
    await store.flushEvents();
    const changed = (await store.listEvents('desk', 0, 10_000)).filter(
      (e) => e.type === 'invocation.changed',
    );
    expect(changed).toHaveLength(48);
    expect(new Set(changed.map((e) => e.seq)).size).toBe(48);
  });

  it('one free batch at a time: the changes that arrive while it runs all go in the next one', async () => {
    const [first, ...rest] = Array.from({ length: 7 }, () => invocation());
    // the first batch waits for its call's lock, held here
    await watcher.query('BEGIN');
    await watcher.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `invocation:${first!.invocation_id}`,
    ]);
    const before = (await store.commitStats!())!;
    const firstDone = store.applyInvocationChange(dispatch(first!));
    for (let waiting = 0; waiting === 0;) {
      await new Promise((r) => setTimeout(r, 20));
      waiting = (
        await watcher.query<{ n: number }>(
          `SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE application_name = 'bailing-hub' AND wait_event_type = 'Lock'`,
        )
      ).rows[0]!.n;
    }
    const restDone = Promise.all(rest.map((r) => store.applyInvocationChange(dispatch(r))));
    await new Promise((r) => setTimeout(r, 100));
    await watcher.query('COMMIT');
    expect((await firstDone).kind).toBe('applied');
    expect((await restDone).map((r) => r.kind)).toEqual(rest.map(() => 'applied'));
    const after = (await store.commitStats!())!;
    expect(after.writes - before.writes).toBe(7);
    // the first alone, then the six that arrived while it waited: one batch (three lanes made four)
    expect(after.batches - before.batches).toBe(2);
  });

  const asWrite = (change: InvocationChange): BatchWrite => ({
    op: applyInvocationChange as BatchWrite['op'],
    args: [change],
  });

  it("a batch's independent changes run interleaved: about the round trips of one, each answered as if alone", async () => {
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      // a round trip starts with each statement sent while none is on its way or being answered
      let inFlight = 0;
      let roundTrips = 0;
      pool.on('acquire', (client) => {
        const original = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
          if (inFlight === 0) roundTrips += 1;
          inFlight += 1;
          return original(...args).finally(() => (inFlight -= 1));
        };
      });
      const one = await runBatch(pool, STORE_RULES, [asWrite(dispatch(invocation()))]);
      const alone = roundTrips;
      roundTrips = 0;
      const recs = Array.from({ length: 8 }, () => invocation());
      const eight = await runBatch(
        pool,
        STORE_RULES,
        recs.map((r) => asWrite(dispatch(r))),
        {
          independent: true,
        },
      );
      expect(
        [one, eight].flatMap((b) => b.answers.map((a) => a.ok && (a.value as { kind: string }).kind)),
      ).toEqual(Array.from({ length: 9 }, () => 'applied'));
      for (const r of recs) expect(await stored(r.invocation_id)).toBe('dispatching');
      expect(roundTrips).toBeLessThanOrEqual(alone + 1);
    } finally {
      await pool.end();
    }
  });

  it('two changes of the same call in one batch of independent changes: the first applies, the second finds it (stale)', async () => {
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const [a, b] = [invocation(), invocation()];
      const result = await runBatch(
        pool,
        STORE_RULES,
        [a, b, a].map((r) => asWrite(dispatch(r))),
        {
          independent: true,
        },
      );
      expect(result.answers.map((x) => x.ok && (x.value as { kind: string }).kind)).toEqual([
        'applied',
        'applied',
        'stale',
      ]);
      expect([await stored(a.invocation_id), await stored(b.invocation_id)]).toEqual([
        'dispatching',
        'dispatching',
      ]);
    } finally {
      await pool.end();
    }
  });

  it('a failing change is rolled back alone; the others of its batch commit', async () => {
    const recs = Array.from({ length: 12 }, () => invocation());
    const failing = recs[11]!; // issued last: it waits and joins a batch with others
    await refuseInsert(watcher, failing.invocation_id);
    const before = (await store.commitStats!())!;
    const settled = await Promise.allSettled(recs.map((r) => store.applyInvocationChange(dispatch(r))));
    const stats = (await store.commitStats!())!;
    expect(stats.batches - before.batches).toBeLessThan(12);
    const last = settled[11]!;
    expect(last.status).toBe('rejected');
    expect(last.status === 'rejected' && last.reason).toBeInstanceOf(StoreOperationError);
    expect(last.status === 'rejected' && (last.reason as StoreOperationError).dbCode).toBe('P0001');
    expect(settled.slice(0, 11).map((s) => s.status)).toEqual(recs.slice(0, 11).map(() => 'fulfilled'));
    for (const r of recs.slice(0, 11)) expect(await stored(r.invocation_id)).toBe('dispatching');
    expect(await stored(failing.invocation_id)).toBeNull();
    const audited = await watcher.query('SELECT COUNT(*)::int AS n FROM audit WHERE invocation_id = $1', [
      failing.invocation_id,
    ]);
    expect(audited.rows[0]).toEqual({ n: 0 });
  });

  it('a failure at COMMIT fails every change of that batch and keeps nothing of it', async () => {
    const recs = Array.from({ length: 12 }, () => invocation());
    const failing = recs[11]!;
    await failAtCommit(watcher, failing.invocation_id);
    const settled = await Promise.allSettled(recs.map((r) => store.applyInvocationChange(dispatch(r))));
    const failed = recs.filter((_, i) => settled[i]!.status === 'rejected');
    expect(failed).toContain(failing);
    expect(failed.length).toBeGreaterThan(1); // it shared its batch, and the batch failed whole
    for (const s of settled)
      if (s.status === 'rejected') expect((s.reason as StoreOperationError).dbCode).toBe('P0001');
    for (const r of recs)
      expect(await stored(r.invocation_id)).toBe(failed.includes(r) ? null : 'dispatching');
    const audited = await watcher.query(
      'SELECT COUNT(*)::int AS n FROM audit WHERE invocation_id = ANY($1::text[])',
      [failed.map((r) => r.invocation_id)],
    );
    expect(audited.rows[0]).toEqual({ n: 0 });
  });

  it('a declared rate limit is exact across two instances, and two rate keys batched on both never deadlock', async () => {
    const a = operation('update_thing', { rate_limit: { count: 5, window: '1h' } });
    const b = operation('update_other', { rate_limit: { count: 7, window: '1h' } });
    const sibling = await openPostgresStore({ url });
    try {
      const started = Date.now();
      // each instance gets both operations' calls, interleaved in opposite orders
      const calls = Array.from({ length: 40 }, (_, i) => {
        const op = i % 2 === 0 ? a : b;
        const on = i % 4 < 2 ? store : sibling;
        return on.applyInvocationChange(dispatch(invocation({ operation: op })));
      });
      const results = await Promise.all(calls);
      // a deadlock would be broken by the server only after deadlock_timeout (1 s) and retried
      expect(Date.now() - started).toBeLessThan(5_000);
      const applied = (tool: string) =>
        results.filter((r) => r.kind === 'applied' && r.record.tool === tool).length;
      expect([applied('update_thing'), applied('update_other')]).toEqual([5, 7]);
      const refused = results.filter((r) => r.kind === 'refused' && r.refusal.code === 'rate_limited');
      expect(refused).toHaveLength(28);
      const deadlocks = await watcher.query<{ n: string }>(
        'SELECT deadlocks::text AS n FROM pg_stat_database WHERE datname = current_database()',
      );
      expect(deadlocks.rows[0]?.n).toBe('0');
    } finally {
      await sibling.close();
    }
  });
});
