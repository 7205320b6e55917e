/**
 * An asynchronous SqlSession over one pg client (inside a transaction) or the pool (single reads).
 * `?` placeholders become `$1..$n`; every statement is a named prepared statement, so each
 * connection parses and plans a given SQL text once.
 *
 * Fewer round trips inside a transaction: a `write` (a statement whose row count the operation
 * does not read) is held back and sent together with the session's next statement, as one
 * statement of data-modifying CTEs (combine.ts) — so the writes that follow a permit decision
 * (permit, task, dispatch count, invocation, audit, event) reach the server in one or two round
 * trips instead of six, and the task row lock is held that much shorter. What is still held back
 * at the end goes out with COMMIT (`flush`), which is sent right behind it; a held-back write that
 * fails fails the transaction, and the caller sees its error, never a COMMIT that rolled back.
 *
 * On a pipelined connection (pool.ts) the statements nothing waits for — BEGIN, a key lock
 * (`lockKey`), held-back writes — do not wait for the answers before them either (`queue`).
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import type { Row, SqlSession, SqlValue } from '../sql/session.js';
import { combine, fits, LOCK_KEY_SQL, type Combined, type Statement } from './combine.js';
import { POSTGRES_DIALECT } from './dialect.js';
import { fromDriver, lostPreparedStatements } from './errors.js';
import { INDEX_PLANS } from './plans.js';

interface Prepared {
  name: string;
  text: string;
}

const prepared = new Map<string, Prepared>();

/** `INSERT INTO t (columns) VALUES (one row)`, nothing else: no ON CONFLICT, no SELECT. */
const ONE_ROW_INSERT = /^\s*INSERT\s+INTO\s+[a-z_][a-z0-9_]*\s*\([^()]*\)\s*VALUES\s*\([^()]*\)\s*$/i;

