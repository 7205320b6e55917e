// Plans that must not depend on the statistics (src-hub/store/postgres/plans.ts). A connection
// keeps one generic plan per prepared statement for its life, so a plan made while `invocations`
// was empty stays in use as it grows. What must hold: with INDEX_PLANS set in its transaction, the
// generic plan a connection makes on an EMPTY table for the set-based run's check of which calls
// exist reaches each call by the primary key, and the one for a task's oldest unresolved calls
// reads each state's calls in order from invocations_task_created — never a sequential scan of
// `invocations` nor a sort of every call of a state; a plan that still needs a sort (priced at the
// disable cost) is not JIT-compiled. And the settings end with the transaction.
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { EXISTING } from '../../src-hub/store/postgres/permit-run.js';
import { INDEX_PLANS } from '../../src-hub/store/postgres/plans.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { UNRESOLVED_SQL } from '../../src-hub/store/postgres/task-view.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';

/** `?` placeholders numbered as the store's session numbers them. */
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

describeOnPostgres('plans of the PostgreSQL store', () => {
  let c: pg.Client;

  beforeEach(async () => {
    const url = await createTestDatabase();
    await (await openPostgresStore({ url, sequenceIntervalMs: 600_000 })).close(); // the schema
    c = new pg.Client({ connectionString: url });
    await c.connect();
  });
  afterEach(async () => {
    await c.end();
  });

  const explain = async (sql: string) =>
    (await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows.map((r) => r['QUERY PLAN']).join('\n');

  it('the generic plans made on an empty invocations table use its indexes, and the settings end with the transaction', async () => {
    expect(Number((await c.query('SELECT COUNT(*) AS n FROM invocations')).rows[0].n)).toBe(0);
    await c.query('BEGIN');
    try {
      await c.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await c.query(INDEX_PLANS);
      await c.query(`PREPARE existing(text) AS ${numbered(EXISTING)}`);
      await c.query(`PREPARE unresolved AS ${numbered(UNRESOLVED_SQL)}`);
      const existing = await explain(`EXECUTE existing('["inv_1", "inv_2"]')`);
      expect(existing).toMatch(
        /Index (Only )?Scan on invocations_pkey|Index (Only )?Scan using invocations_pkey/,
      );
      expect(existing).not.toMatch(/Seq Scan on invocations/);
      const args = Array.from({ length: 5 }, () => `'task_1', 'dispatching', 100`).join(', ');
      const unresolved = await explain(`EXECUTE unresolved(${args})`);
      expect(unresolved.match(/Index Scan using invocations_task_created on invocations/g)).toHaveLength(5);
      expect(unresolved).not.toMatch(/Seq Scan|Sort/);
      // a plan that still needs a sort is priced at the disable cost: never JIT-compiled for it
      const sorted = (
        await c.query<{ 'QUERY PLAN': string }>(
          'EXPLAIN (ANALYZE, COSTS ON) SELECT g FROM generate_series(1, 10) AS g ORDER BY g DESC',
        )
      ).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(sorted).toMatch(/Sort/);
      expect(sorted).not.toMatch(/JIT:/);
    } finally {
      await c.query('ROLLBACK');
    }
    const shown = await c.query<{ enable_seqscan: string; enable_sort: string; jit: string }>(
      `SELECT current_setting('enable_seqscan') AS enable_seqscan, current_setting('enable_sort') AS enable_sort, current_setting('jit') AS jit`,
    );
    expect(shown.rows[0]).toEqual({ enable_seqscan: 'on', enable_sort: 'on', jit: 'on' });
  });
});
