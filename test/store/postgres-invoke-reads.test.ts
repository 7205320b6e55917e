// An invoke's reads on PostgreSQL (sql/ops/invoke-reads.ts, run by postgres/store.ts on one
// connection): its reads are started together (the declaration and the system found through the
// authorization) and leave in one socket write, answered in one round trip. What must hold: the
// same answers as the reads one by one, one round trip whatever the call, and the connection's
// statements all answered before it goes back to the pool; the reads of operations started in one
// turn of the event loop (separate I/O callbacks) leave as one statement, the same mix of them as
// the same statement, and past the mixes allowed each operation's reads go alone; a turn whose
// reads fail fails alone (the other turns of its statement are sent again, each on its own).
import type pg from 'pg';
import { expect, it } from 'vitest';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { readTogether } from '../../src-hub/store/postgres/read-together.js';
import { createPgSession } from '../../src-hub/store/postgres/session.js';
import { onOneConnection } from '../../src-hub/store/postgres/transaction.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { invokeReads } from '../../src-hub/store/sql/ops/invoke-reads.js';
import { runAsync } from '../../src-hub/store/sql/session.js';
import { StoreOperationError } from '../../src-hub/store/errors.js';
import type { HubStore, InvokeReadsQuery } from '../../src-hub/store/types.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countRoundTrips, countSocketWrites } from './pg-counting.js';
import { dispatchChange, invocation, seedInvoke } from './fixtures.js';

/** The pool, its statements' texts noted in `sent` (a session outside a transaction sends through pool.query). */
const queryCounting = (pool: pg.Pool, sent: string[]): pg.Pool =>
  ({
    query: (config: { text?: string }, ...rest: unknown[]) => {
      sent.push(String(config.text));
      return (pool.query as (...a: unknown[]) => unknown)(config, ...rest);
    },
  }) as unknown as pg.Pool;

