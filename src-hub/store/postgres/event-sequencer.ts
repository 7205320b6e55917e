/**
 * After commit, in one pass: the task views left marked, then event seqs in commit order — across
 * every Hub instance.
 *
 * Task views. A batch renders the views of the tasks it changed at its own end (batch.ts); a task
 * is marked in `task_views_pending` instead only when its view could not be rendered there (or by
 * an earlier version of the Hub, whose marks a crash may have left). A pass only asks whether any
 * task is marked, in its numbering statement (when none is, a pass is one statement, in a
 * transaction of its own: a function of its connection's, PASS_FUNCTION below); when one is, the next pass first renders the view of every marked task as it is now,
 * reading the task row under its lock (so it is appended in order with the views batches append),
 * and clears the mark only if no change marked it again after the pass read it (its row version,
 * `xmin`, is unchanged).
 *
 * Event seqs. Transactions insert their events with no seq; the pass gives every committed,
 * unsequenced event the next seqs (in insert order) — including the views it just appended — so
 * seqs follow commit order across instances and a seq becomes visible only together with every
 * smaller one. A reader that resumed after seq N can therefore never miss an event that later
 * appears with a seq at or below N — which a sequence alone (BIGSERIAL) cannot promise, since
 * transactions commit out of nextval order.
 *
 * Passes run one at a time across all instances (one advisory lock) and concurrent writers share
 * them. A batch asks for a pass just after its commit without waiting for it (store.ts);
 * `HubStore.flushEvents` waits for one. A pass notifies `bailing_events` with the clients
 * concerned (every instance LISTENs, listener.ts). A timer also runs passes, for marks and events
 * committed by an instance that died before its pass.
 */
import type { Pool } from 'pg';
import { STORE_RULES } from '../../store-rules.js';
import type { OpEnv } from '../sql/env.js';
import { runAsync } from '../sql/session.js';
import { publishTaskView } from '../sql/task-events.js';
import { isUnavailable } from './errors.js';
import { createPgSession, type PgSession } from './session.js';

export const EVENTS_CHANNEL = 'bailing_events';
/** Advisory lock key of the pass (an arbitrary constant shared by every instance). */
const PASS_LOCK = 7_531_021_905;
const BATCH = 1000;
const VIEW_BATCH = 100;

/**
 * The plan SEQUENCE must have whatever the statistics say, set for the rest of the pass's
 * transaction (its last statement): the pending events read from the partial index
 * `events_unsequenced` by an index scan in id order, and each one reached by `events_pkey`. Left to
 * itself the planner chose (while the table was small, and the statement's plan is cached per
 * connection: session.ts prepares it) a bitmap scan of that index and a sequential scan of `events`
 * for the UPDATE — both visit every heap page holding an event numbered since the last VACUUM (a
 * numbered event's old version stays in the partial index until then), so each pass cost grew with
 * the table. An index scan marks the entries of dead versions killed as it meets them (once no
 * snapshot can see them), later passes skip them without visiting the heap, and the index drops
 * them when its page fills; a bitmap scan never does. JIT is off too: a plan that still needed a
 * path taken away would be priced at the disable cost and JIT-compiled at every pass (plans.ts).
 */
export const SEQUENCE_PLAN = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
  set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true), set_config('jit', 'off', true)`;

/** The numbering: the pending events (`pending`), the counter moved past them, each event's seq (`sequenced`). */
const NUMBERING = `pending AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM events WHERE seq IS NULL ORDER BY id LIMIT ${BATCH}
  ), counter AS (
    UPDATE event_counter SET last_seq = last_seq + (SELECT COUNT(*) FROM pending) WHERE id = 1
    RETURNING last_seq - (SELECT COUNT(*) FROM pending) AS base
  ), sequenced AS (
    UPDATE events e SET seq = counter.base + pending.n FROM pending, counter
    WHERE e.id = pending.id RETURNING e.client_id
  )`;

/** Numbers the pending events and notifies the clients concerned, in one statement (under SEQUENCE_PLAN). */
export const SEQUENCE = `WITH ${NUMBERING}, clients AS (
    SELECT string_agg(DISTINCT client_id, ',') AS list, COUNT(*) AS n FROM sequenced
  )
SELECT list, n, CASE WHEN list IS NULL THEN NULL
  ELSE pg_notify('${EVENTS_CHANNEL}', CASE WHEN octet_length(list) > 7000 THEN '*' ELSE list END) END AS notified,
  EXISTS (SELECT 1 FROM task_views_pending) AS marks
