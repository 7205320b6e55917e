// The PostgreSQL session holds back writes whose row count an operation does not read and sends
// them with its next statement, as one statement of data-modifying CTEs
// (src-hub/store/postgres/session.ts, combine.ts): fewer round trips while the task row is locked.
// What must hold: the writes reach the server in fewer statements, in order (a later read sees
// them), only writes to different tables share a statement, and a held-back write that fails fails
// its transaction with its own error code, with nothing of the transaction committed.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { combine, fits, LOCK_KEY_SQL, targetTable } from '../../src-hub/store/postgres/combine.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { inTransaction } from '../../src-hub/store/postgres/transaction.js';
import { StoreOperationError } from '../../src-hub/store/errors.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';

describe('combining writes (combine.ts)', () => {
  it('combines plain writes to different tables, and nothing else', () => {
    const w = (sql: string) => ({ sql, params: [] });
    expect(targetTable('INSERT INTO audit (a) VALUES (?)')).toBe('audit');
    expect(targetTable('  UPDATE tasks SET x = ? WHERE y = ?')).toBe('tasks');
    expect(targetTable('DELETE FROM permits WHERE permit_id = ?')).toBe('permits');
    expect(targetTable('SELECT * FROM tasks')).toBeNull();
    expect(targetTable('INSERT INTO a (x) VALUES (1) RETURNING x')).toBeNull();
    expect(targetTable('WITH x AS (SELECT 1) INSERT INTO a SELECT * FROM x')).toBeNull();
    expect(targetTable('INSERT INTO a VALUES (1); DROP TABLE a')).toBeNull();
    // an upsert locks a row others lock too: combined, its lock could come before the others'
    expect(
      targetTable('INSERT INTO m (k, at) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET at = excluded.at'),
    ).toBeNull();
    expect(targetTable('INSERT INTO d (k) VALUES (?) ON CONFLICT DO NOTHING')).toBe('d');
    const held = [w('INSERT INTO permits (a) VALUES (?)'), w('UPDATE tasks SET a = ?')];
    expect(fits(held, w('INSERT INTO audit (a) VALUES (?)'))).toBe(true);
    expect(fits(held, w('INSERT INTO permits (a) VALUES (?)'))).toBe(false); // same table
    expect(fits(held, w('UPDATE permits SET a = ?'))).toBe(false); // would not see the insert
    expect(fits(held, w('SELECT 1'))).toBe(false);
    expect(fits([w('SELECT pg_sleep(0)')], w('INSERT INTO audit (a) VALUES (?)'))).toBe(false);
    // an upsert goes only with new rows (plain inserts), and only new rows go with it
    const upsert = w(
      'INSERT INTO counts (k, n) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET n = counts.n + excluded.n',
    );
    expect(fits([w('INSERT INTO audit (a) VALUES (?)')], upsert)).toBe(true);
    expect(fits([w('INSERT INTO audit (a) VALUES (?)'), w('UPDATE tasks SET a = ?')], upsert)).toBe(false);
    expect(fits([upsert], w('INSERT INTO audit (a) VALUES (?)'))).toBe(true);
    expect(fits([upsert], w('UPDATE tasks SET a = ?'))).toBe(false);
    expect(fits([upsert], w('DELETE FROM permits WHERE a = ?'))).toBe(false);
    expect(fits([upsert], { ...upsert, sql: upsert.sql.replace(/counts/g, 'marks') })).toBe(false);
  });

  it('keeps every parameter in statement order and counts the last statement', () => {
    const c = combine(
      [
        { sql: 'INSERT INTO a (x, y) VALUES (?, ?)', params: [1, 2] },
        { sql: 'UPDATE b SET x = ?', params: [3] },
      ],
      { sql: 'UPDATE c SET x = ? WHERE y = ?', params: [4, 5] },
    );
    expect(c.params).toEqual([1, 2, 3, 4, 5]);
    expect(c.sql).toContain('w1 AS (INSERT INTO a (x, y) VALUES (?, ?))');
    expect(c.sql).toContain('counted AS (UPDATE c SET x = ? WHERE y = ? RETURNING 1)');
    expect(c.sql).toMatch(/SELECT \(SELECT COUNT\(\*\) FROM counted\)::int AS n$/);
    const one = { sql: 'INSERT INTO a (x) VALUES (?)', params: [1] };
    expect(combine([one], null)).toEqual({ ...one, checks: [] });
    // a write that must change one row is counted in the answer
    const checked = combine([{ sql: 'UPDATE a SET x = ?', params: [1], expect: 1 }, one], null);
    expect(checked.sql).toContain('w1 AS (UPDATE a SET x = ? RETURNING 1)');
    expect(checked.sql).toMatch(/SELECT \(SELECT COUNT\(\*\) FROM w1\)::int AS e1$/);
    expect(checked.checks).toEqual([{ column: 'e1', expect: 1, sql: 'UPDATE a SET x = ?' }]);
  });
});

