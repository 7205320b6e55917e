// The SQLite store's writer thread: concurrent writes share transactions (and so fsyncs), and a
// database the writer cannot lock in time (another process holds the write lock past busy_timeout)
// is `store_unavailable` with nothing of the batch kept, after which writes work again; a task view
// a crash left unpublished is published when the store opens again.
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreOperationError, StoreUnavailableError } from '../../src-hub/store/errors.js';
import { connectWriter, WRITER_WAL_AUTOCHECKPOINT_PAGES } from '../../src-hub/store/sqlite/open.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { profilingExecArgv, WRITE_NOT_SENDABLE } from '../../src-hub/store/sqlite/writer/client.js';
import { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import type { GroupCommitStats, WriteRequest } from '../../src-hub/store/sqlite/writer/protocol.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { UNRESOLVED_OF_STATE_SQL } from '../../src-hub/store/sql/ops/task-usage.js';
import type { SqlSession } from '../../src-hub/store/sql/session.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { HubStore, InvocationChange } from '../../src-hub/store/types.js';
import type { TaskView } from '../../src-shared/hub-api.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';

let dir: string;
let store: HubStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-writer-'));
  store = createSqliteStore({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite writer thread', () => {
  it('64 concurrent writes commit in a handful of transactions, each answered after its commit', async () => {
    const before = await store.commitStats!();
    await Promise.all(
      Array.from({ length: 64 }, (_, i) =>
        store.appendEvent('c', 'test.event', { i }, new Date().toISOString()),
      ),
    );
    const after = await store.commitStats!();
    expect(after.writes - before.writes).toBe(64);
    expect(after.batches - before.batches).toBeLessThan(16);
    // answered after commit: a fresh connection (another process) sees every one of them
    const db = new Database(join(dir, 'hub.sqlite'), { readonly: true });
    expect(
      (db.prepare("SELECT COUNT(*) AS n FROM events WHERE client_id = 'c'").get() as { n: number }).n,
    ).toBe(64);
    db.close();
  });

  it('writes issued by separate callbacks of one turn of the event loop (each draining its own microtasks, as the requests of one poll phase do) go to the thread in one message', async () => {
    await store.close();
    const messages: string[] = [];
    store = createSqliteStore({
      dataDir: dir,
      onThread: (w) => {
        const post = w.postMessage.bind(w);
        w.postMessage = (m: { kind: string; requests?: unknown[] }) => {
          messages.push(m.kind === 'writes' ? `writes:${m.requests?.length}` : m.kind);
          post(m);
        };
      },
    });
    await store.appendEvent('c', 'test.event', { i: 0 }, AT); // the thread is up
    messages.length = 0;
    const written = await new Promise<Array<Promise<void>>>((resolve) => {
      const issued: Array<Promise<void>> = [];
      for (let i = 1; i <= 8; i++)
        setImmediate(() => {
          issued.push(store.appendEvent('c', 'test.event', { i }, AT));
          if (issued.length === 8) resolve(issued);
        });
    });
    await Promise.all(written);
    expect(messages).toEqual(['writes:8']);
    expect((await store.listEvents('c', 0, 100)).length).toBe(9);
  });

  it('a task view marked but not yet published when the process died is published when the store opens again', async () => {
    await seedCatalog(store);
    const t = task();
    await store.createTask(t, audit);
    await store.flushEvents();
    const views = async (s: HubStore) =>
      (await s.listEvents('desk', 0, 1000)).filter((e) => e.type === 'task.changed').length;
    expect(await views(store)).toBe(1);
    await store.close();
    // what a change's transaction leaves when the process dies right after its commit
    const db = new Database(join(dir, 'hub.sqlite'));
    db.prepare('INSERT INTO task_views_pending (task_id, at) VALUES (?, ?)').run(t.task_id, AT);
    db.close();
    store = createSqliteStore({ dataDir: dir });
    await store.flushEvents();
    expect(await views(store)).toBe(2);
    const check = new Database(join(dir, 'hub.sqlite'), { readonly: true });
    expect((check.prepare('SELECT COUNT(*) AS n FROM task_views_pending').get() as { n: number }).n).toBe(0);
    check.close();
  });

  // the kept list is updated in place from each changed call: both when it holds the limit (calls
  // after its last are not in it) and when it is short of it (it holds every unresolved call)
  it.each([
    [260, 'more than a view lists'],
    [40, 'fewer than a view lists'],
  ])(
    "a task view's unresolved list (kept between views by the writer, updated in place) is always what a fresh read finds, also after another connection changed a call (%i calls: %s)",
    async (opened) => {
      await seedCatalog(store);
      const t = task({ budget: 10_000, inFlight: 10_000 });
      await store.createTask(t, audit);
      let seed = 7;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      const created = () => new Date(Date.parse(AT) + Math.floor(random() * 100_000)).toISOString();
      const states = new Map<string, string>();
      const open = async () => {
        const rec = invocation({ task_id: t.task_id, created_at: created() });
        const res = await store.applyInvocationChange(
          dispatchChange(rec, {
            permit: permitFor(t.task_id),
            audit,
          }),
        );
        states.set(rec.invocation_id, res.kind === 'applied' ? 'dispatching' : 'other');
      };
      const moveOne = async (on: HubStore) => {
        const candidates = [...states].filter(([, st]) => st === 'dispatching' || st === 'unknown');
        if (candidates.length === 0) return open();
        const [id, from] = candidates[Math.floor(random() * candidates.length)]!;
        const to: InvocationChange['to'] =
          from === 'unknown'
            ? 'succeeded'
            : random() < 0.5
              ? 'succeeded'
              : random() < 0.5
                ? 'unknown'
                : 'failed';
        states.set(id, to);
        const res = await on.applyInvocationChange({
          invocation_id: id,
          from: from as InvocationChange['from'],
          to,
          at: new Date(Date.parse(AT) + 200_000).toISOString(),
          audit,
          ...(from === 'dispatching' ? { release_permit: { now_ms: Date.parse(AT) + 1 } } : {}),
        });
        expect(res.kind).toBe('applied');
      };
      const lastView = async (s: HubStore) => {
        await s.flushEvents();
        const views = (await s.listEvents('desk', 0, 100_000)).filter(
          (e) => e.type === 'task.changed' && (e.payload as { task: TaskView }).task.task_id === t.task_id,
        );
        return (views.at(-1)!.payload as { task: TaskView }).task;
      };
      const expectFresh = async (s: HubStore) => {
        const view = await lastView(s);
        const fresh = await s.taskUsage(t.task_id, Date.parse(AT), null);
        expect(view.unresolved).toEqual(fresh.unresolved);
        expect(view.unresolved_total).toBe(fresh.unresolved_total);
      };
      for (let i = 0; i < opened; i++) await open();
      await expectFresh(store);
      for (let round = 0; round < 25; round++) {
        await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 3 === 0 ? open() : moveOne(store))));
        await expectFresh(store);
      }
      // another connection (the operator CLI's store, a second Hub process) settles a listed call;
      // the next view of this store must not list it, though its own change would keep the list
      const other = createSqliteStore({ dataDir: dir });
      try {
        const listed = (await lastView(store)).unresolved[0]!;
        const from = states.get(listed.invocation_id)!;
        states.set(listed.invocation_id, 'succeeded');
        await other.applyInvocationChange({
          invocation_id: listed.invocation_id,
          from: from as InvocationChange['from'],
          to: 'succeeded',
          at: AT,
          audit,
          ...(from === 'dispatching' ? { release_permit: { now_ms: Date.parse(AT) + 1 } } : {}),
        });
        await other.flushEvents();
        // a change of this store's own that leaves the list as it was (a call resolved, never listed)
        const late = invocation({ task_id: t.task_id, created_at: '2099-01-01T00:00:00.000Z' });
        await store.applyInvocationChange({
          invocation_id: late.invocation_id,
          from: 'new',
          to: 'not_dispatched',
          at: AT,
          create: late,
          audit,
        });
        const view = await lastView(store);
        expect(view.unresolved.map((u) => u.invocation_id)).not.toContain(listed.invocation_id);
        await expectFresh(store);
      } finally {
        await other.close();
      }
    },
  );

  it("each batch publishes its tasks' views inside its own transaction: on disk when the batch is answered, no mark left, no transaction of their own", async () => {
    await store.close();
    store = createSqliteStore({ dataDir: dir, viewDelayMs: 200 });
    await seedCatalog(store);
    const t = task({ budget: 1_000 });
    await store.createTask(t, audit);
    await store.flushEvents();
    const before = await store.commitStats!();
    const reader = new Database(join(dir, 'hub.sqlite'), { readonly: true });
    try {
      const lastView = () => {
        const row = reader
          .prepare("SELECT payload_json FROM events WHERE type = 'task.changed' ORDER BY seq DESC LIMIT 1")
          .get() as { payload_json: string };
        return (JSON.parse(row.payload_json) as { task: TaskView }).task;
      };
      const marks = () =>
        (reader.prepare('SELECT COUNT(*) AS n FROM task_views_pending').get() as { n: number }).n;
      // one write at a time, each a batch of its own: when it is answered, its view is already on disk
      const writes = 6;
      for (let i = 1; i <= writes; i++) {
        const res = await store.applyInvocationChange(
          dispatchChange(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id), audit }),
        );
        expect(res.kind).toBe('applied');
        expect(lastView().writes_used).toBe(i);
        expect(marks()).toBe(0);
      }
      // well past the delay: no view was left for a transaction of its own
      await new Promise((resolve) => setTimeout(resolve, 500));
      const after = await store.commitStats!();
      expect(after.writes - before.writes).toBe(writes);
      expect(after.batches - before.batches).toBe(writes);
    } finally {
      reader.close();
    }
  }, 30_000);

  it('a view that cannot be rendered does not fail its change: the task is marked in the same transaction and its view published once it can be', async () => {
    await store.close();
    store = createSqliteStore({ dataDir: dir, viewDelayMs: 50 });
    await seedCatalog(store);
    const t = task({ budget: 10 });
    await store.createTask(t, audit);
    await store.flushEvents();
    const other = new Database(join(dir, 'hub.sqlite'));
    try {
      other.exec(`CREATE TRIGGER no_views BEFORE INSERT ON events WHEN NEW.type = 'task.changed'
        BEGIN SELECT RAISE(ABORT, 'no views now'); END`);
      const before = (await store.commitStats!()) as GroupCommitStats;
      const res = await store.applyInvocationChange(
        dispatchChange(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id), audit }),
      );
      expect(res.kind).toBe('applied');
      // the views are rendered without a savepoint first: the failed one made the batch run again,
      // its writes and its views each in a savepoint of their own
      const after = (await store.commitStats!()) as GroupCommitStats;
      expect(after.retried - before.retried).toBe(1);
      expect(after.batches - before.batches).toBe(1);
      // the change and its mark are on disk, its view is not
      expect(
        (
          other.prepare('SELECT writes_used FROM tasks WHERE task_id = ?').get(t.task_id) as {
            writes_used: number;
          }
        ).writes_used,
      ).toBe(1);
      expect(other.prepare('SELECT task_id FROM task_views_pending').pluck().all()).toEqual([t.task_id]);
      other.exec('DROP TRIGGER no_views');
      await store.flushEvents();
      const views = (await store.listEvents('desk', 0, 1000)).filter((e) => e.type === 'task.changed');
      expect((views.at(-1)!.payload as { task: TaskView }).task.writes_used).toBe(1);
      expect(other.prepare('SELECT COUNT(*) FROM task_views_pending').pluck().get()).toBe(0);
    } finally {
      other.close();
    }
  });

  it("a task's unresolved list, once read, is not read again while its calls are created and settled: each view updates it from the changed calls", async () => {
    await seedCatalog(store);
    const t = task({ budget: 100 });
    await store.createTask(t, audit);
    await store.flushEvents();
    const db = connectWriter(dir);
    try {
      let listReads = 0;
      const sql = createSqliteSession(db);
      const counting: SqlSession = {
        ...sql,
        dialect: sql.dialect,
        all: ((q: string, p?: never[]) => {
          if (q === UNRESOLVED_OF_STATE_SQL) listReads += 1;
          return sql.all(q, p);
        }) as SqlSession['all'],
      };
      const committer = createGroupCommitter(db, { sql: counting, rules: STORE_RULES });
      let id = 0;
      const run = (changes: InvocationChange[]) =>
        committer.run(
          changes.map((c): WriteRequest => ({ id: ++id, op: 'applyInvocationChange', args: [c] })),
        );
      const open = () => {
        const rec = invocation({
          task_id: t.task_id,
          created_at: new Date(Date.parse(AT) + id).toISOString(),
        });
        return dispatchChange(rec, { permit: permitFor(t.task_id), audit });
      };
      const settle = (c: InvocationChange, to: 'succeeded' | 'unknown'): InvocationChange => ({
        invocation_id: c.invocation_id,
        from: 'dispatching',
        to,
        at: new Date(Date.parse(AT) + 1000 + id).toISOString(),
        audit,
        release_permit: { now_ms: Date.parse(AT) + 1 },
      });
      let inFlight = Array.from({ length: 5 }, open);
      run(inFlight);
      const first = listReads;
      expect(first).toBeGreaterThan(0);
      for (let round = 0; round < 6; round++) {
        const fresh = Array.from({ length: 3 }, open);
        const [a, b, ...rest] = inFlight;
        const { answers } = run([settle(a!, 'succeeded'), settle(b!, 'unknown'), ...fresh]);
        expect(answers.every((x) => x.ok)).toBe(true);
        inFlight = [...rest, ...fresh];
      }
      expect(listReads).toBe(first);
      const row = db
        .prepare("SELECT payload_json FROM events WHERE type = 'task.changed' ORDER BY seq DESC LIMIT 1")
        .pluck()
        .get() as string;
      const view = (JSON.parse(row) as { task: TaskView }).task;
      const usage = await store.taskUsage(t.task_id, Date.parse(AT), null);
      expect(view.unresolved).toEqual(usage.unresolved);
      expect(view.unresolved_total).toBe(usage.unresolved_total);
      expect(usage.unresolved.map((u) => u.state)).toContain('unknown');
    } finally {
      db.close();
    }
  });

  it('a batch runs its writes without savepoints; a write that fails makes it run again write by write: the others commit, the failed one leaves nothing', async () => {
    await seedCatalog(store);
    const t = task({ budget: 10 });
    await store.createTask(t, audit);
    await store.flushEvents();
    const db = connectWriter(dir);
    try {
      const committer = createGroupCommitter(db, { sql: createSqliteSession(db), rules: STORE_RULES });
      const calls = Array.from({ length: 5 }, () => invocation({ task_id: t.task_id }));
      const request = (i: number): WriteRequest => ({
        id: i + 1,
        op: 'applyInvocationChange',
        args: [dispatchChange(calls[i]!, { permit: permitFor(t.task_id), audit })],
      });
      const clean = committer.run([request(0), request(1)]);
      expect(clean.answers.map((a) => a.ok)).toEqual([true, true]);
      expect(committer.stats).toEqual({ batches: 1, writes: 2, retried: 0 });
      // the third call's audit entry is refused: its call row, permit and budget are written before it
      const failing = calls[3]!.invocation_id;
      db.exec(`CREATE TRIGGER fail_one BEFORE INSERT ON audit WHEN NEW.invocation_id = '${failing}'
        BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`);
      const mixed = committer.run([request(2), request(3), request(4)]);
      expect(mixed.answers.map((a) => a.ok)).toEqual([true, false, true]);
      const refused = mixed.answers[1]!;
      expect(refused.ok ? '' : refused.error.message).toContain('refused by the test');
      expect(committer.stats).toEqual({ batches: 2, writes: 5, retried: 1 });
      const one = (sql: string, ...p: unknown[]) =>
        db
          .prepare(sql)
          .pluck()
          .get(...p);
      expect(one('SELECT COUNT(*) FROM invocations WHERE invocation_id = ?', failing)).toBe(0);
      expect(one('SELECT COUNT(*) FROM permits WHERE invocation_id = ?', failing)).toBe(0);
      expect(one('SELECT COUNT(*) FROM events WHERE payload_json LIKE ?', `%${failing}%`)).toBe(0);
      expect(one('SELECT writes_used FROM tasks WHERE task_id = ?', t.task_id)).toBe(4);
      expect(one('SELECT permits_open FROM tasks WHERE task_id = ?', t.task_id)).toBe(4);
      expect(
        one("SELECT COUNT(*) FROM invocations WHERE task_id = ? AND state = 'dispatching'", t.task_id),
      ).toBe(4);
      // one view per batch, the last showing what the batch committed
      const view = JSON.parse(
        String(one("SELECT payload_json FROM events WHERE type = 'task.changed' ORDER BY seq DESC LIMIT 1")),
      ) as { task: TaskView };
      expect(view.task.writes_used).toBe(4);
      expect(view.task.unresolved_total).toBe(4);
    } finally {
      db.close();
    }
  });

  it("the answer to a created call is the stored record, operation and arguments included (sent back from the caller's own copy)", async () => {
    await seedCatalog(store);
    const t = task({ budget: 1 });
    await store.createTask(t, audit);
    for (const expected of ['applied', 'refused'] as const) {
      const rec = invocation({ task_id: t.task_id, arguments: { x: 7 }, remote_task_id: null });
      const res = await store.applyInvocationChange(
        dispatchChange(rec, {
          permit: permitFor(t.task_id),
          audit,
        }),
      );
      expect(res.kind).toBe(expected);
      if (res.kind === 'stale') throw new Error('stale');
      expect(res.record).toEqual(await store.getInvocation(rec.invocation_id));
      expect(res.record.operation).toBe(rec.operation);
      expect(res.record.arguments).toBe(rec.arguments);
      expect(Object.keys(res.record).sort()).toEqual(Object.keys(rec).sort());
    }
  });

  it("a call created with the operation read from the store is stored with the operation's stored text as it is, and answered with the caller's object", async () => {
    await seedCatalog(store);
    const current = await store.currentOperation('sys-a', 'update_thing');
    if (!current) throw new Error('no operation');
    expect((await store.currentOperation('sys-a', 'update_thing'))?.operation).toBe(current.operation);
    const rec = invocation({ operation: current.operation, remote_task_id: null });
    const res = await store.applyInvocationChange(dispatchChange(rec, { audit }));
    if (res.kind !== 'applied') throw new Error('not dispatched');
    expect(res.record.operation).toBe(current.operation);
    const db = new Database(join(dir, 'hub.sqlite'), { readonly: true });
    const texts = db
      .prepare(
        `SELECT i.operation_json AS stored, o.operation_json AS declared FROM invocations i
         JOIN operations o ON o.system_id = i.system_id AND o.tool = i.tool AND o.current = 1
         WHERE i.invocation_id = ?`,
      )
      .get(rec.invocation_id) as { stored: string; declared: string };
    db.close();
    expect(texts.stored).toBe(texts.declared);
    // read back: the same object as the declaration's (one parse per distinct text)
    expect((await store.getInvocation(rec.invocation_id))?.operation).toBe(current.operation);
    // an operation built in memory (not read from the store) still travels and is stored whole
    const built = invocation({ remote_task_id: null });
    const res2 = await store.applyInvocationChange(dispatchChange(built, { audit }));
    if (res2.kind !== 'applied') throw new Error('not dispatched');
    expect(res2.record.operation).toBe(built.operation);
    expect((await store.getInvocation(built.invocation_id))?.operation).toEqual(built.operation);
  });

  it('a call created `dispatching` gets its later answers with the operation and arguments kept from its creation, while it stays `dispatching`; past it, whole answers again', async () => {
    await seedCatalog(store);
    const rec = invocation({ arguments: { x: 9 }, remote_task_id: null });
    const sent = await store.applyInvocationChange(dispatchChange(rec, { audit }));
    if (sent.kind !== 'applied') throw new Error('not dispatched');
    const change = (from: 'dispatching' | 'unknown', to: 'dispatching' | 'unknown' | 'succeeded') => ({
      invocation_id: rec.invocation_id,
      from,
      to,
      at: AT,
      ...(from === 'dispatching' && to !== 'dispatching'
        ? { release_permit: { now_ms: Date.parse(AT) + 1 } }
        : {}),
      audit,
    });
    // still dispatching (an MCP task id, say): the kept objects, the rest as stored
    const still = await store.applyInvocationChange(change('dispatching', 'dispatching'));
    if (still.kind === 'stale') throw new Error('stale');
    expect(still.record.operation).toBe(rec.operation);
    expect(still.record.arguments).toBe(rec.arguments);
    const stored = await store.getInvocation(rec.invocation_id);
    expect(still.record).toEqual(stored);
    expect(Object.keys(still.record)).toEqual(Object.keys(stored ?? {}));
    // its outcome: the same, and from then on nothing is kept for it
    const outcome = await store.applyInvocationChange(change('dispatching', 'unknown'));
    if (outcome.kind === 'stale') throw new Error('stale');
    expect(outcome.record.operation).toBe(rec.operation);
    expect(outcome.record.state).toBe('unknown');
    expect(outcome.record).toEqual(await store.getInvocation(rec.invocation_id));
    const settled = await store.applyInvocationChange(change('unknown', 'succeeded'));
    if (settled.kind === 'stale') throw new Error('stale');
    expect(settled.record.operation).not.toBe(rec.operation);
    expect(settled.record.operation).toEqual(rec.operation);
    expect(settled.record.arguments).toEqual({ x: 9 });
    expect(settled.record).toEqual(await store.getInvocation(rec.invocation_id));
    // a stale change is answered with the call as it is, whole
    const stale = await store.applyInvocationChange(change('dispatching', 'unknown'));
    expect(stale.kind).toBe('stale');
    if (stale.kind === 'stale') expect(stale.current).toEqual(settled.record);
  });

  it("the writer's connection keeps the statement journals of its savepoints in memory, and a failing write is still undone alone", async () => {
    const db = connectWriter(dir);
    try {
      expect(db.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
      db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)');
      db.exec('BEGIN IMMEDIATE');
      // writes large enough that their journal would have spilled past 64 KiB into a file
      const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
      for (let i = 0; i < 3; i++) {
        db.exec('SAVEPOINT one_write');
        try {
          for (let j = 0; j < 50; j++) insert.run(i * 100 + j, 'x'.repeat(2000));
          if (i === 1) insert.run(0, 'a key already taken');
          db.exec('RELEASE one_write');
        } catch (err) {
          expect((err as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
          db.exec('ROLLBACK TO one_write');
          db.exec('RELEASE one_write');
        }
      }
      db.exec('COMMIT');
      const kept = db.prepare('SELECT k FROM t ORDER BY k').pluck().all() as number[];
      expect(kept).toHaveLength(100);
      expect(kept.some((k) => k >= 100 && k < 200)).toBe(false);
    } finally {
      db.close();
    }
  });

  it("the writer's commits leave the WAL to grow past SQLite's default 1,000 pages before a checkpoint copies it", async () => {
    // ~1,600 pages of events, committed by the writer in batches
    const blob = 'x'.repeat(16_000);
    await Promise.all(
      Array.from({ length: 400 }, (_, i) => store.appendEvent('c', 'test.blob', { i, blob }, AT)),
    );
    // nothing of it was copied into the database file yet (a checkpoint at 1,000 pages would have)
    expect(statSync(join(dir, 'hub.sqlite')).size).toBeLessThan(500 * 4096);
    const db = new Database(join(dir, 'hub.sqlite'));
    try {
      // a passive checkpoint from another connection answers how many frames the WAL holds
      const [wal] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number }>;
      expect(wal!.log).toBeGreaterThan(1_500);
      expect(wal!.log).toBeLessThan(WRITER_WAL_AUTOCHECKPOINT_PAGES);
    } finally {
      db.close();
    }
  });

  it('every statement a permit transaction runs on permits and task_state_counts finds its rows by an index, never by a scan', () => {
    const db = new Database(join(dir, 'hub.sqlite'), { readonly: true });
    try {
      const statements = [
        'UPDATE permits SET released_at_ms = 1 WHERE permit_id = ? AND released_at_ms IS NULL',
        'SELECT task_id FROM permits WHERE permit_id = ?',
        'SELECT permit_id, task_id, effect FROM permits WHERE permit_id = ? AND released_at_ms IS NULL',
        'DELETE FROM permits WHERE permit_id = ?',
        'SELECT COUNT(*) FROM permits WHERE task_id = ? AND granted_at_ms >= ?',
        'SELECT MAX(granted_at_ms) AS last FROM permits WHERE task_id = ?',
        'SELECT * FROM permits WHERE task_id = ? ORDER BY granted_at_ms, permit_id',
        'SELECT state, n FROM task_state_counts WHERE task_id = ? AND n > 0 ORDER BY state',
      ];
      for (const sql of statements) {
        const params = Array.from({ length: sql.split('?').length - 1 }, () => 'x');
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
          .map((r) => r.detail)
          .join('; ');
        expect(plan, sql).not.toMatch(/\bSCAN (permits|task_state_counts)\b/);
      }
    } finally {
      db.close();
    }
  });

  it("a task's calls and audit entries are read through the task indexes, which cover only rows with a task", () => {
    const db = new Database(join(dir, 'hub.sqlite'), { readonly: true });
    try {
      const plan = (sql: string) =>
        (
          db
            .prepare(`EXPLAIN QUERY PLAN ${sql}`)
            .all(...Array.from({ length: sql.split('?').length - 1 }, () => 'x')) as Array<{ detail: string }>
        )
          .map((r) => r.detail)
          .join('; ');
      expect(plan(UNRESOLVED_OF_STATE_SQL)).toMatch(
        /USING INDEX invocations_task_created \(task_id=\? AND state=\?\)/,
      );
      expect(plan('SELECT * FROM audit WHERE task_id = ? ORDER BY seq LIMIT ?')).toMatch(
        /USING INDEX audit_task \(task_id=\?\)/,
      );
    } finally {
      db.close();
    }
  });

  it('another process holding the write lock past busy_timeout: store_unavailable, nothing kept, then writes again', async () => {
    const holder = new Database(join(dir, 'hub.sqlite'));
    holder.exec('BEGIN IMMEDIATE');
    const started = Date.now();
    await expect(store.setMeta('blocked', 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_000); // busy_timeout=5000
    holder.exec('ROLLBACK');
    holder.close();
    expect(await store.getMeta('blocked')).toBeNull();
    await store.setMeta('after', 'y');
    expect(await store.getMeta('after')).toBe('y');
  }, 30_000);
});

