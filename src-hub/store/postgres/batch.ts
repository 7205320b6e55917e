/**
 * One group-commit batch on PostgreSQL: the writes that arrived together run in ONE READ COMMITTED
 * transaction, one after another against the same state (each sees every earlier change of its
 * batch), and are answered only after its COMMIT. Consecutive creations of a task's calls with
 * their permits are applied as one set-based run (permit-run.ts): the same answers, in the same
 * order, with a few statements for the whole run. A write that fails (a constraint, an error
 * thrown after it spent a permit, a bug) is rolled back alone — in its own SAVEPOINT — and
 * answered with its error while the others commit. Savepoints cost two statements per write and
 * failures are rare, so a batch first runs without them; only when one of its writes fails is it
 * rolled back and run again with a SAVEPOINT per write (Mode, below): the same answers, a rerun
 * only on failure. If the transaction as a whole fails — a lost connection (`store_unavailable`),
 * a failure at COMMIT — every write of the batch is answered with that error and nothing is kept;
 * a serialization failure or deadlock (PostgreSQL rolled it all back) reruns the whole batch.
 *
 * The task row held for one wait: a batch of a task's changes first sends, in one socket write, its
 * calls' locks, its outcomes' reads (outcome-reads.ts), the task row's lock and its view's inputs
 * (view-ahead.ts); the Hub decides every change from those answers, and its writes, the task's view
 * and COMMIT then leave together. What cannot be decided so (a batch the view cannot follow, a rerun
 * with savepoints) runs as below.
 *
 * Task views: the writes only note the tasks they changed; at the end of the transaction the view
 * of each such task is rendered once (the state after every write of the batch) and appended as a
 * `task.changed` event, reading the task row under its lock (FOR UPDATE), which the batch's
 * permits hold already (task-view.ts: its reads in one round trip, right behind the last writes)
 * — so a task's views are appended in the order of the states they show, across instances, and
 * no view costs a commit of its own or keeps a caller waiting after its answer. If a view cannot
 * be rendered, the batch runs again marking its tasks in `task_views_pending` instead, and the
 * event sequencer's pass renders them after commit
 * (event-sequencer.ts).
 */
import type { Pool } from 'pg';
import type { StoreRules } from '../rules.js';
import type { InvocationChange, InvocationChangeResult } from '../types.js';
import type { OpEnv } from '../sql/env.js';
import { applyInvocationChange } from '../sql/ops/invocation-change.js';
import { runAsync, type Step } from '../sql/session.js';
import type { TaskEventSink } from '../sql/task-events.js';
import { isRetryable, isUnavailable, lostPreparedStatements, toStoreError } from './errors.js';
import { applyPermitRun, joinsRun, runKey } from './permit-run.js';
import { lockCalls, lockTaskRow } from './lock-order.js';
import { readAhead } from './outcome-reads.js';
import { releasesLast } from './releases-last.js';
import { createPgSession, type PgSession } from './session.js';
import { renderTaskView } from './task-view.js';
import { connected } from './transaction.js';
import { requestsFirst, viewAhead, viewFollows, type ViewAhead } from './view-ahead.js';

const MAX_ATTEMPTS = 5;
const ONE_WRITE = 'one_write';

export type AnyWrite = (env: OpEnv, ...args: unknown[]) => Step<unknown>;

export interface BatchWrite {
  op: AnyWrite;
  args: unknown[];
}

export interface BatchOptions {
  /** Its changes lock only their own calls: they run at once, interleaved (below). */
  independent?: boolean;
  /** The task all its changes are of (group-commit.ts `task:<id>`): its view may be read ahead (view-ahead.ts). */
  task?: string;
}

export type BatchAnswer = { ok: true; value: unknown } | { ok: false; error: Error };

export interface BatchResult {
  answers: BatchAnswer[];
  /** Events were appended (they need seqs: the sequencer's pass after commit). */
  appendedEvents: boolean;
  /** Tasks whose view could not be rendered in the batch and were marked for the pass instead. */
  marked: number;
}

/** Collects the tasks a transaction's writes changed (latest time per task). */
function createViewSink(): TaskEventSink & { touched: Map<string, string> } {
  const touched = new Map<string, string>();
  return {
    touched,
    touch(taskId, at) {
      const seen = touched.get(taskId);
      if (seen === undefined || at > seen) touched.set(taskId, at);
    },
    // the batch renders the touched views itself (publishViews): nothing to mark or publish later
    // eslint-disable-next-line require-yield
    *mark() {
      return 0;
    },
    // eslint-disable-next-line require-yield
    *publish() {
      return [];
    },
  };
}

const quietly = <T>(p: Promise<T>): Promise<T> => {
  p.catch(() => undefined);
  return p;
};

const MARK = `INSERT INTO task_views_pending (task_id, at) VALUES (?, ?)
  ON CONFLICT (task_id) DO UPDATE SET at = CASE
    WHEN excluded.at > task_views_pending.at THEN excluded.at ELSE task_views_pending.at END`;

