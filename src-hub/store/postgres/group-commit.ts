/**
 * Group commit within one Hub instance on PostgreSQL: invocation changes that arrive while an
 * earlier batch of their kind runs wait for it and then run together, as one transaction
 * (batch.ts), answered after its COMMIT — the same semantics as the SQLite writer's group commit.
 *
 * Changes are grouped by the one contended lock their batch may hold, so that a batch holds at
 * most one such lock and two batches (on this instance or another) cannot wait for each other's:
 *
 * - `task:<id>`: the changes of one task. A task's permits serialise on its row lock (FOR UPDATE)
 *   whatever happens, so holding that lock once per batch rather than once per permit is where
 *   throughput comes from; one batch of a task at a time (lanes: 1). Exactness across instances
 *   is the task row lock each change still takes inside the batch (a set-based run of permits,
 *   permit-run.ts, takes it once and decides its changes from the row it read under it).
 * - `rate:<authorization>:<tool>`: changes of calls without a task that take the operation's
 *   declared-rate lock (a dispatch of an operation with a rate limit); one batch at a time.
 * - `free`: changes of calls without a task that take no lock but their own invocation's (new
 *   rows, the call's own rows): one batch at a time (FREE_LANES), carrying what arrived while the
 *   one before ran, its changes run at once, interleaved (independent: batch.ts).
 *
 * A change's task is its permit's or its new record's; a later change of a call (its outcome,
 * which releases the permit on the task row) is keyed by what this instance saw the call created
 * or changed with (a bounded map: a call's task and operation never change). Every other write,
 * and a change of a call this instance does not know (it may hold a task's rows), runs as a batch
 * of its own at once.
 */
import type { Pool } from 'pg';
import type { StoreRules } from '../rules.js';
import type { InvocationChange, InvocationChangeResult, InvocationRecord } from '../types.js';
import { runBatch, type AnyWrite, type BatchResult, type BatchWrite } from './batch.js';

/** The most writes one transaction carries (a task's row is held for the whole batch). */
const MAX_BATCH = 32;
/**
 * Batches of `free` changes running at once on this instance (each on a pooled connection). One:
 * each batch carries everything that arrived while the one before ran, so a Hub with 16 calls at
 * once makes batches of ~10 changes rather than ~4 with three lanes — fewer transactions,
 * statements and socket writes per call, the client's largest costs on PostgreSQL (bench:hub-ab,
 * 2026-12-03: the Hub's CPU per governed write at 16 ×0.71–0.95); a change that finds no batch
 * running starts at once, as before.
 */
const FREE_LANES = 1;
/** The key of changes that lock only their own call: they run interleaved in their batch (batch.ts). */
const FREE = 'free';
/** The key prefix of a task's changes: `task:<id>`. */
const TASK = 'task:';
/** Calls this instance remembers, for keying their later changes. */
const KNOWN_CALLS = 50_000;

interface Pending extends BatchWrite {
  resolve(value: unknown): void;
  reject(err: Error): void;
}

/** The writes waiting for one key, and how many of its batches run now (at most `lanes`). */
interface Lane {
  queue: Pending[];
  running: number;
  lanes: number;
}

/** What a change's later changes are keyed by: its task, or (without one) its rate lock. */
interface KnownCall {
  task: string | null;
  rateKey: string | null;
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

const rateKeyOf = (r: Pick<InvocationRecord, 'operation' | 'authorization_ref' | 'tool'>): string | null =>
  r.operation.rate_limit ? `rate:${r.authorization_ref}:${r.tool}` : null;

/** The batch key of an invocation change (null: it runs alone), given the calls this instance knows. */
export function batchKey(c: InvocationChange, known: KnownCall | undefined): string | null {
  const task = c.permit?.task_id ?? c.create?.task_id ?? known?.task;
  if (task) return `${TASK}${task}`;
  const call: KnownCall | undefined = c.create ? { task: null, rateKey: rateKeyOf(c.create) } : known;
  if (!call) return null; // a later change of a call not seen here: its task is unknown
  if (c.operation_rate && call.rateKey) return call.rateKey;
  return FREE;
}

export function createGroupCommitter(
  pool: Pool,
  rules: StoreRules,
  afterBatch: (result: BatchResult) => void,
): GroupCommitter {
  const lanes = new Map<string, Lane>();
  const known = new Map<string, KnownCall>();
  const stats: GroupCommitStats = { batches: 0, writes: 0 };

  const remember = (r: InvocationRecord) => {
    if (known.has(r.invocation_id)) return;
    if (known.size >= KNOWN_CALLS) known.delete(known.keys().next().value!);
    known.set(r.invocation_id, { task: r.task_id, rateKey: r.task_id ? null : rateKeyOf(r) });
  };

  const run = async (writes: Pending[], key: string | null) => {
    let result: BatchResult;
    try {
      result = await runBatch(pool, rules, writes, {
        independent: key === FREE,
        ...(key?.startsWith(TASK) ? { task: key.slice(TASK.length) } : {}),
      });
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

  /** Starts batches of the key's waiting writes while it has a free lane. */
  const pump = (key: string, lane: Lane) => {
    while (lane.running < lane.lanes && lane.queue.length > 0) {
      lane.running += 1;
      void run(lane.queue.splice(0, MAX_BATCH), key).finally(() =>
        // the callers this batch answered often send their next change before the event loop turns:
        // waiting that one turn lets them share the next batch, instead of the first of them
        // starting one alone while the others queue behind it
        setImmediate(() => {
          lane.running -= 1;
          if (lane.running === 0 && lane.queue.length === 0) lanes.delete(key);
          else pump(key, lane);
        }),
      );
    }
  };

  const keyOf = (name: string, args: unknown[]): string | null => {
    if (name !== 'applyInvocationChange') return null;
    const c = args[0] as InvocationChange;
    return batchKey(c, known.get(c.invocation_id));
  };

  return {
    write(name, op, args) {
      return new Promise<unknown>((resolve, reject) => {
        const pending: Pending = { op, args, resolve, reject };
        const key = keyOf(name, args);
        if (key === null) return void run([pending], null);
        let lane = lanes.get(key);
        if (!lane) {
          lane = { queue: [], running: 0, lanes: key === FREE ? FREE_LANES : 1 };
          lanes.set(key, lane);
        }
        lane.queue.push(pending); // taken now if a lane is free, else by the next batch of the key
        pump(key, lane);
      }).then((value) => {
        if (name === 'applyInvocationChange') {
          const r = value as InvocationChangeResult;
          if (r.kind !== 'stale') remember(r.record);
        }
        return value;
      });
    },
    stats: () => ({ ...stats }),
  };
}
