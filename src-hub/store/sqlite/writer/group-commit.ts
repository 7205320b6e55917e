/**
 * Group commit: the writes that arrived together run in ONE SQLite transaction, one after another
 * against the same state (so a permit decision still sees every earlier change of its batch), and
 * are answered only after that transaction's COMMIT returned — i.e. after its fsync
 * (synchronous=FULL). A write that fails (a constraint, a bug) is rolled back alone and answered
 * with its error while the others commit: the writes run without savepoints, and when one fails
 * the transaction is rolled back and the batch runs again with each write inside its own SAVEPOINT
 * (a savepoint per write costs every write a copy of the pages it changes; failures are rare). If
 * the transaction as a whole fails (COMMIT, or an error after which SQLite rolled everything back,
 * such as a full disk), every write of the batch is answered with that error and nothing is kept.
 * The task views that task changes publish are rendered at the end of the batch's transaction,
 * once per task it changed (sql/task-events.ts), so they are committed with the batch and on disk
 * when it is answered, and they cost no commit and no mark of their own. A view that cannot be
 * rendered there leaves its task marked (durably, in the same transaction) instead, and marked
 * views are published first thing in the next transaction, or in one of their own when no batch
 * comes soon (thread.ts). The task state counts the batch's changes move are summed and written
 * once, before the views that read them (state-counts.ts); the task rows its permit gates read are
 * kept for the transaction, its grants done to them and written to the stored rows once, before
 * anything reads those (task-rows.ts). Between transactions
 * the writer keeps the invocation rows it wrote
 * (invocation-rows.ts), the session enrollments it read or wrote (enrollments.ts), the systems new
 * calls found in service (live-systems.ts; also forgotten after any write that is not an invocation
 * change) and the task lists its views read (sql/task-events.ts); it forgets them when anything is
 * rolled back or another connection committed.
 */
import type Database from 'better-sqlite3';
import type { OpEnv } from '../../sql/env.js';
import { WRITE_OPS } from '../../sql/registry.js';
import { runSync, type Step } from '../../sql/session.js';
import { createTaskEventSink } from '../../sql/task-events.js';
import { createEnrollmentRows } from './enrollments.js';
import { createInvocationRows } from './invocation-rows.js';
import { createLiveSystems } from './live-systems.js';
import { createStateCountSums } from './state-counts.js';
import { createBatchTaskRows } from './task-rows.js';
import { restoreOperation } from './operation-by-text.js';
import { slimAnswer } from './slim-answer.js';
import {
  serializeError,
  type GroupCommitStats,
  type SerializedError,
  type WriteAnswer,
  type WriteRequest,
} from './protocol.js';

type AnyWrite = (env: OpEnv, ...args: unknown[]) => Step<unknown>;
const RETRY = Symbol('retry the batch, each write alone');

export interface BatchResult {
  answers: WriteAnswer[];
  /** Clients that got task views in this transaction. */
  clients: string[];
}

export interface GroupCommitterOptions {
  /** Read the clock around each COMMIT (lastCommit; the writer's timing mode). */
  timing?: boolean;
}

const clock = () => Number(process.hrtime.bigint());