/**
 * Renders each touched task's view at the end of the transaction (`render`), or marks the task
 * for the pass after commit (`mark`: the batch is being run again because a view failed).
 */
async function publishViews(
  s: PgSession,
  env: OpEnv,
  touched: Map<string, string>,
  how: 'render' | 'mark',
): Promise<void> {
  // in task id order: a batch touching two tasks locks them in the order every batch does
  for (const [taskId, at] of [...touched].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (how === 'render') await renderTaskView(s, env, taskId, at);
    else await s.run(MARK, [taskId, at]);
  }
}

/**
 * Independent writes (`independent`: each locks only its own invocation and writes only new rows
 * and that call's own, so no order between them can change an answer) run at once in the first
 * attempt, their statements interleaved on the connection: a batch of them costs about the round
 * trips of one. Each holds its writes back on its own (PgSession.fork), so each write's rows after
 * its decision go out as one statement, as they would alone, however the writes interleave. Two of them that do touch the same call (a repeated invoke) conflict — the second
 * insert of one id fails — and the batch runs again one write after another, where the second
 * finds the first's record (`stale`).
 *
 * How a batch runs. First with neither savepoints nor marks: a savepoint costs two statements per
 * write and failures are rare. If a write fails, the batch is rolled back and run again with a
 * SAVEPOINT per write, so the failing write is rolled back alone and answered with its error (the
 * others run again, against the same state, and commit). If a view fails, the batch runs again
 * marking its tasks instead.
 */
interface Mode {
  savepoints: boolean;
  views: 'render' | 'mark';
}

/**
 * The fewest changes applied as a set-based run: one change alone costs the server more through
 * the set-wise statements (JSON rows, CTEs) than through its own, and saves no statement.
 */
const MIN_RUN = 2;

/**
 * The changes from `start` on that one set-based permit run can apply (permit-run.ts): consecutive
 * creations of calls of one task, each with its permit, counted in the same rate window.
 */
function permitRun(writes: readonly BatchWrite[], start: number): InvocationChange[] {
  const run: InvocationChange[] = [];
  let key: string | null = null;
  for (const w of writes.slice(start)) {
    const change = w.args[0] as InvocationChange;
    if (w.op !== (applyInvocationChange as AnyWrite) || !joinsRun(change)) break;
    const k = runKey(change);
    if (key !== null && k !== key) break;
    key = k;
    run.push(change);
  }
  return run;
}

const asChange = (w: BatchWrite): InvocationChange | null =>
  w.op === (applyInvocationChange as AnyWrite) ? (w.args[0] as InvocationChange) : null;

/**
 * Runs the writes as one transaction and answers each (in order). Never rejects: a failure of the
 * whole transaction is every write's answer. The writes that release permits are applied after
 * the others (releases-last.ts: the slots a batch frees go to the next batch to take the task row,
 * not to its own requests); the answers keep the writes' order.
 */
export async function runBatch(
  pool: Pool,
  rules: StoreRules,
  writes: readonly BatchWrite[],
  opts: BatchOptions = {},
): Promise<BatchResult> {
  const order = releasesLast(writes.map(asChange));
  if (order === null) return runInOrder(pool, rules, writes, opts);
  const result = await runInOrder(
    pool,
    rules,
    order.map((i) => writes[i]!),
    opts,
  );
  const answers: BatchAnswer[] = new Array<BatchAnswer>(writes.length);
  order.forEach((i, k) => (answers[i] = result.answers[k]!));
  return { ...result, answers };
}

