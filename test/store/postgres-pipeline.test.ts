// Pipelined statements on PostgreSQL (src-hub/store/postgres/session.ts, pool.ts): the statements
// of a transaction whose answers nothing waits for (BEGIN, a key lock, held-back writes, and COMMIT
// once no checked write is outstanding) go out right behind one another instead of one round trip
// each. What must hold: fewer round trips; a statement sent behind a key lock still runs only
// once the lock is held, and sees what the lock's previous holder committed; a failing write's own
// error is what the transaction reports, not the "transaction is aborted" of what was sent behind it;
// the statements a connection is given in one turn of the event loop leave in one socket write.
import pg from 'pg';
import { expect, it } from 'vitest';
import { StoreOperationError } from '../../src-hub/store/errors.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { createPgSession } from '../../src-hub/store/postgres/session.js';
import { inTransaction } from '../../src-hub/store/postgres/transaction.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countRoundTrips, countSocketWrites } from './pg-counting.js';

describeOnPostgres('pipelined statements on PostgreSQL', () => {
  const withPool = async (fn: (pool: pg.Pool) => Promise<void>) => {
    const url = await createTestDatabase();
    const pool = createPool({ url, max: 3, onIdleError: () => undefined });
    try {
      await pool.query('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
      await fn(pool);
    } finally {
      await pool.end();
    }
  };

  it('BEGIN, a key lock and a read share a round trip; a one-row insert and COMMIT share the next', async () => {
    await withPool(async (pool) => {
      const client = await pool.connect();
      try {
        const counted = countRoundTrips(client);
        const s = createPgSession(client);
        const began = s.statement('BEGIN');
        s.lockKey('key-1');
        const row = await s.get('SELECT n FROM t WHERE id = ?', ['a']);
        s.write('INSERT INTO t (id, n) VALUES (?, ?)', ['a', 1], 1);
        await began;
        const flushed = s.flush();
        const committed = s.statement('COMMIT');
        await flushed;
        await committed;
        expect(row).toBeUndefined();
        // without pipelining: BEGIN, lock, read, insert, COMMIT — five
        expect(counted.roundTrips).toBe(2);
        expect((await pool.query('SELECT n FROM t')).rows).toEqual([{ n: 1 }]);
      } finally {
        client.release();
      }
    });
  });

  it('the statements a connection is given in one turn of the event loop leave in one socket write', async () => {
    await withPool(async (pool) => {
      const client = await pool.connect();
      try {
        const socket = countSocketWrites(client);
        const s = createPgSession(client);
        const began = s.statement('BEGIN');
        s.lockKey('key-burst');
        const reads = [
          s.get('SELECT n FROM t WHERE id = ?', ['a']),
          s.get('SELECT n FROM t WHERE id = ?', ['b']),
          s.all('SELECT id FROM t ORDER BY id'),
        ];
        const committed = s.statement('COMMIT');
        await Promise.all([began, ...reads, committed]);
        // BEGIN, the lock, three reads (each Bind, Describe, Execute, Sync; Parse the first time) and COMMIT
        expect(socket.writes).toBe(1);
        // and the next turn's statements leave in a write of their own
        await Promise.all([client.query('SELECT 1'), client.query('SELECT 2')]);
        expect(socket.writes).toBe(2);
      } finally {
        client.release();
      }
    });
  });

  it('a read sent behind a key lock runs once the lock is held and sees what its holder committed', async () => {
    await withPool(async (pool) => {
      const holder = await pool.connect();
      const waiter = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['key-2']);
        const s = createPgSession(waiter);
        void s.statement('BEGIN');
        s.lockKey('key-2');
        const read = s.get<{ n: number }>('SELECT n FROM t WHERE id = ?', ['b']);
        await new Promise((r) => setTimeout(r, 100)); // the lock and the read are on the server, waiting
        await holder.query("INSERT INTO t (id, n) VALUES ('b', 7)");
        await holder.query('COMMIT');
        expect(await read).toEqual({ n: 7 });
        await s.statement('COMMIT');
      } finally {
        holder.release();
        waiter.release();
      }
    });
  });

  it("a failing write's own error is reported, not the aborted transaction of the statements behind it", async () => {
    await withPool(async (pool) => {
      await pool.query("INSERT INTO t VALUES ('taken', 0)");
      const err = await inTransaction(pool, 'BEGIN', async (s) => {
        s.write('INSERT INTO t (id, n) VALUES (?, ?)', ['taken', 1]); // unique violation, held back
        s.lockKey('key-3'); // goes out with it
        await s.get('SELECT n FROM t WHERE id = ?', ['taken']); // sent behind it: 25P02 on the server
        return 'committed';
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreOperationError);
      expect((err as StoreOperationError).dbCode).toBe('23505');
      expect((await pool.query("SELECT n FROM t WHERE id = 'taken'")).rows).toEqual([{ n: 0 }]);
    });
  });
});