/** Numbers the placeholders (our SQL never has `?` inside a literal) and names the statement. */
function prepare(sql: string): Prepared {
  let p = prepared.get(sql);
  if (!p) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    p = { name: `b_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
    prepared.set(sql, p);
  }
  return p;
}

export interface PgSession extends SqlSession {
  /** True once an event was appended through this session (it needs sequencing after commit). */
  readonly appendedEvents: boolean;
  markEventAppended(): void;
  /**
   * Sends what is held back (without waiting for it): resolves once it ran, rejects with the first
   * failure of anything this session held back. Call it right before COMMIT and await it before
   * trusting the COMMIT's answer.
   */
  flush(): Promise<void>;
  /**
   * Takes a transaction lock on `key` (LOCK_KEY_SQL) without waiting for it: the statement goes out
   * behind the session's others (with its held-back writes, as their SELECT) and the session's next
   * statement runs only once the lock is held — on a pipelined connection right behind it, with no
   * round trip between. Its failure is the session's, seen by the next statement awaited. Outside a
   * transaction it is an ordinary statement, waited for.
   */
  lockKey(key: string): void | Promise<void>;
  /**
   * A session on the same connection and transaction that holds its writes back on its own: each of
   * several operations running at once (batch.ts, independent changes) combines its own writes, as
   * it would alone, instead of one operation's statement sending another's held writes early. The
   * failure of any of them is every one's; `flush` and `rollbackTo` of any cover them all.
   */
  fork(): PgSession;
  /**
   * Sets INDEX_PLANS (plans.ts) for the rest of the transaction, the first time it is asked for in
   * it (pipelined: no round trip of its own); later asks answer the same statement. A rollback to a
   * savepoint may have undone it: it is sent again after one.
   */
  indexPlans(): Promise<unknown>;
  /** Sends a statement without parameters (BEGIN, COMMIT, ROLLBACK) behind the session's others. */
  statement(text: string): Promise<unknown>;
  /**
   * Answers known ahead for this transaction (batch.ts, outcome-reads.ts: read under the lock that
   * serialises every writer of those rows, in the batch's first round trip): the next `get`/`all`
   * of exactly this SQL and these parameters is answered with `rows` instead of a statement, once.
   */
  knowRows(sql: string, params: readonly SqlValue[], rows: Promise<Row[]>): void;
  /**
   * The next `run` of exactly this SQL and these parameters changes `n` rows (known from rows read
   * under the lock that serialises them): it is held back as a write that must change `n` rows
   * (nothing is sent for 0), and answers `n` at once — no round trip waits for its count. Should
   * the count differ after all, the transaction fails, as with any checked write.
   */
  knowCount(sql: string, params: readonly SqlValue[], n: number): void;
  /**
   * From now on in this transaction, a held-back write's expected row count is checked by the
   * server too (combine.ts `enforce`: another count fails the statement, so the transaction is
   * aborted), and COMMIT does not wait for such a write's answer: writes, a view and COMMIT can
   * leave in one socket write (batch.ts, view-ahead.ts). The answer is still checked when it comes.
   */
  enforceChecks(): void;
  /**
   * `key`'s transaction lock is held already (taken in this transaction): `lockKey(key)` sends
   * nothing. A lock taken before the transaction's first SAVEPOINT is still known after a rollback
   * to a savepoint; one taken after it is forgotten then.
   */
  knowLocked(key: string): void;
  /** Whether the next `get`/`all` of exactly this SQL and these parameters is answered from knowRows. */
  knows(sql: string, params: readonly SqlValue[]): boolean;
  /** Whether `key`'s transaction lock is known to be held (knowLocked). */
  holdsLock(key: string): boolean;
  /**
   * Drops the answers known ahead (knowRows, knowCount) that nothing took: what was read ahead is
   * the state before the batch's changes, true for them only (batch.ts: once they are applied).
   */
  forgetAhead(): void;
  /**
   * Undoes everything since `SAVEPOINT name` (held-back writes not yet sent are dropped) and
   * releases it: the transaction goes on as it was at the savepoint, and a failure recorded since
   * is forgotten (group-commit.ts: one change of a batch failed, the others go on).
   */
  rollbackTo(name: string): Promise<void>;
}

export function createPgSession(target: Pool | PoolClient): PgSession {
  let appended = false;
  // only a client's statements run in one transaction, in order; the pool's go anywhere at once
  const inTransaction = 'release' in target;
  const pipelined = inTransaction && (target as PoolClient & { pipeline?: boolean }).pipeline === true;
  /** The writes held back by each view of the session (the session itself and its forks). */
  const views: Array<{ held: Statement[] }> = [];
  /** INDEX_PLANS as sent in this transaction (indexPlans), until a rollback to a savepoint. */
  let planned: Promise<unknown> | null = null;
  /** The first failure of a held-back write (sent without the operation waiting for it). */
  let failure: unknown = null;
  let sent: Promise<unknown> = Promise.resolve();
  /** Pipelined: the last checked write's answer (a barrier waits for it), and the last barrier's. */
  let checked: Promise<unknown> = Promise.resolve();
  let gate: Promise<unknown> = Promise.resolve();
  /** Answers known ahead (knowRows, knowCount, knowLocked), until a rollback to a savepoint. */
  const knownRows = new Map<string, Promise<Row[]>>();
  const knownCounts = new Map<string, number>();
  const lockedKeys = new Set<string>();
  /** The locks taken before the transaction's first savepoint: no rollback to one releases them. */
  const keptKeys = new Set<string>();
  let savepointed = false;
  /** Checked writes are enforced by the server (enforceChecks). */
  let enforcing = false;
  const knownKey = (sql: string, params: readonly SqlValue[] = []) => `${sql}\u0000${JSON.stringify(params)}`;
  const takeRows = (sql: string, params?: readonly SqlValue[]): Promise<Row[]> | undefined => {
    if (knownRows.size === 0) return undefined;
    const k = knownKey(sql, params);
    const rows = knownRows.get(k);
    knownRows.delete(k);
    return rows;
  };

  /**
   * Sends one statement behind the session's others. On a pipelined connection (pool.ts) it goes
   * out at once, without waiting for the answers of those before it: the server runs them in
   * order, each with its own snapshot, so a statement still sees every earlier one's effects and
   * locks, and a failure aborts the transaction for everything behind it. Otherwise (pg's own queue
   * is deprecated) it goes out in the same turn of the event loop as the last one's answer.
   *
   * A write's expected row count is checked here, on its answer, not by the server: so COMMIT and
   * RELEASE SAVEPOINT (`barrier`) wait for the answers of the checked writes before them, and
   * once a held-back write is known to have failed nothing but ROLLBACK is sent. What was already
   * sent behind a failed write fails with it and reports that first failure (`query`).
   */
  function queue(
    config: string | QueryConfig,
    opts: {
      check?: (r: QueryResult<QueryResultRow>) => void;
      held?: boolean;
      barrier?: boolean;
      /** The server enforces what `check` checks: a barrier need not wait for it. */
      enforced?: boolean;
    } = {},
  ): Promise<QueryResult<QueryResultRow>> {
    const go = () => {
      if (failure && config !== 'ROLLBACK') throw failure;
      return target.query<QueryResultRow>(config as QueryConfig);
    };
    const after = !pipelined ? sent : opts.barrier ? Promise.all([gate, checked]) : gate;
    const q = after
      .then(go)
      .catch((err: unknown) => {
        const e = err === failure ? err : fromDriver(err);
        if (opts.held) failure ??= e; // recorded before `sent` settles: a later statement's failure defers to it
        return Promise.reject(e);
      })
      .then((r) => {
        opts.check?.(r);
        return r;
      });
    sent = q.catch(() => undefined);
    if (opts.check && !opts.enforced) checked = sent;
    if (opts.barrier) gate = sent;
    return q;
  }
  function send(
    sql: string,
    params: readonly SqlValue[],
    check?: (r: QueryResult<QueryResultRow>) => void,
    held = false,
    enforced = false,
  ): Promise<QueryResult<QueryResultRow>> {
    const p = prepare(sql);
    const config = { name: p.name, text: p.text, values: params as unknown[] };
    // the pool runs each of its queries on some connection, at once
    if (!inTransaction)
      return (
        target
          .query<QueryResultRow>(config)
          // pg-pool dropped the connection that failed: a connection that lost its prepared
          // statements (errors.ts) is read from again on another, once
          .catch((err: unknown) =>
            lostPreparedStatements(err) ? target.query<QueryResultRow>(config) : Promise.reject(err),
          )
          .catch((err: unknown) => Promise.reject(fromDriver(err)))
          .then((r) => {
            check?.(r);
            return r;
          })
      );
    return queue(config, { ...(check ? { check } : {}), held, enforced });
  }

  /** Sends a combined statement; a failure of it (or of its row counts) is the session's failure. */
  function sendCombined(c: Combined): Promise<QueryResult<QueryResultRow>> {
    const check = (r: QueryResult<QueryResultRow>) => {
      for (const x of c.checks) {
        const changed = x.column === null ? (r.rowCount ?? 0) : Number(r.rows[0]?.[x.column]);
        if (changed !== x.expect) {
          const err = new Error(
            `a store write changed ${changed} rows where ${x.expect} were expected: ${x.sql.trim().slice(0, 60)}`,
          );
          failure ??= err;
          throw err;
        }
      }
    };
    return send(c.sql, c.params, c.checks.length > 0 ? check : undefined, true, c.enforced === true);
  }

  /** Sends a view's held-back writes as one statement, not waiting for it; its failure is kept. */
  function release(view: { held: Statement[] }): Promise<void> {
    if (view.held.length === 0) return Promise.resolve();
    const c = combine(view.held, null, undefined, { enforce: enforcing });
    view.held = [];
    return sendCombined(c).then(() => undefined);
  }

  async function query(
    view: { held: Statement[] },
    sql: string,
    params: readonly SqlValue[] = [],
    counted = false,
  ) {
    const held = view.held;
    if (held.length > 0) {
      // a write the held-back ones do not touch goes out with them in one statement
      const next = { sql, params };
      if (counted && fits(held, next)) {
        const c = combine(held, next, undefined, { enforce: enforcing });
        view.held = [];
        const r = await sendCombined(c);
        return { rows: [], rowCount: Number((r.rows[0] as { n?: unknown } | undefined)?.n ?? 0) };
      }
      if (sql === LOCK_KEY_SQL) {
        // a lock reads no table: it goes out as the held-back writes' own SELECT
        const c = combine(held, null, { sql, params }, { enforce: enforcing });
        view.held = [];
        return await sendCombined(c);
      }
      void release(view).catch(() => undefined); // queued ahead of this statement on the same connection
    }
    const before = sent;
    try {
      return await send(sql, params);
    } catch (err) {
      // after a held-back write failed, the transaction is aborted: that failure is the cause
      // (on a pipelined connection its answer may still be on its way: wait for it)
      if (!failure) await before;
      throw failure ?? err;
    }
  }

  /** A view of the session: its own held-back writes, everything else shared. */
  function view(): PgSession {
    const own: { held: Statement[] } = { held: [] };
    views.push(own);
    const run = async (sql: string, params?: readonly SqlValue[]): Promise<number> => {
      if (knownCounts.size > 0) {
        const k = knownKey(sql, params);
        const n = knownCounts.get(k);
        if (n !== undefined) {
          knownCounts.delete(k);
          if (n > 0) hold(sql, params ?? [], n);
          return n;
        }
      }
      return (await query(own, sql, params, true)).rowCount ?? 0;
    };
    /** Holds a write back (in a transaction with no failure yet: `write`). */
    const hold = (sql: string, params: readonly SqlValue[], expectChanged: number | undefined) => {
      // a one-row INSERT changes one row or fails on the server: its count needs no check (and so
      // no COMMIT waiting for its answer)
      const checked = expectChanged !== undefined && !(expectChanged === 1 && ONE_ROW_INSERT.test(sql));
      const next: Statement = { sql, params, ...(checked ? { expect: expectChanged } : {}) };
      if (own.held.length > 0 && !fits(own.held, next)) void release(own).catch(() => undefined);
      own.held.push(next);
    };
    return {
      dialect: POSTGRES_DIALECT,
      get appendedEvents() {
        return appended;
      },
      markEventAppended() {
        appended = true;
      },
      async all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
        const known = takeRows(sql, params);
        if (known) return (await known) as T[];
        return (await query(own, sql, params)).rows as T[];
      },
      async get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined> {
        const known = takeRows(sql, params);
        if (known) return (await known)[0] as T | undefined;
        return (await query(own, sql, params)).rows[0] as T | undefined;
      },
      run,
      write(sql, params = [], expectChanged) {
        if (!inTransaction || failure)
          return run(sql, params).then((n) => {
            if (expectChanged !== undefined && n !== expectChanged)
              throw new Error(`a store write changed ${n} rows where ${expectChanged} were expected`);
          });
        hold(sql, params, expectChanged);
      },
      lockKey(key) {
        if (lockedKeys.has(key)) return;
        if (!inTransaction) return query(own, LOCK_KEY_SQL, [key]).then(() => undefined);
        const lock = { sql: LOCK_KEY_SQL, params: [key] };
        const c: Combined =
          own.held.length > 0
            ? combine(own.held, null, lock, { enforce: enforcing })
            : { ...lock, checks: [] };
        own.held = [];
        void sendCombined(c).catch(() => undefined);
      },
      fork: view,
      indexPlans() {
        planned ??= query(own, INDEX_PLANS);
        return planned;
      },
      statement(text) {
        if (/^SAVEPOINT\b/.test(text)) savepointed = true;
        return queue(text, { barrier: !/^(BEGIN|SAVEPOINT)\b/.test(text) });
      },
      knowRows(sql, params, rows) {
        rows.catch(() => undefined); // a failure is the statement's that read them, seen by whoever awaits it
        knownRows.set(knownKey(sql, params), rows);
      },
      knowCount(sql, params, n) {
        knownCounts.set(knownKey(sql, params), n);
      },
      enforceChecks() {
        enforcing = true;
      },
      knowLocked(key) {
        if (!inTransaction) return;
        lockedKeys.add(key);
        if (!savepointed) keptKeys.add(key);
      },
      knows: (sql, params) => knownRows.size > 0 && knownRows.has(knownKey(sql, params)),
      holdsLock: (key) => lockedKeys.has(key),
      forgetAhead() {
        knownRows.clear();
        knownCounts.clear();
      },
      async rollbackTo(name) {
        for (const v of views) v.held = [];
        planned = null;
        // what was known ahead may have been read or locked after the savepoint (not what was locked
        // before the first one)
        knownRows.clear();
        knownCounts.clear();
        lockedKeys.clear();
        for (const key of keptKeys) lockedKeys.add(key);
        await sent; // everything sent before it is answered, its failure (if any) recorded
        failure = null;
        const undone = queue(`ROLLBACK TO SAVEPOINT ${name}`, { barrier: true });
        undone.catch(() => undefined);
        const released = queue(`RELEASE SAVEPOINT ${name}`, { barrier: true });
        released.catch(() => undefined);
        await undone;
        await released;
      },
      async flush() {
        const last = Promise.all(views.map(release));
        await sent;
        await last.catch(() => undefined); // its failure, and any before it, is `failure`
        if (failure) throw failure;
      },
    };
  }
  return view();
}
