/**
 * A read-only session whose reads started together reach the server as ONE statement: each read
 * becomes a subquery whose rows come back as one JSON array (`json_agg`), all of them columns of a
 * single row. An invoke's reads (sql/ops/invoke-reads.ts: the call, the run, the authorization and
 * its grant, the declaration, the system, the task) start at once; sent pipelined as seven
 * statements they cost the Hub seven statements' messages, result rows, parsers and promises, and
 * the server seven executions — per governed call. As one statement they cost one of each, and
 * read one snapshot (the pipelined reads each read their own, one after another).
 *
 * Only for tables whose columns are TEXT, INTEGER and BIGINT (every column the Hub's migrations
 * create but the tool search index's tsvector, which no read returns;
 * test/store/postgres-invoke-reads.test.ts fails on any other): a JSON number is the same JavaScript number pg's parsers give for INTEGER and BIGINT
 * (pool.ts reads BIGINT as a number), a JSON string the same string, null the same null. A read
 * that starts after another's answer (an operation reading on from what it read) goes out as the
 * next statement.
 */
import type { Row, SqlSession, SqlValue } from '../sql/session.js';
import { POSTGRES_DIALECT } from './dialect.js';

interface Pending {
  sql: string;
  params: readonly SqlValue[];
  resolve(rows: Row[]): void;
  reject(err: unknown): void;
}

/** One statement answering every read in `reads`, in order: column `r<k>` the rows of read k (JSON). */
export function readsAsOne(reads: ReadonlyArray<{ sql: string; params: readonly SqlValue[] }>): {
  sql: string;
  params: SqlValue[];
} {
  return {
    sql: `SELECT ${reads.map((r, k) => `(SELECT json_agg(q) FROM (${r.sql.trim()}) AS q) AS r${k}`).join(',\n  ')}`,
    params: reads.flatMap((r) => [...r.params]),
  };
}

/**
 * A session for read operations that sends each turn's reads as one statement through `send` (an
 * ordinary session on the pool: session.ts numbers the placeholders and prepares the statement).
 */
export function readTogether(send: SqlSession): SqlSession {
  let pending: Pending[] = [];
  const flush = () => {
    const reads = pending;
    pending = [];
    if (reads.length === 1) {
      const only = reads[0]!;
      Promise.resolve(send.all<Row>(only.sql, only.params)).then(only.resolve, only.reject);
      return;
    }
    const { sql, params } = readsAsOne(reads);
    Promise.resolve(send.get<Record<string, Row[] | null>>(sql, params)).then(
      (row) => reads.forEach((r, k) => r.resolve(row?.[`r${k}`] ?? [])),
      (err: unknown) => reads.forEach((r) => r.reject(err)),
    );
  };
  const read = (sql: string, params: readonly SqlValue[] = []) =>
    new Promise<Row[]>((resolve, reject) => {
      // the reads started in this turn (before any of them can be answered) go out together
      if (pending.length === 0) queueMicrotask(flush);
      pending.push({ sql, params, resolve, reject });
    });
  const readOnly = () => Promise.reject(new Error('a read-together session does not write'));
  return {
    dialect: POSTGRES_DIALECT,
    all: <T extends object = Row>(sql: string, params?: readonly SqlValue[]) =>
      read(sql, params) as Promise<T[]>,
    get: async <T extends object = Row>(sql: string, params?: readonly SqlValue[]) =>
      (await read(sql, params))[0] as T | undefined,
    run: readOnly,
    write: readOnly,
  };
}