FROM clients`;

/**
 * A pass with no views to render as ONE statement, in a transaction of its own (autocommit): the
 * pass's lock, then the numbering with the plan settings of SEQUENCE_PLAN (the function's own, for
 * its run), the notification, and whether any task is marked. A VOLATILE function's statements each
 * take a snapshot of their own, so the numbering sees every event committed before the lock was
 * held, as the numbering statement after the lock's did. It is a temporary function (pg_temp, the
 * connection's own, created by the connection's first pass: the schema's migrations stay as they
 * are, and a database role without the TEMPORARY privilege runs the pass as before: four
 * statements, BEGIN, the lock, the numbering, COMMIT).
 */
export const PASS_FUNCTION = 'pg_temp.bailing_sequence_pass';
const CREATE_PASS_FUNCTION = `CREATE OR REPLACE FUNCTION ${PASS_FUNCTION}(OUT clients text, OUT numbered bigint, OUT marked boolean)
  LANGUAGE plpgsql VOLATILE
  SET enable_seqscan = off SET enable_bitmapscan = off SET enable_hashjoin = off SET enable_mergejoin = off SET jit = off
AS $pass$
BEGIN
  PERFORM pg_advisory_xact_lock(${PASS_LOCK});
  WITH ${NUMBERING}
  SELECT string_agg(DISTINCT client_id, ','), COUNT(*) INTO clients, numbered FROM sequenced;
  IF clients IS NOT NULL THEN
    PERFORM pg_notify('${EVENTS_CHANNEL}', CASE WHEN octet_length(clients) > 7000 THEN '*' ELSE clients END);
  END IF;
  marked := EXISTS (SELECT 1 FROM task_views_pending);