export function createGroupCommitter(
  db: Database.Database,
  base: OpEnv,
  options: GroupCommitterOptions = {},
) {
  const sink = createTaskEventSink();
  const invocations = createInvocationRows();
  const enrollments = createEnrollmentRows();
  const liveSystems = createLiveSystems();
  // the batch's task state counts, summed and written once before its views read them
  const stateCounts = createStateCountSums();
  // the task rows the permit gates of the running transaction read, its grants written once per task
  const taskRows = createBatchTaskRows(base.sql);
  const env: OpEnv = {
    ...base,
    taskEvents: sink,
    invocations,
    enrollments,
    liveSystems,
    stateCounts,
    taskRows,
  };
  let viewsPending = true; // marks a crash may have left: published by the first transaction
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const savepoint = db.prepare('SAVEPOINT one_write');
  const release = db.prepare('RELEASE one_write');
  const undo = db.prepare('ROLLBACK TO one_write');
  /** What the writer keeps between transactions, known only while it alone changed the store. */
  const forgetKept = () => {
    sink.forget();
    invocations.forget();
    enrollments.forget();
    liveSystems.forget();
    taskRows.discard();
  };
  // changes another connection committed (the operator CLI's own writer): the sink's kept task
  // lists, the kept invocation rows and the kept enrollments saw none of them, so they are forgotten (data_version moves
  // only for other connections; read after BEGIN IMMEDIATE, nobody else writes until COMMIT)
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  let seenVersion: unknown = dataVersion.get();
  const noteOtherWriters = () => {
    const v = dataVersion.get();
    if (v !== seenVersion) {
      seenVersion = v;
      forgetKept();
    }
  };
  const stats: GroupCommitStats = { batches: 0, writes: 0, retried: 0 };
  // with timing on: the last batch's COMMIT, from and to (process.hrtime ns)
  const lastCommit = { from: 0, to: 0 };
  const commitBatch = options.timing
    ? () => {
        lastCommit.from = clock();
        commit.run();
        lastCommit.to = clock();
      }
    : () => commit.run();
  const failAll = (batch: WriteRequest[], error: SerializedError): BatchResult => ({
    answers: batch.map((r) => ({ id: r.id, ok: false, error })),
    clients: [],
  });

  /** Inside a transaction: the marked tasks' views, in a savepoint (a failure leaves the marks for later). */
  const publishMarked = (): string[] => {
    if (!viewsPending) return [];
    savepoint.run();
    try {
      const clients = runSync(sink.publish(env));
      release.run();
      viewsPending = false;
      return clients;
    } catch {
      if (db.inTransaction) {
        undo.run();
        release.run();
      }
      forgetKept();
      return [];
    }
  };

  /**
   * Inside the batch's transaction, after its writes: the views of the tasks they changed, in a
   * savepoint (a batch run again alone). If rendering fails, the tasks are marked instead
   * (published later, like a crash's marks); if marking fails too, the error fails the batch.
   */
  const publishTouched = (): string[] => {
    savepoint.run();
    try {
      const clients = runSync(sink.publishTouched(env));
      release.run();
      return clients;
    } catch {
      if (db.inTransaction) {
        undo.run();
        release.run();
      }
      forgetKept(); // lists read by the views rolled back
      if (runSync(sink.mark(env)) > 0) viewsPending = true;
      return [];
    }
  };
  /** The transaction was rolled back: nothing it touched, read or wrote is known any more. */
  const rolledBack = () => {
    sink.dropTouched();
    stateCounts.drop();
    forgetKept();
    viewsPending = true; // marks it published are back
  };

  const apply = (req: WriteRequest, alone: boolean): WriteAnswer => {
    const op = (WRITE_OPS as Record<string, AnyWrite>)[req.op];
    if (!op) throw new Error(`unknown store write ${String(req.op)}`);
    restoreOperation(req);
    const other = req.op !== 'applyInvocationChange';
    if (other) taskRows.drop(); // it may read a task row: the grants written first
    const value = runSync(op(env, ...req.args));
    if (other) {
      taskRows.drop(); // it may have changed a task row
      liveSystems.forget(); // or retired a system
    }
    if (alone) {
      // inside the write's savepoint
      taskRows.flush();
      runSync(stateCounts.write(env.sql));
    }
    return { id: req.id, ok: true, value, slim: slimAnswer(req.op, req.args, value, req.held === true) };
  };

  /** One write in a savepoint of its own: if it fails, it alone is undone and answered with its error. */
  const runAlone = (req: WriteRequest): WriteAnswer => {
    savepoint.run();
    try {
      const answer = apply(req, true);
      release.run();
      return answer;
    } catch (err) {
      stateCounts.drop();
      if (db.inTransaction) {
        undo.run();
        release.run();
      }
      forgetKept(); // rows and lists this write changed before it failed are undone
      return { id: req.id, ok: false, error: serializeError(err) };
    }
  };

  /**
   * The batch in one transaction. `alone`: each write, and the views, in a savepoint of their own.
   * Otherwise the writes and then the views run without savepoints (a savepoint copies every page
   * a write changes into its statement journal first: ~11 % of the writer's CPU per permit), and
   * the first write or view that fails rolls the whole transaction back: RETRY, and the batch runs
   * again alone.
   */
  const runBatch = (batch: WriteRequest[], alone: boolean): BatchResult | typeof RETRY => {
    try {
      begin.run();
    } catch (err) {
      return failAll(batch, serializeError(err));
    }
    taskRows.discard(); // kept for one transaction
    noteOtherWriters();
    const clients = publishMarked();
    const answers: WriteAnswer[] = [];
    for (const req of batch) {
      if (!alone) {
        try {
          answers.push(apply(req, false));
        } catch {
          if (db.inTransaction) rollback.run();
          rolledBack();
          return RETRY;
        }
        continue;
      }
      const answer = runAlone(req);
      if (!db.inTransaction) {
        // SQLite rolled the whole transaction back (e.g. SQLITE_FULL): nothing of the batch is kept.
        rolledBack();
        return failAll(
          batch,
          answer.ok ? { name: 'Error', message: 'the transaction was rolled back' } : answer.error,
        );
      }
      answers.push(answer);
    }
    let published: string[] | undefined;
    if (!alone) {
      // the views without a savepoint too: if one fails, the batch runs again alone, where it has one
      try {
        // the views read them
        taskRows.flush();
        runSync(stateCounts.write(env.sql));
        published = runSync(sink.publishTouched(env));
      } catch {
        if (db.inTransaction) rollback.run();
        rolledBack();
        return RETRY;
      }
    }
    try {
      published ??= publishTouched();
      commitBatch();
    } catch (err) {
      if (db.inTransaction) rollback.run();
      rolledBack();
      return failAll(batch, serializeError(err));
    }
    stats.batches += 1;
    stats.writes += batch.length;
    return {
      answers,
      clients: clients.length === 0 ? published : [...new Set([...clients, ...published])],
    };
  };

  return {
    stats,
    lastCommit,
    /**
     * Runs one batch; when this returns, its answers are final (committed, or failed and rolled
     * back). The transaction first publishes the views still marked (an earlier transaction could
     * not render them), then runs the writes, then renders the views of the tasks they changed.
     */
    run(batch: WriteRequest[]): BatchResult {
      const result = runBatch(batch, false);
      if (result !== RETRY) return result;
      stats.retried += 1;
      return runBatch(batch, true) as BatchResult;
    },
    /** Whether task views are marked and not yet published. */
    viewsPending: () => viewsPending,
    /**
     * Publishes the views of every marked task in a transaction of its own (when no batch came
     * to carry them); answers the clients that got a view. On failure the marks stay.
     */
    publishViews(): string[] {
      if (!viewsPending) return [];
      try {
        begin.run();
      } catch {
        return [];
      }
      noteOtherWriters();
      const clients = publishMarked();
      try {
        commit.run();
      } catch {
        if (db.inTransaction) rollback.run();
        rolledBack();
        return [];
      }
      stats.batches += 1;
      return clients;
    },
  };
}