describeOnPostgres(`an invoke's reads on PostgreSQL`, () => {
  /** A seeded database, and the query of a granted call with a task. */
  const seeded = async (): Promise<{ url: string; store: HubStore; q: InvokeReadsQuery }> => {
    const url = await createTestDatabase();
    const store = await openPostgresStore({ url, sequenceIntervalMs: 600_000 });
    const q = await seedInvoke(store);
    return { url, store, q };
  };

  /** Runs invokeReads on one pooled connection, counting its round trips and socket writes. */
  const counted = async (url: string, q: InvokeReadsQuery) => {
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const client = await pool.connect();
      const trips = countRoundTrips(client);
      const socket = countSocketWrites(client);
      client.release();
      const reads = await onOneConnection(pool, (s) =>
        runAsync(invokeReads({ sql: s, rules: STORE_RULES }, q)),
      );
      // every statement it sent was answered before the connection went back
      expect(trips.inFlight).toBe(0);
      return { reads, roundTrips: trips.roundTrips, writes: socket.writes };
    } finally {
      await pool.end();
    }
  };

  it('a granted call: one round trip, one socket write, with the answers of the single reads', async () => {
    const { url, store, q } = await seeded();
    try {
      const { reads, roundTrips, writes } = await counted(url, q);
      expect(reads).toEqual({
        existing: null,
        run: await store.getRun('run_1'),
        authorization: await store.getAuthorization('auth-a'),
        granted: true,
        operation: await store.currentOperation('sys-a', 'update_thing'),
        task: await store.getTask(q.task_id!),
        system: await store.getSystem('sys-a'),
        config_generation: await store.configGeneration(),
      });
      // one by one: invocation, run, authorization, grant, declaration, system, task — seven of each
      expect([roundTrips, writes]).toEqual([1, 1]);
      // the store answers the same
      expect(await store.invokeReads(q)).toEqual(reads);
    } finally {
      await store.close();
    }
  });

  it('a taken id: one round trip, nothing else answered; a call not granted: one round trip', async () => {
    const { url, store, q } = await seeded();
    try {
      await store.applyInvocationChange(dispatchChange(invocation({ invocation_id: 'inv_taken' })));
      const taken = await counted(url, { ...q, invocation_id: 'inv_taken' });
      expect(taken.reads.existing?.state).toBe('dispatching');
      expect(taken.reads).toMatchObject({ run: null, authorization: null, operation: null, task: null });
      expect([taken.roundTrips, taken.writes]).toEqual([1, 1]);
      const other = await counted(url, { ...q, client_id: 'someone-else' });
      expect(other.reads).toMatchObject({ granted: false, operation: null, system: null });
      expect([other.roundTrips, other.writes]).toEqual([1, 1]);
    } finally {
      await store.close();
    }
  });

  it('as the store runs them: one statement (read-together.ts), the same answers as the reads one by one', async () => {
    const { url, store, q } = await seeded();
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      await store.applyInvocationChange(
        dispatchChange(invocation({ invocation_id: 'inv_taken', task_id: q.task_id })),
      );
      const sent: string[] = [];
      const together = readTogether(createPgSession(queryCounting(pool, sent)));
      const cases: InvokeReadsQuery[] = [
        q,
        { ...q, invocation_id: 'inv_taken' },
        { ...q, client_id: 'someone-else' },
        { ...q, task_id: null },
        { ...q, task_id: 'task_missing', run_id: 'run_missing', authorization_ref: 'auth-missing' },
      ];
      for (const c of cases) {
        sent.length = 0;
        const reads = await runAsync(invokeReads({ sql: together, rules: STORE_RULES }, c));
        expect(sent).toHaveLength(1);
        const single = await onOneConnection(pool, (s) =>
          runAsync(invokeReads({ sql: s, rules: STORE_RULES }, c)),
        );
        expect(reads).toEqual(single);
        expect(await store.invokeReads(c)).toEqual(single);
      }
      // every column type the Hub's tables have (TEXT, INTEGER, BIGINT, NULL) comes back as pg reads it
      const existing = (await runAsync(
        invokeReads({ sql: together, rules: STORE_RULES }, { ...q, invocation_id: 'inv_taken' }),
      ))!.existing!;
      expect(existing).toEqual(await store.getInvocation('inv_taken'));
      expect(typeof existing.created_at).toBe('string');
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it('reads started in one turn leave as one statement; a read after an answer as the next', async () => {
    const url = await createTestDatabase();
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const sent: string[] = [];
      const together = readTogether(createPgSession(queryCounting(pool, sent)));
      const [a, b, none] = await Promise.all([
        together.get<{ n: number; big: number; t: string; z: null }>(
          'SELECT ?::int AS n, ?::bigint AS big, ?::text AS t, NULL::text AS z',
          [7, 9007199254740991, 'x "quoted" \\ ü'],
        ),
        together.all<{ k: number }>('SELECT k FROM generate_series(1, 3) AS k ORDER BY k'),
        together.all('SELECT 1 AS k WHERE false'),
      ]);
      expect(a).toEqual({ n: 7, big: 9007199254740991, t: 'x "quoted" \\ ü', z: null });
      expect(b).toEqual([{ k: 1 }, { k: 2 }, { k: 3 }]);
      expect(none).toEqual([]);
      expect(sent).toHaveLength(1);
      const after = await together.get<{ k: number }>('SELECT ?::int AS k', [a!.n + 1]);
      expect(after).toEqual({ k: 8 });
      expect(sent).toHaveLength(2);
      // a failing read fails every read of its turn
      const failing = Promise.all([
        together.all('SELECT 1 AS k'),
        together.all('SELECT * FROM no_such_table'),
      ]);
      await expect(failing).rejects.toThrow(/no_such_table/);
    } finally {
      await pool.end();
    }
  });
  it('the reads of turns started in one turn of the event loop leave as one statement, the same mix as the same statement', async () => {
    const url = await createTestDatabase();
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const sent: string[] = [];
      const together = readTogether(createPgSession(queryCounting(pool, sent)), { maxMixes: 2 });
      /**
       * Two operations' reads, each started by a callback of its own in one check phase (two
       * immediates queued back to back always run in one phase; two timers of 0 ms may fall in two
       * turns when the clock ticks between them, as it did on a loaded machine).
       */
      const inTwoCallbacks = (first: number, second: number) => {
        const started = (k: number) =>
          new Promise<unknown[]>((resolve) =>
            setImmediate(
              () =>
                void Promise.all(
                  k === 1
                    ? [together.get('SELECT ?::int AS n', [k]), together.all('SELECT 1 AS one')]
                    : [together.get('SELECT ?::text AS t', [String(k)])],
                ).then(resolve),
            ),
          );
        return Promise.all([started(first), started(second)]);
      };
      expect(await inTwoCallbacks(1, 2)).toEqual([[{ n: 1 }, [{ one: 1 }]], [{ t: '2' }]]);
      expect(sent).toHaveLength(1);
      // the other order is the same mix: the same statement
      expect(await inTwoCallbacks(2, 1)).toEqual([[{ t: '2' }], [{ n: 1 }, [{ one: 1 }]]]);
      expect(sent).toHaveLength(2);
      expect(sent[1]).toBe(sent[0]);
      // one turn's reads alone are the statement they were before
      await together.get('SELECT ?::text AS t', ['alone']);
      expect(sent[2]).toBe('SELECT $1::text AS t');
      // past the mixes allowed (here 2: the one above and the one below), each turn goes alone
      const two = () =>
        new Promise<void>((resolve) => {
          setImmediate(() => void together.get('SELECT ?::text AS t', ['a']));
          setImmediate(
            () => void Promise.resolve(together.get('SELECT ?::int AS n', [3])).then(() => resolve()),
          );
        });
      const three = () =>
        new Promise<void>((resolve) => {
          setImmediate(() => void together.get('SELECT ?::text AS t', ['b']));
          setImmediate(() => void together.get('SELECT ?::int AS n', [4]));
          setImmediate(() => void Promise.resolve(together.all('SELECT 1 AS one')).then(() => resolve()));
        });
      sent.length = 0;
      await two();
      expect(sent).toHaveLength(1);
      await three();
      expect(sent).toHaveLength(1 + 3);
      await two();
      expect(sent).toHaveLength(1 + 3 + 1);
    } finally {
      await pool.end();
    }
  });

  it("one turn's failing read fails only its own turn: the other turns of its statement get their answers", async () => {
    const url = await createTestDatabase();
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const sent: string[] = [];
      const together = readTogether(createPgSession(queryCounting(pool, sent)));
      /** Each operation's reads started by a callback of its own, all in one check phase. */
      const inCallbacks = (ops: Array<() => Promise<unknown>>) =>
        Promise.allSettled(
          ops.map(
            (op) => new Promise<unknown>((resolve, reject) => setImmediate(() => op().then(resolve, reject))),
          ),
        );
      const [good, bad, other] = await inCallbacks([
        () => Promise.all([together.get('SELECT ?::int AS n', [1]), together.all('SELECT 2 AS two')]),
        // a value the server refuses (22P02: not an integer), in one turn's parameters
        () =>
          Promise.all([
            together.get('SELECT ?::int AS n', ['not a number']),
            together.all('SELECT 3 AS three'),
          ]),
        () => Promise.resolve(together.get('SELECT ?::text AS t', ['x'])),
      ]);
      expect(good).toEqual({ status: 'fulfilled', value: [{ n: 1 }, [{ two: 2 }]] });
      expect(other).toEqual({ status: 'fulfilled', value: { t: 'x' } });
      expect(bad).toMatchObject({ status: 'rejected', reason: { code: '22P02' } });
      // the one statement of the three turns, then each turn on its own
      expect(sent).toHaveLength(1 + 3);
      // a statement of one turn that fails is not sent again
      sent.length = 0;
      await expect(together.get('SELECT ?::int AS n', ['nope'])).rejects.toMatchObject({ code: '22P02' });
      expect(sent).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it('the store: an invoke whose reads the server refuses gets its own coded error; the invokes beside it their reads', async () => {
    const { store, q } = await seeded();
    try {
      const alone = await store.invokeReads(q);
      const [first, refused, last] = await Promise.allSettled(
        [q, { ...q, invocation_id: 'inv_\u0000nul' }, { ...q, task_id: null }].map(
          (query) =>
            new Promise<unknown>((resolve, reject) =>
              setImmediate(() => store.invokeReads(query).then(resolve, reject)),
            ),
        ),
      );
      expect(first).toEqual({ status: 'fulfilled', value: alone });
      expect(last).toEqual({ status: 'fulfilled', value: { ...alone, task: null } });
      // a NUL in a text parameter (22021): the store's coded error, with the server's SQLSTATE
      expect(refused).toMatchObject({ status: 'rejected' });
      const err = (refused as PromiseRejectedResult).reason as unknown;
      expect(err).toBeInstanceOf(StoreOperationError);
      expect(err).toMatchObject({ dbCode: '22021' });
    } finally {
      await store.close();
    }
  });

  it('every column a read can return is TEXT, INTEGER or BIGINT (what read-together.ts decodes from JSON)', async () => {
    const { url, store } = await seeded();
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const { rows } = await pool.query<{ table_name: string; column_name: string; data_type: string }>(
        `SELECT table_name, column_name, data_type FROM information_schema.columns
          WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
      );
      expect(rows.length).toBeGreaterThan(20);
      // the tool search index's document is matched and ranked in SQL, never returned by a read
      const searchDocument = (r: { table_name: string; column_name: string }) =>
        r.table_name === 'operations_search' && r.column_name === 'document';
      const other = rows
        .filter((r) => !['text', 'integer', 'bigint'].includes(r.data_type) && !searchDocument(r))
        .map((r) => `${r.table_name}.${r.column_name}: ${r.data_type}`);
      expect(other).toEqual([]);
    } finally {
      await pool.end();
      await store.close();
    }
  });
});
