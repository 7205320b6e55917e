/**
 * Several writes of one transaction as one statement: each becomes a data-modifying CTE
 * (`WITH w1 AS (INSERT ...), w2 AS (UPDATE ...) ...`), so they cost one round trip. PostgreSQL runs
 * every data-modifying CTE exactly once and to completion, but all of them see the same snapshot
 * and in no promised order; so statements are combined only when they change different tables (no
 * statement could see, or race, another's rows), and only the shapes the store writes — a single
 * INSERT, UPDATE or DELETE on one table. Anything else goes alone.
 *
 * No promised order also means no promised order of the row locks a combined statement takes, and
 * two transactions taking two hot rows' locks in opposite orders deadlock (PostgreSQL breaks it
 * after deadlock_timeout, a second). So a combined statement takes at most one contended lock
 * besides those its transaction holds already. An upsert (`ON CONFLICT ... DO UPDATE`: a task's
 * view mark, its per-state counts) locks rows other changes of the task lock too: it is combined
 * only with plain INSERTs (new rows, which no other transaction locks). What else is combined locks
 * no row another transaction locks in another order: new rows, the rows of the invocation whose
 * lock the transaction holds, and at most one task row.
 */
import type { SqlValue } from '../sql/session.js';

export interface Statement {
  sql: string;
  params: readonly SqlValue[];
  /** The number of rows it must change (the transaction fails otherwise). */
  expect?: number;
}

/** A combined statement, and the row counts its answer must show. */
export interface Combined extends Statement {
  /** Each expectation: the answer's column holding the count (null: the statement's own row count). */
  checks: Array<{ column: string | null; expect: number; sql: string }>;
  /** The server fails the statement itself when a count differs (combine's `enforce`). */
  enforced?: boolean;
}

const TARGET = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_]*)\b/i;

/** A write the store combines: its table, and whether it adds rows, changes rows, or upserts. */
function shape(sql: string): { table: string; kind: 'insert' | 'change' | 'upsert' } | null {
  if (sql.includes(';') || /\bRETURNING\b/i.test(sql)) return null;
  const table = TARGET.exec(sql)?.[1]?.toLowerCase();
  if (table === undefined) return null;
  const insert = /^\s*INSERT\b/i.test(sql);
  if (/\bDO\s+UPDATE\b/i.test(sql)) return insert ? { table, kind: 'upsert' } : null;
  return { table, kind: insert ? 'insert' : 'change' };
}

/** The table a plain INSERT/UPDATE/DELETE changes; null for any other statement (an upsert too). */
export function targetTable(sql: string): string | null {
  const s = shape(sql);
  return s && s.kind !== 'upsert' ? s.table : null;
}

/** Whether `next` can join `held` in one statement. */
export function fits(held: readonly Statement[], next: Statement): boolean {
  const n = shape(next.sql);
  if (n === null) return false;
  const hs = held.map((h) => shape(h.sql));
  if (hs.some((h) => h === null || h.table === n.table)) return false;
  // an upsert's lock is contended: it goes only with new rows, and only new rows go with it
  if (n.kind === 'upsert') return hs.every((h) => h!.kind === 'insert');
  if (hs.some((h) => h!.kind === 'upsert')) return n.kind === 'insert';
  return true;
}

/**
 * A statement that reads no table and writes nothing: a transaction lock on a key
 * (dialect.ts). It can go out as the main SELECT of the held-back writes' statement — it sees
 * nothing they change — so a write followed by the next change's lock costs one round trip.
 */
export const LOCK_KEY_SQL = 'SELECT pg_advisory_xact_lock(hashtextextended(?, 0)) AS locked';

/**
 * One statement running `held` and then, if given, `counted`, whose changed-row count it answers
 * as `n`, or `select` (LOCK_KEY_SQL), whose columns it answers; the count of every held statement
 * with an expectation is answered as `e<i>`. `held` alone, when it is one statement, is sent as it is.
 * With `enforce`, the server itself fails the statement when a count differs from its expectation
 * (session.ts enforceChecks).
 */
export function combine(
  held: readonly Statement[],
  counted: Statement | null,
  select?: Statement,
  opts: { enforce?: boolean } = {},
): Combined {
  const enforce =
    opts.enforce === true &&
    held.some((h) => h.expect !== undefined) &&
    held.every((h) => h.expect === undefined || !/;|\bRETURNING\b/i.test(h.sql));
  if (counted === null && !select && held.length === 1 && !enforce) {
    const only = held[0]!;
    const checks = only.expect === undefined ? [] : [{ column: null, expect: only.expect, sql: only.sql }];
    return { sql: only.sql, params: only.params, checks };
  }
  const checks: Combined['checks'] = [];
  const columns: string[] = [];
  const parts = held.map((h, i) => {
    if (h.expect === undefined) return `w${i + 1} AS (${h.sql.trim()})`;
    checks.push({ column: `e${i + 1}`, expect: h.expect, sql: h.sql });
    const count = `(SELECT COUNT(*) FROM w${i + 1})::int`;
    const n = Math.trunc(h.expect);
    // enforced: another count fails the statement on the server (a text that is no integer), so
    // the transaction is aborted and its COMMIT a rollback without waiting for this answer
    columns.push(
      enforce
        ? `CASE WHEN ${count} = ${n} THEN ${n} ELSE ('a store write changed ' || ${count} || ' rows where ${n} were expected')::int END AS e${i + 1}`
        : `${count} AS e${i + 1}`,
    );
    return `w${i + 1} AS (${h.sql.trim()} RETURNING 1)`;
  });
  const params: SqlValue[] = held.flatMap((h) => [...h.params]);
  if (counted) {
    parts.push(`counted AS (${counted.sql.trim()} RETURNING 1)`);
    params.push(...counted.params);
    columns.unshift('(SELECT COUNT(*) FROM counted)::int AS n');
  }
  if (select) params.push(...select.params);
  const main = select
    ? [select.sql.trim(), ...columns].join(', ')
    : columns.length > 0
      ? `SELECT ${columns.join(', ')}`
      : 'SELECT 1 AS done';
  return {
    sql: `WITH ${parts.join(',\n')}\n${main}`,
    params,
    checks,
    ...(enforce ? { enforced: true } : {}),
  };
}