/** Runs the writes as one transaction, applied in the order given. */
async function runInOrder(
  pool: Pool,
  rules: StoreRules,
  writes: readonly BatchWrite[],
  opts: BatchOptions,
): Promise<BatchResult> {
  const failAll = (err: unknown): BatchResult => {
    const error = toStoreError(err);
    return { answers: writes.map(() => ({ ok: false, error })), appendedEvents: false, marked: 0 };
  };
  // a batch of one needs no savepoint: its failure is the transaction's
  const alone = writes.length === 1;
  const mode: Mode = { savepoints: false, views: 'render' };
  for (let attempt = 1; ;) {
    let client;
    try {
      client = await connected(pool);
    } catch (err) {
      return failAll(err);
    }
    const s = createPgSession(client);
    const sink = createViewSink();
    const env: OpEnv = { sql: s, rules, taskEvents: sink };
    let broken: Error | undefined;
    let phase: 'writes' | 'views' | 'commit' = 'writes';
    try {
      // BEGIN, SAVEPOINT and RELEASE go out right behind the statements around them, unawaited;
      // a failure of any of them fails a later statement the batch does await
      const began = quietly(s.statement('BEGIN'));
      const answers: BatchAnswer[] = [];
      const together = opts.independent && !mode.savepoints && !alone;
      let view: ViewAhead | null = null;
      let readsAhead = false;
      const changes = writes.map(asChange);
      if (!together && !mode.savepoints) {
        // the calls locked, and the existing ones read, in the first round trip (outcome-reads.ts);
        // the task row locked and its view's inputs read right behind them (view-ahead.ts). A change
        // alone reads ahead only with its view: its own reads cost it the same round trips
        const ahead = opts.task !== undefined && mode.views === 'render' && viewFollows(opts.task, changes);
        readsAhead = ahead || !alone;
        const read = readsAhead ? readAhead(s, changes, { newCalls: ahead }) : null;
        if (ahead) view = viewAhead(s, opts.task!, changes, read!, { offerRow: requestsFirst(changes) });
        // the writes, the view and COMMIT leave together: the server checks the writes' row counts
        if (view) s.enforceChecks();
        // in the lock order (lock-order.ts): the task row right behind the calls, before any change
        // locks a session
        else if (readsAhead && opts.task !== undefined) lockTaskRow(s, opts.task);
      } else if (!alone) {
        // the calls' locks in key order, then the task row, before anything else (lock-order.ts);
        // taken before the first savepoint, so no rollback to one lets them go
        lockCalls(
          s,
          changes.flatMap((c) => (c ? [c.invocation_id] : [])),
        );
        if (mode.savepoints && opts.task !== undefined) lockTaskRow(s, opts.task);
      }
      if (together) {
        // the statements of all its writes go out interleaved, pipelined on the one connection; each
        // write holds its own writes back (a fork of the session), so they combine as they would alone
        const settled = await Promise.allSettled(
          writes.map((w) => runAsync(w.op({ ...env, sql: s.fork() }, ...w.args))),
        );
        for (const r of settled) {
          if (r.status === 'rejected') throw r.reason; // the batch runs again, one write after another
          answers.push({ ok: true, value: r.value });
        }
      }
      const ranTogether = answers.length > 0;
      for (let i = 0; !ranTogether && i < writes.length;) {
        const w = writes[i]!;
        if (!mode.savepoints) {
          // a run of new calls of one task with their permits: applied set-wise (permit-run.ts)
          const run = permitRun(writes, i);
          if (run.length >= MIN_RUN) {
            for (const value of await applyPermitRun(s, env, run)) answers.push({ ok: true, value });
            i += run.length;
            continue;
          }
          answers.push({ ok: true, value: await runAsync(w.op(env, ...w.args)) });
          i += 1;
          continue;
        }
        i += 1;
        const before = new Map(sink.touched);
        quietly(s.statement(`SAVEPOINT ${ONE_WRITE}`));
        try {
          const value = await runAsync(w.op(env, ...w.args));
          // its held-back writes are sent now, so a failure of theirs is this write's
          const flushed = quietly(s.flush());
          const released = quietly(s.statement(`RELEASE SAVEPOINT ${ONE_WRITE}`));
          await flushed;
          await released;
          answers.push({ ok: true, value });
        } catch (err) {
          if (isUnavailable(err) || isRetryable(err) || lostPreparedStatements(err)) throw err;
          await s.rollbackTo(ONE_WRITE);
          sink.touched.clear();
          for (const [k, v] of before) sink.touched.set(k, v);
          answers.push({ ok: false, error: toStoreError(err) });
        }
      }
      await began;
      // what was read ahead is the state before the changes: the views read what they left
      if (readsAhead) s.forgetAhead();
      if (view) {
        phase = 'views';
        const results = answers.map((a) => (a.ok ? a.value : null)) as InvocationChangeResult[];
        if (await view.render(env, results, sink.touched)) {
          // the writes, the view's event and COMMIT in one socket write
          phase = 'writes';
          const flushed = quietly(s.flush());
          const committed = quietly(s.statement('COMMIT'));
          await flushed; // a held-back write that failed made that COMMIT a rollback
          phase = 'commit';
          await committed;
          return { answers, appendedEvents: s.appendedEvents, marked: 0 };
        }
        phase = 'writes';
      }
      // the last writes' held-back statements go out, the views' reads right behind them (pipelined):
      // a failure of the writes is theirs, and reported first (it aborts the views' reads too)
      const written = quietly(s.flush());
      const viewed = quietly(publishViews(s, env, sink.touched, mode.views));
      await written;
      phase = 'views';
      await viewed;
      const flushed = quietly(s.flush());
      const committed = quietly(s.statement('COMMIT'));
      await flushed; // a held-back write that failed made that COMMIT a rollback
      phase = 'commit';
      await committed;
      return {
        answers,
        appendedEvents: s.appendedEvents,
        marked: mode.views === 'mark' ? sink.touched.size : 0,
      };
    } catch (err) {
      const lost = lostPreparedStatements(err);
      if (isUnavailable(err) || lost) broken = err as Error;
      else await s.statement('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      if ((isRetryable(err) || lost) && attempt < MAX_ATTEMPTS) {
        attempt += 1;
        continue;
      }
      if (!isUnavailable(err) && !isRetryable(err) && !lost) {
        if (phase === 'writes' && !alone && !mode.savepoints) {
          mode.savepoints = true;
          continue;
        }
        if (phase === 'views' && mode.views === 'render') {
          mode.views = 'mark';
          continue;
        }
      }
      return failAll(err);
    } finally {
      client.release(broken);
    }
  }
}
