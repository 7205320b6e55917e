/**
 * Group commit: the writes that arrived together run in ONE SQLite transaction, one after another
 * against the same state (so a permit decision still sees every earlier change of its batch), and
 * are answered only after that transaction's COMMIT returned — i.e. after its fsync
 * (synchronous=FULL). Each write runs inside its own SAVEPOINT, so a write that fails (a
 * constraint, a bug) is rolled back alone and answered with its error while the others commit. If
 * the transaction as a whole fails (COMMIT, or an error after which SQLite rolled everything back,
 * such as a full disk), every write of the batch is answered with that error and nothing is kept.
 * The task views that task-bound changes publish are rendered once per task at the end of the
 * batch, inside its transaction (sql/task-events.ts).
 */
import type Database from 'better-sqlite3';
import type { OpEnv } from '../../sql/env.js';
import { WRITE_OPS } from '../../sql/registry.js';
import { runSync, type Step } from '../../sql/session.js';
import { createTaskEventSink } from '../../sql/task-events.js';
import {
  serializeError,
  type GroupCommitStats,
  type SerializedError,
  type WriteAnswer,
  type WriteRequest,
} from './protocol.js';

type AnyWrite = (env: OpEnv, ...args: unknown[]) => Step<unknown>;

export function createGroupCommitter(db: Database.Database, base: OpEnv) {
  const env: OpEnv = { ...base, taskEvents: createTaskEventSink() };
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const savepoint = db.prepare('SAVEPOINT one_write');
  const release = db.prepare('RELEASE one_write');
  const undo = db.prepare('ROLLBACK TO one_write');
  const stats: GroupCommitStats = { batches: 0, writes: 0 };
  const failAll = (batch: WriteRequest[], error: SerializedError): WriteAnswer[] =>
    batch.map((r) => ({ id: r.id, ok: false, error }));

  const runOne = (req: WriteRequest): WriteAnswer => {
    savepoint.run();
    try {
      const op = (WRITE_OPS as Record<string, AnyWrite>)[req.op];
      if (!op) throw new Error(`unknown store write ${String(req.op)}`);
      const value = runSync(op(env, ...req.args));
      release.run();
      return { id: req.id, ok: true, value };
    } catch (err) {
      if (db.inTransaction) {
        undo.run();
        release.run();
      }
      return { id: req.id, ok: false, error: serializeError(err) };
    }
  };

  return {
    stats,
    /** Runs one batch; when this returns, its answers are final (committed, or failed and rolled back). */
    run(batch: WriteRequest[]): WriteAnswer[] {
      try {
        begin.run();
      } catch (err) {
        return failAll(batch, serializeError(err));
      }
      const answers: WriteAnswer[] = [];
      for (const req of batch) {
        const answer = runOne(req);
        if (!db.inTransaction) {
          // SQLite rolled the whole transaction back (e.g. SQLITE_FULL): nothing of the batch is kept.
          return failAll(
            batch,
            answer.ok ? { name: 'Error', message: 'the transaction was rolled back' } : answer.error,
          );
        }
        answers.push(answer);
      }
      try {
        runSync(env.taskEvents!.flush(env));
        commit.run();
      } catch (err) {
        if (db.inTransaction) rollback.run();
        return failAll(batch, serializeError(err));
      }
      stats.batches += 1;
      stats.writes += batch.length;
      return answers;
    },
  };
}
