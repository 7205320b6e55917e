/**
 * Group commit within one Hub instance on PostgreSQL: the invocation changes of one task that
 * arrive while an earlier batch of that task runs wait for it and then run together, as one
 * transaction (batch.ts), answered after its COMMIT — the same semantics as the SQLite writer's
 * group commit. Why per task: a task's permits serialise on its row lock (FOR UPDATE) whatever
 * happens, so holding that lock once per batch rather than once per permit is where throughput
 * comes from; and a batch that locks only its own task's row cannot deadlock with another
 * instance's batch on other tasks (a batch mixing tasks A and B could, against one holding B then
 * A). Batches of different tasks run at the same time on different connections, as single writes
 * did. Exactness across instances is the task row lock each change still takes inside the batch.
 *
 * A change's task is its permit's or its new record's; a later change of a call (its outcome,
 * which releases the permit on the task row) is keyed by the task this instance saw the call
 * created or changed with (a bounded map: an invocation's task never changes). Every other write,
 * and a change whose task is not known here, runs as a batch of its own at once.
 */
import type { Pool } from 'pg';
import type { StoreRules } from '../rules.js';
import type { InvocationChange, InvocationChangeResult } from '../types.js';
import { runBatch, type AnyWrite, type BatchResult, type BatchWrite } from './batch.js';

/** The most writes one transaction carries (a task's row is held for the whole batch). */
const MAX_BATCH = 32;
/** Calls whose task this instance remembers, for keying their later changes. */
const KNOWN_TASKS = 50_000;

interface Pending extends BatchWrite {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

export interface GroupCommitStats {
  /** Transactions committed (or failed) by the group commit, and the writes they carried. */
  batches: number;
  writes: number;
}

export interface GroupCommitter {
  write(name: string, op: AnyWrite, args: unknown[]): Promise<unknown>;
  stats(): GroupCommitStats;
}

export function createGroupCommitter(
  pool: Pool,
  rules: StoreRules,
  afterBatch: (result: BatchResult) => void,
): GroupCommitter {
  const queues = new Map<string, Pending[]>();
  const taskOf = new Map<string, string>();
  const stats: GroupCommitStats = { batches: 0, writes: 0 };

  const remember = (invocationId: string, taskId: string) => {
    if (taskOf.has(invocationId)) return;
    if (taskOf.size >= KNOWN_TASKS) taskOf.delete(taskOf.keys().next().value!);
    taskOf.set(invocationId, taskId);
  };

  const run = async (writes: Pending[]) => {
    let result: BatchResult;
    try {
      result = await runBatch(pool, rules, writes);
    } catch (err) {
      // runBatch answers every failure itself; this is a bug's last line, never a silent hang
      for (const w of writes) w.reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    stats.batches += 1;
    stats.writes += writes.length;
    afterBatch(result);
    result.answers.forEach((a, i) => {
      const w = writes[i]!;
      if (a.ok) w.resolve(a.value);
      else w.reject(a.error);
    });
  };

  /** Runs the key's queue batch after batch until it is empty. */
  const drain = async (key: string, queue: Pending[]) => {
    while (queue.length > 0) await run(queue.splice(0, MAX_BATCH));
    queues.delete(key);
  };

  const keyOf = (name: string, args: unknown[]): string | null => {
    if (name !== 'applyInvocationChange') return null;
    const c = args[0] as InvocationChange;
    const task = c.permit?.task_id ?? c.create?.task_id ?? taskOf.get(c.invocation_id) ?? null;
    return task === null ? null : `task:${task}`;
  };

  return {
    write(name, op, args) {
      return new Promise<unknown>((resolve, reject) => {
        const pending: Pending = { op, args, resolve, reject };
        const key = keyOf(name, args);
        if (key === null) return void run([pending]);
        const queue = queues.get(key);
        if (queue) return void queue.push(pending); // taken by the running batch's successor
        const fresh = [pending];
        queues.set(key, fresh);
        void drain(key, fresh);
      }).then((value) => {
        if (name === 'applyInvocationChange') {
          const r = value as InvocationChangeResult;
          if (r.kind !== 'stale' && r.record.task_id) remember(r.record.invocation_id, r.record.task_id);
        }
        return value;
      });
    },
    stats: () => ({ ...stats }),
  };
}