END
$pass$`;
const CALL_PASS = `SELECT clients, numbered, marked FROM ${PASS_FUNCTION}()`;
/**
 * SQLSTATE undefined_function: the connection lost its temporary function (DISCARD TEMP, or a
 * connection pooler handed the client another server connection): created again, the pass goes on.
 */
const UNDEFINED_FUNCTION = '42883';
/**
 * SQLSTATE invalid_sql_statement_name: the connection lost its prepared statements (DISCARD ALL),
 * which pg still believes parsed there (it would send only Bind for each): the connection is
 * dropped and the pass runs again on another.
 */
const NO_PREPARED_STATEMENT = '26000';
const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;
/** The connections that have the pass's function (a pool lends any of its connections to a pass). */
const withFunction = new WeakSet<object>();

const PASS_LOCK_SQL = `SELECT pg_advisory_xact_lock(${PASS_LOCK}) AS locked`;
/** The pass's lock and SEQUENCE_PLAN in one statement, for a pass with no views to render first. */
const PASS_LOCK_AND_PLAN = `SELECT pg_advisory_xact_lock(${PASS_LOCK}) AS locked, ${SEQUENCE_PLAN.replace(/^SELECT /, '')}`;

/** The answer of a statement sent without waiting for it (its failure is seen where it is awaited). */
const quietly = <T>(answer: T | Promise<T>): Promise<T> => {
  const p = Promise.resolve(answer);
  p.catch(() => undefined);
  return p;
};

/** Renders the marked tasks' views; answers how many marks it read. */
async function publishMarkedViews(s: PgSession): Promise<number> {
  const env: OpEnv = { sql: s, rules: STORE_RULES };
  const marks = await s.all<{ task_id: string; at: string; version: string }>(
    `SELECT task_id, at, xmin::text AS version FROM task_views_pending ORDER BY at, task_id LIMIT ${VIEW_BATCH}`,
  );
  // the oldest marks, their rows locked in task order (lock-order.ts)
  const byTask = [...marks].sort((a, b) => (String(a.task_id) < String(b.task_id) ? -1 : 1));
  for (const m of byTask)
    await runAsync(publishTaskView(env, String(m.task_id), String(m.at), s.dialect.forUpdate));
  // cleared last, so a change marking one of these tasks meanwhile waits only for this commit
  for (const m of marks)
    await s.write('DELETE FROM task_views_pending WHERE task_id = ? AND xmin::text = ?', [
      String(m.task_id),
      String(m.version),
    ]);
  return marks.length;
}

export interface EventSequencer {
  /** Resolves after a pass that started after this call (it never rejects: failures are reported). */
  sequenceNow(): Promise<void>;
  stop(): Promise<void>;
}

export function createEventSequencer(
  pool: Pool,
  opts: { onSequenced(clients: string[] | 'some'): void; onError(err: unknown): void; intervalMs: number },
): EventSequencer {
  let running: Promise<void> | null = null;
  let waiting: Array<() => void> = [];
  let stopped = false;
  /** False once the database refused the pass's function (no TEMPORARY privilege): four statements then. */
  let oneStatement = true;

  /** Creates the pass's function on this connection if it has none; false if it cannot be created. */
  const ensureFunction = async (client: object, s: PgSession): Promise<boolean> => {
    if (withFunction.has(client)) return true;
    try {
      await s.statement(CREATE_PASS_FUNCTION);
    } catch (err) {
      if (isUnavailable(err)) throw err;
      oneStatement = false;
      return false;
    }
    withFunction.add(client);
    return true;
  };

  /** A pass, run once more on another connection if its connection lost its prepared statements. */
  const pass = (): Promise<void> =>
    passOnce().catch((err: unknown) => {
      if (codeOf(err) !== NO_PREPARED_STATEMENT) throw err;
      return passOnce();
    });

  const passOnce = async (): Promise<void> => {
    const client = await pool.connect();
    const s = createPgSession(client);
    let failed: Error | undefined;
    try {
      // marks are rare: a pass first only asks whether there are any, and renders them (in a pass
      // of their own, before its numbering) only when there are
      let renderMarks = false;
      let recreated = false;
      for (;;) {
        if (!renderMarks && oneStatement && (await ensureFunction(client, s))) {
          let row: { clients: string | null; numbered: number | string; marked: boolean } | undefined;
          try {
            row = await s.get(CALL_PASS);
          } catch (err) {
            // the call ran in a transaction of its own: nothing was done, and it can be called again
            if (codeOf(err) !== UNDEFINED_FUNCTION || recreated) throw err;
            withFunction.delete(client);
            recreated = true;
            continue;
          }
          if (row?.clients) opts.onSequenced(row.clients.split(','));
          if (row?.marked === true) {
            renderMarks = true;
            continue;
          }
          if (Number(row?.numbered ?? 0) < BATCH) return;
          continue;
        }
        // one round trip when there are no marks: every statement goes out behind the one before
        // (pool.ts pipelines), and a failure of any of them aborts the transaction, which the
        // awaited answers below report (COMMIT after a failure is a rollback)
        // (without views to render first, the plan is set by the lock's statement: four statements)
        const began = quietly(s.statement('BEGIN'));
        const locked = quietly(s.get(renderMarks ? PASS_LOCK_SQL : PASS_LOCK_AND_PLAN));
        const views = renderMarks ? await publishMarkedViews(s) : 0;
        const planned = renderMarks ? quietly(s.get(SEQUENCE_PLAN)) : null;
        const sequenced = quietly(s.get<{ list: string | null; n: number; marks: boolean }>(SEQUENCE));
        const flushed = quietly(s.flush());
        const committed = quietly(s.statement('COMMIT'));
        await began;
        await locked;
        await planned;
        const row = await sequenced;
        // marks are asked about by the numbering statement itself; a pass rendering them asks nothing
        const more = !renderMarks && row?.marks === true;
        await flushed;
        await committed;
        if (row?.list) opts.onSequenced(row.list.split(','));
        if (more) {
          renderMarks = true;
          continue;
        }
        if (Number(row?.n ?? 0) < BATCH && views < VIEW_BATCH) return;
      }
    } catch (err) {
      failed = err as Error; // the connection may be left inside the failed transaction: drop it
      throw err;
    } finally {
      client.release(failed);
    }
  };

  const kick = () => {
    if (running || waiting.length === 0) return;
    const served = waiting;
    waiting = [];
    running = pass()
      .catch((err: unknown) => opts.onError(err))
      .finally(() => {
        running = null;
        for (const done of served) done();
        kick();
      });
  };

  // after stop()'s last pass the pool is being ended: a write that commits during shutdown leaves
  // its events to the next pass of any instance (the timer of a sibling, or this one's next start)
  let ended = false;
  const sequenceNow = () =>
    ended
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiting.push(resolve);
          kick();
        });

  const timer = setInterval(() => {
    if (!stopped) void sequenceNow();
  }, opts.intervalMs);
  timer.unref();

  return {
    sequenceNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sequenceNow();
      ended = true;
    },
  };
}