describe('SQLite writer thread: handing writes over, and losing the thread', () => {
  const eventsOf = async (s: HubStore) =>
    (await s.listEvents('c', 0, 10_000)).map((e) => (e.payload as { i: number }).i).sort((a, b) => a - b);

  it('a write whose values cannot be handed to the thread is refused alone, with a code; the writes issued with it commit', async () => {
    const results = await Promise.allSettled([
      store.appendEvent('c', 'test.event', { i: 1 }, AT),
      store.appendEvent('c', 'test.event', { i: 2, notData: () => 2 }, AT),
      store.appendEvent('c', 'test.event', { i: 3 }, AT),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = (results[1] as PromiseRejectedResult).reason as StoreOperationError;
    expect(refused).toBeInstanceOf(StoreOperationError);
    expect(refused.dbCode).toBe(WRITE_NOT_SENDABLE);
    expect(await eventsOf(store)).toEqual([1, 3]);
  });

  it('the thread dying mid-write: every write in flight or after is store_unavailable, and every write answered as done is on disk', async () => {
    await store.close();
    let thread: Worker | undefined;
    store = createSqliteStore({ dataDir: dir, onThread: (w) => (thread = w) });
    const first = Array.from({ length: 100 }, (_, i) => store.appendEvent('c', 'test.event', { i }, AT));
    await first[0];
    // more writes, and the thread stopped while it runs them (what a crash of the thread does)
    const second = Array.from({ length: 400 }, (_, i) =>
      store.appendEvent('c', 'test.event', { i: 100 + i }, AT),
    );
    // once they are posted (the thread is then in the middle of their batch), it is stopped
    await new Promise((resolve) => setImmediate(resolve));
    await thread!.terminate();
    const settled = await Promise.allSettled([...first, ...second]);
    const done: number[] = [];
    settled.forEach((r, i) => {
      if (r.status === 'fulfilled') done.push(i);
      else expect(r.reason).toBeInstanceOf(StoreUnavailableError);
    });
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(500);
    await expect(store.appendEvent('c', 'test.event', { i: -1 }, AT)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await store.close();
    store = createSqliteStore({ dataDir: dir });
    const kept = await eventsOf(store);
    // nothing answered as done is missing; whatever else is there committed but its answer was lost
    for (const i of done) expect(kept).toContain(i);
    expect(kept).not.toContain(-1);
  });
});

describe('SQLite writer thread under a CPU profiler', () => {
  it('passes on only the profiling flags of its process', () => {
    expect(
      profilingExecArgv(['--import', 'tsx', '--cpu-prof', '--cpu-prof-dir', '/p', '--cpu-prof-interval=100']),
    ).toEqual(['--cpu-prof', '--cpu-prof-dir', '/p', '--cpu-prof-interval=100']);
    expect(profilingExecArgv(['--import', 'tsx', '--max-old-space-size=100'])).toEqual([]);
  });

  it('a profiled process gets a profile of its writer thread too, with the committed writes in it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-writer-prof-'));
    try {
      const script = join(dir, 'write.mts');
      const storeModule = join(import.meta.dirname, '../../src-hub/store/sqlite/store.ts');
      writeFileSync(
        script,
        `import { createSqliteStore } from ${JSON.stringify(storeModule)};
const store = createSqliteStore({ dataDir: ${JSON.stringify(join(dir, 'data'))} });
for (let i = 0; i < 200; i++) await store.setMeta('k' + i, 'v');
await store.close();
`,
      );
      const profiles = join(dir, 'profiles');
      execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profiles, '--import', 'tsx', script], {
        cwd: join(import.meta.dirname, '../..'),
        stdio: 'pipe',
      });
      const files = readdirSync(profiles);
      const withWriter = files.filter((f) =>
        readFileSync(join(profiles, f), 'utf8').includes('group-commit.ts'),
      );
      expect(files.length).toBeGreaterThanOrEqual(2); // the main thread and the writer thread
      expect(withWriter.length).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
