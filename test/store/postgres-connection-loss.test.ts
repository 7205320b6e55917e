// A connection the server ends (an administrator's terminate, a restart) must never crash the Hub:
// pg emits 'error' on a client that is lent out of the pool, where pg-pool keeps no listener, and
// an unlistened 'error' is an uncaught exception. Every pooled client carries its own listener
// (src-hub/store/postgres/pool.ts), and what the driver raises without a code is the store being
// unavailable (errors.ts), not an internal error. A connection that lost its prepared statements
// (DISCARD ALL, a pooler's reset) is dropped, and what failed on it runs again on another.
import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { expect, it } from 'vitest';
import { fromDriver } from '../../src-hub/store/postgres/errors.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { StoreUnavailableError } from '../../src-hub/store/errors.js';
import { runBatch, type BatchWrite } from '../../src-hub/store/postgres/batch.js';
import { createPgSession } from '../../src-hub/store/postgres/session.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { inTransaction } from '../../src-hub/store/postgres/transaction.js';
import { applyInvocationChange } from '../../src-hub/store/sql/ops/invocation-change.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { dispatchChange, invocation, seedCatalog } from './fixtures.js';

describeOnPostgres('PostgreSQL connection loss', () => {
  it('a lent client whose backend is terminated reports, never throws, and its next query is store_unavailable', async () => {
    const url = await createTestDatabase();
    const idleErrors: unknown[] = [];
    const pool = createPool({ url, max: 2, onIdleError: (err) => idleErrors.push(err) });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const lent = await pool.connect();
      const pid = (await lent.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const errored = new Promise<Error>((resolve) => lent.once('error', resolve));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await admin.end();
      const err = await errored;
      expect((err as { code?: string }).code).toBe('57P01');
      const next = await lent.query('SELECT 1').then(
        () => null,
        (e: unknown) => fromDriver(e),
      );
      expect(next).toBeInstanceOf(StoreUnavailableError);
      lent.release(err);
      // the pool still serves on a fresh connection
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one).toBe(1);
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await pool.end();
    }
  });

  it('waiting for a busy connection past the connect bound is load, not an unavailable store', async () => {
    const url = await createTestDatabase();
    const pool = createPool({
      url,
      max: 1,
      onIdleError: () => undefined,
      connectTimeoutMs: 300,
      queueWaitMs: 20_000,
    });
    try {
      const lent = await pool.connect();
      const queued = pool.query<{ one: number }>('SELECT 1 AS one');
      // the only connection stays lent for well past the connect bound
      await new Promise((r) => setTimeout(r, 900));
      lent.release();
      expect((await queued).rows[0]?.one).toBe(1);
    } finally {
      await pool.end();
    }
  });

  it('a server that accepts the connection and never answers is store_unavailable at the connect bound', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const pool = createPool({
      url: `postgres://hub@127.0.0.1:${port}/hub`,
      onIdleError: () => undefined,
      connectTimeoutMs: 300,
      queueWaitMs: 20_000,
    });
    try {
      const started = Date.now();
      const failure = await pool.query('SELECT 1').then(
        () => null,
        (e: unknown) => fromDriver(e),
      );
      expect(failure).toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(15_000); // the connect bound, not the queue's
    } finally {
      await pool.end();
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('a connection that lost its prepared statements (DISCARD ALL) is dropped: its transaction, batch and read run again on another', async () => {
    const url = await createTestDatabase();
    const store = await openPostgresStore({ url, sequenceIntervalMs: 600_000 });
    await seedCatalog(store);
    await store.close();
    // one connection: what runs next finds it as DISCARD ALL left it
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    const discard = async () => {
      const client = await pool.connect();
      await client.query('DISCARD ALL');
      client.release();
    };
    const change = () => ({
      op: applyInvocationChange as BatchWrite['op'],
      args: [dispatchChange(invocation())],
    });
    const read = () => createPgSession(pool).all<{ n: number }>('SELECT COUNT(*)::int AS n FROM invocations');
    try {
      // each statement prepared on the connection first
      for (const batch of [[change()], [change(), change()]])
        expect((await runBatch(pool, STORE_RULES, batch)).answers.every((a) => a.ok)).toBe(true);
      expect(await read()).toEqual([{ n: 3 }]);
      await inTransaction(pool, 'BEGIN', async (s) => s.all('SELECT COUNT(*)::int AS n FROM invocations'));
      for (const batch of [[change()], [change(), change()]]) {
        await discard();
        const result = await runBatch(pool, STORE_RULES, batch);
        expect(result.answers.map((a) => (a.ok ? 'ok' : a.error.message))).toEqual(batch.map(() => 'ok'));
      }
      await discard();
      expect(await read()).toEqual([{ n: 6 }]);
      await discard();
      const { value } = await inTransaction(pool, 'BEGIN', async (s) =>
        s.all<{ n: number }>('SELECT COUNT(*)::int AS n FROM invocations'),
      );
      expect(value).toEqual([{ n: 6 }]);
    } finally {
      await pool.end();
    }
  });

  it('server errors keep their SQLSTATE; only connection failures are store_unavailable', () => {
    const syntax = Object.assign(new Error('syntax error'), { code: '42601' });
    expect(fromDriver(syntax)).toBe(syntax);
    expect(fromDriver(Object.assign(new Error('x'), { code: '57P01' }))).toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(fromDriver(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(fromDriver(new Error('Connection terminated unexpectedly'))).toBeInstanceOf(StoreUnavailableError);
  });
});