describeOnPostgres('held-back writes on PostgreSQL', () => {
  const withPool = async (fn: (pool: pg.Pool) => Promise<void>) => {
    const url = await createTestDatabase();
    const pool = createPool({ url, max: 2, onIdleError: () => undefined });
    try {
      await pool.query(`CREATE TABLE t1 (id TEXT PRIMARY KEY, n INTEGER NOT NULL);
          CREATE TABLE t2 (id TEXT PRIMARY KEY, n INTEGER NOT NULL);
          CREATE TABLE t3 (id TEXT PRIMARY KEY, n INTEGER NOT NULL);
          INSERT INTO t2 VALUES ('row', 0);`);
      await fn(pool);
    } finally {
      await pool.end();
    }
  };
  /** Counts the statements the pool's connections are sent from now on. */
  const counting = (pool: pg.Pool) => {
    const sent: string[] = [];
    const wrapped = new WeakSet<pg.PoolClient>();
    pool.on('acquire', (client) => {
      if (wrapped.has(client)) return;
      wrapped.add(client);
      const original = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        const q = args[0];
        sent.push(typeof q === 'string' ? q : (q as { text: string }).text);
        return original(...args);
      };
    });
    return sent;
  };

  it('writes to different tables reach the server in one statement, and a later read sees them', async () => {
    await withPool(async (pool) => {
      const sent = counting(pool);
      const { value } = await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['a', 1]);
        await s.write('UPDATE t2 SET n = n + ? WHERE id = ?', [5, 'row']);
        const changed = await s.run('INSERT INTO t3 (id, n) VALUES (?, ?)', ['c', 3]);
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['b', 2]);
        const rows = await s.all<{ id: string }>('SELECT id FROM t1 ORDER BY id');
        return { changed, ids: rows.map((r) => r.id) };
      });
      expect(value).toEqual({ changed: 1, ids: ['a', 'b'] });
      // BEGIN, [t1 + t2 + t3 counted], [t1], the read, COMMIT
      expect(sent).toHaveLength(5);
      expect(sent[1]).toMatch(/^WITH w1 AS \(INSERT INTO t1/);
      const t2 = await pool.query<{ n: number }>("SELECT n FROM t2 WHERE id = 'row'");
      expect(t2.rows[0]?.n).toBe(5);
    });
  });

  it('answers known ahead answer once, and none once forgotten (forgetAhead)', async () => {
    await withPool(async (pool) => {
      const sent = counting(pool);
      await inTransaction(pool, 'BEGIN', async (s) => {
        const read = 'SELECT id FROM t1 WHERE id = ?';
        s.knowRows(read, ['a'], Promise.resolve([{ id: 'known' }]));
        s.knowRows(read, ['b'], Promise.resolve([{ id: 'known' }]));
        expect(s.knows(read, ['a'])).toBe(true);
        expect(s.knows(read, ['c'])).toBe(false);
        expect(await s.all(read, ['a'])).toEqual([{ id: 'known' }]);
        expect(s.knows(read, ['a'])).toBe(false); // taken once
        expect(await s.all(read, ['a'])).toEqual([]); // read from the table
        s.forgetAhead();
        expect(s.knows(read, ['b'])).toBe(false);
        expect(await s.all(read, ['b'])).toEqual([]);
        s.knowLocked('k');
        expect(s.holdsLock('k')).toBe(true);
        expect(s.holdsLock('other')).toBe(false);
      });
      // BEGIN, the two reads that were not known, COMMIT
      expect(sent).toHaveLength(4);
    });
  });

  it('a write to a table with a held-back write waits for it, so it sees that row', async () => {
    await withPool(async (pool) => {
      await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['a', 1]);
        await s.write('UPDATE t1 SET n = n + 1 WHERE id = ?', ['a']);
        expect(await s.run('UPDATE t1 SET n = n + 1 WHERE id = ?', ['a'])).toBe(1);
      });
      const r = await pool.query<{ n: number }>("SELECT n FROM t1 WHERE id = 'a'");
      expect(r.rows[0]?.n).toBe(3);
    });
  });

  it('a held-back write that fails at COMMIT fails the transaction with its own code; nothing is kept', async () => {
    await withPool(async (pool) => {
      await pool.query("INSERT INTO t1 VALUES ('taken', 0)");
      const err = await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('UPDATE t2 SET n = n + 1 WHERE id = ?', ['row']);
        await s.write('INSERT INTO t3 (id, n) VALUES (?, ?)', ['new', 1]);
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['taken', 1]); // unique violation
        return 'committed';
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StoreOperationError);
      expect((err as StoreOperationError).dbCode).toBe('23505');
      expect((await pool.query("SELECT n FROM t2 WHERE id = 'row'")).rows[0]?.n).toBe(0);
      expect((await pool.query('SELECT COUNT(*)::int AS n FROM t3')).rows[0]?.n).toBe(0);
    });
  });

  it('a held-back write that must change one row and changes none fails the transaction; nothing is kept, no COMMIT is sent', async () => {
    await withPool(async (pool) => {
      const sent = counting(pool);
      const err = await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('INSERT INTO t3 (id, n) VALUES (?, ?)', ['new', 1]);
        await s.write('UPDATE t1 SET n = ? WHERE id = ?', [1, 'missing'], 1);
        await s.write('UPDATE t2 SET n = n + 1 WHERE id = ?', ['row'], 1);
        return 'committed';
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(sent).not.toContain('COMMIT');
      expect(sent.at(-1)).toBe('ROLLBACK');
      expect((await pool.query('SELECT COUNT(*)::int AS n FROM t3')).rows[0]?.n).toBe(0);
      expect((await pool.query("SELECT n FROM t2 WHERE id = 'row'")).rows[0]?.n).toBe(0);
    });
  });

  it('with the checks enforced by the server, COMMIT goes out with the writes; a wrong count still keeps nothing', async () => {
    await withPool(async (pool) => {
      const sent = counting(pool);
      const { value } = await inTransaction(pool, 'BEGIN', async (s) => {
        s.enforceChecks();
        await s.write('INSERT INTO t3 (id, n) VALUES (?, ?)', ['kept', 1]);
        await s.write('UPDATE t2 SET n = n + 1 WHERE id = ?', ['row'], 1);
        return 'committed';
      });
      expect(value).toBe('committed');
      expect(sent.at(-1)).toBe('COMMIT');
      expect(sent.at(-2)).toMatch(/CASE WHEN \(SELECT COUNT\(\*\) FROM w2\)::int = 1 THEN 1 ELSE/);
      expect((await pool.query("SELECT n FROM t2 WHERE id = 'row'")).rows[0]?.n).toBe(1);

      sent.length = 0;
      const err = await inTransaction(pool, 'BEGIN', async (s) => {
        s.enforceChecks();
        await s.write('INSERT INTO t3 (id, n) VALUES (?, ?)', ['lost', 1]);
        await s.write('UPDATE t1 SET n = ? WHERE id = ?', [1, 'missing'], 1);
        return 'committed';
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      // COMMIT went out behind the write without waiting for its answer: the server made it a rollback
      expect(sent).toContain('COMMIT');
      expect((await pool.query("SELECT COUNT(*)::int AS n FROM t3 WHERE id = 'lost'")).rows[0]?.n).toBe(0);
    });
  });

  it("a key lock after held-back writes goes out as their statement's SELECT; their checks still hold", async () => {
    await withPool(async (pool) => {
      const sent = counting(pool);
      await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['a', 1]);
        await s.write('UPDATE t2 SET n = n + ? WHERE id = ?', [5, 'row'], 1);
        expect(await s.get(LOCK_KEY_SQL, ['invocation:x'])).toMatchObject({ locked: '' });
      });
      // BEGIN, [t1 + t2 + the lock], COMMIT
      expect(sent).toHaveLength(3);
      expect(sent[1]).toMatch(/^WITH w1 AS \(INSERT INTO t1/);
      expect(sent[1]).toContain('SELECT pg_advisory_xact_lock(hashtextextended($5, 0)) AS locked');
      expect((await pool.query("SELECT n FROM t2 WHERE id = 'row'")).rows[0]?.n).toBe(5);
      // a checked write that changes no row fails the lock's statement, and the transaction
      const err = await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('UPDATE t2 SET n = n + 1 WHERE id = ?', ['missing'], 1);
        await s.get(LOCK_KEY_SQL, ['invocation:y']);
        return 'locked';
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
    });
  });

  it('an upsert and the inserts after it reach the server in one statement', async () => {
    await withPool(async (pool) => {
      const sent = counting(pool);
      await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('UPDATE t2 SET n = n + 1 WHERE id = ?', ['row']);
        await s.write(
          'INSERT INTO t2 (id, n) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET n = t2.n + excluded.n',
          ['row', 10],
        );
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['a', 1]);
        await s.write('INSERT INTO t3 (id, n) VALUES (?, ?)', ['c', 3], 1);
      });
      // BEGIN, [t2 update], [t2 upsert + t1 + t3], COMMIT
      expect(sent).toHaveLength(4);
      expect(sent[2]).toMatch(/^WITH w1 AS \(INSERT INTO t2 .* DO UPDATE/s);
      expect((await pool.query("SELECT n FROM t2 WHERE id = 'row'")).rows[0]?.n).toBe(11);
      expect((await pool.query('SELECT COUNT(*)::int AS n FROM t1')).rows[0]?.n).toBe(1);
      expect((await pool.query('SELECT COUNT(*)::int AS n FROM t3')).rows[0]?.n).toBe(1);
    });
  });

  it('a held-back write that fails before a read is the error the read reports', async () => {
    await withPool(async (pool) => {
      await pool.query("INSERT INTO t1 VALUES ('taken', 0)");
      let readFailed: unknown = null;
      const err = await inTransaction(pool, 'BEGIN', async (s) => {
        await s.write('INSERT INTO t1 (id, n) VALUES (?, ?)', ['taken', 1]);
        try {
          await s.get('SELECT n FROM t2 WHERE id = ?', ['row']);
        } catch (e) {
          readFailed = e;
          throw e;
        }
        return 'read';
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect((readFailed as { code?: string } | null)?.code).toBe('23505');
      expect((err as StoreOperationError).dbCode).toBe('23505');
      expect((await pool.query('SELECT COUNT(*)::int AS n FROM t1')).rows[0]?.n).toBe(1);
    });
  });
});
