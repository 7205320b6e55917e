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
import { isUnavailable } from './errors.js';

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
 * The most distinct statements that merging several turns' reads may make: each is a prepared
 * statement on every connection that runs it. The same mix of operations makes the same statement
 * (the turns are put in order of their statements); past this many mixes, each turn goes alone.
 */
const MAX_MIXES = 256;
/** The most turns one statement carries. */
const MAX_TURNS = 16;

const byShape = (a: { shape: string }, b: { shape: string }) =>
  a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : 0;

/**
 * A session for read operations that sends each turn's reads as one statement through `send` (an
 * ordinary session on the pool: session.ts numbers the placeholders and prepares the statement).
 *
 * The reads of the turns started in one turn of the event loop go out together too, as one
 * statement (sent from `setImmediate`, after the poll phase): the invokes of requests whose I/O
 * callbacks ran together (the callers a batch answered send their next calls at once) cost one
 * statement, one socket write and one answer instead of one each. A turn is one synchronous run of
 * an operation (its reads started at once, before any answer). A failing read fails every read of
 * its statement: when a statement of several turns fails with anything but a lost store (a bad
 * value in one turn's parameters, a cancelled statement, a timeout), each of its turns is sent
 * again as a statement of its own, so only the turn whose reads fail gets an error — its own.
 */
export function readTogether(send: SqlSession, opts: { maxMixes?: number } = {}): SqlSession {
  const maxMixes = opts.maxMixes ?? MAX_MIXES;
  /** The reads started so far, by turn (one synchronous run of starts). */
  let turns: Pending[][] = [];
  let turn: Pending[] | null = null;
  const mixes = new Set<string>();
  /** Sends the reads of `group` (turns) as one statement; see above for a failing one. */
  const sendAsOne = (group: Pending[][]) => {
    const reads = group.flat();
    if (reads.length === 1) {
      const only = reads[0]!;
      Promise.resolve(send.all<Row>(only.sql, only.params)).then(only.resolve, only.reject);
      return;
    }
    const { sql, params } = readsAsOne(reads);
    Promise.resolve(send.get<Record<string, Row[] | null>>(sql, params)).then(
      (row) => reads.forEach((r, k) => r.resolve(row?.[`r${k}`] ?? [])),
      (err: unknown) => {
        // a lost store fails every turn alike; anything else may be one turn's alone
        if (group.length === 1 || isUnavailable(err)) return reads.forEach((r) => r.reject(err));
        for (const turnReads of group) sendAsOne([turnReads]);
      },
    );
  };
  const flush = () => {
    const started = turns;
    turns = [];
    if (started.length === 1) return sendAsOne(started);
    const shaped = started.map((reads) => ({ reads, shape: reads.map((r) => r.sql).join('\u0000') }));
    for (let i = 0; i < shaped.length; i += MAX_TURNS) {
      const group = shaped.slice(i, i + MAX_TURNS).sort(byShape);
      const mix = group.map((g) => g.shape).join('\u0001');
      if (group.length > 1 && !mixes.has(mix) && mixes.size >= maxMixes) {
        for (const g of group) sendAsOne([g.reads]);
        continue;
      }
      if (group.length > 1) mixes.add(mix);
      sendAsOne(group.map((g) => g.reads));
    }
  };
  const read = (sql: string, params: readonly SqlValue[] = []) =>
    new Promise<Row[]>((resolve, reject) => {
      if (turns.length === 0) setImmediate(flush);
      if (!turn) {
        // the reads started in this turn (before any of them can be answered) are one turn
        turn = [];
        turns.push(turn);
        queueMicrotask(() => (turn = null));
      }
      turn.push({ sql, params, resolve, reject });
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
