// Named statements whose columns a connection knows (src-hub/store/postgres/known-rows.ts): after a
// statement's first result with rows described on a connection, its later executions there are not
// described again. What must hold: the server sends one row description per statement and
// connection, however often it runs, pipelined or not, with rows or none; every result still has its
// columns, names, values and parsers (BIGINT as a number, NULL as null); another connection
// describes for itself; and if the table under a statement changes its columns, the server refuses
// the statement on that connection (it never answers rows the kept description would misname).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { knownRowsSupported, withKnownRows } from '../../src-hub/store/postgres/known-rows.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';

const READ = {
  name: `kr_${randomUUID().slice(0, 8)}`,
  text: 'SELECT id, n, note FROM kr WHERE id = $1',
};

/** The row descriptions the server sent this client. */
function countDescriptions(client: pg.PoolClient): { n: number } {
  const seen = { n: 0 };
  (client as unknown as { connection: NodeJS.EventEmitter }).connection.on('rowDescription', () => {
    seen.n += 1;
  });
  return seen;
}

describeOnPostgres('named statements whose columns a connection knows', () => {
  const withPool = async (fn: (pool: pg.Pool) => Promise<void>) => {
    const url = await createTestDatabase();
    const pool = createPool({ url, max: 2, onIdleError: () => undefined });
    try {
      await pool.query('CREATE TABLE kr (id TEXT PRIMARY KEY, n BIGINT, note TEXT)');
      await pool.query(`INSERT INTO kr VALUES ('a', 9007199254740000, 'first'), ('b', NULL, NULL)`);
      await fn(pool);
    } finally {
      await pool.end();
    }
  };

  it('one row description per statement and connection; every result keeps its columns and values', async () => {
    await withPool(async (pool) => {
      const client = await pool.connect();
      try {
        const described = countDescriptions(client);
        const first = await client.query({ ...READ, values: ['a'] });
        expect(first.rows).toEqual([{ id: 'a', n: 9007199254740000, note: 'first' }]);
        expect(described.n).toBe(1);
        // pipelined: sent together, answered in order
        const [b, none, a] = await Promise.all([
          client.query({ ...READ, values: ['b'] }),
          client.query({ ...READ, values: ['nobody'] }),
          client.query({ ...READ, values: ['a'] }),
        ]);
        expect(b.rows).toEqual([{ id: 'b', n: null, note: null }]);
        expect(none.rows).toEqual([]);
        expect(none.fields.map((f) => f.name)).toEqual(['id', 'n', 'note']);
        expect(a.rows).toEqual(first.rows);
        expect(typeof a.rows[0].n).toBe('number');
        expect(a.rowCount).toBe(1);
        expect(described.n).toBe(1);
        // a statement without rows is described each time, as before; a plain one is untouched
        await client.query({
          name: `krw_${randomUUID().slice(0, 8)}`,
          text: 'UPDATE kr SET note = $1 WHERE id = $2',
          values: ['x', 'b'],
        });
        expect((await client.query('SELECT COUNT(*)::int AS c FROM kr')).rows).toEqual([{ c: 2 }]);
        // the pool's own queries (a client of its own, the callback form) as well
        const viaPool = await pool.query({ ...READ, values: ['b'] });
        expect(viaPool.rows).toEqual([{ id: 'b', n: null, note: 'x' }]);
      } finally {
        client.release();
      }
    });
  });

  it('another connection describes for itself; a changed table makes the server refuse, never misname', async () => {
    await withPool(async (pool) => {
      const one = await pool.connect();
      const two = await pool.connect();
      try {
        const onOne = countDescriptions(one);
        const onTwo = countDescriptions(two);
        await one.query({ ...READ, values: ['a'] });
        await one.query({ ...READ, values: ['a'] });
        await two.query({ ...READ, values: ['a'] });
        expect([onOne.n, onTwo.n]).toEqual([1, 1]);
        const star = { name: `krs_${randomUUID().slice(0, 8)}`, text: 'SELECT * FROM kr WHERE id = $1' };
        expect((await one.query({ ...star, values: ['a'] })).rows[0]).toEqual({
          id: 'a',
          n: 9007199254740000,
          note: 'first',
        });
        await two.query('ALTER TABLE kr ADD COLUMN added TEXT');
        await expect(one.query({ ...star, values: ['a'] })).rejects.toMatchObject({ code: '0A000' });
      } finally {
        one.release(true);
        two.release(true);
      }
    });
  });
});

describe('a pg whose internals are not the ones known-rows.ts reads', () => {
  it('is detected, and then every statement goes to pg as it is', () => {
    expect(knownRowsSupported(pg.Query as never)).toBe(true);
    class Moved {
      prepare(): void {}
      hasBeenParsed(): boolean {
        return false;
      }
      handleRowDescription(): void {}
      result = { fields: [], parsers: undefined };
    }
    expect(knownRowsSupported(Moved as never)).toBe(false);
    class Throws {
      constructor() {
        throw new Error('other constructor');
      }
    }
    expect(knownRowsSupported(Throws as never)).toBe(false);
    const query = (): undefined => undefined;
    expect(withKnownRows(query, false)).toBe(query);
    expect(withKnownRows(query, true)).not.toBe(query);
  });
});
