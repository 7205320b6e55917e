/**
 * The task state counts of a batch, summed in the writer instead of written change by change
 * (sql/ops/invocation-change.ts DeferredStateCounts): 16 permits of one task move 16 calls into
 * `dispatching`, one row of `task_state_counts` written once with +16, instead of 16 statements
 * each rewriting that row. The group committer writes the sums in the batch's transaction before
 * its task views read them; when the batch runs write by write, at the end of each write's
 * savepoint (so a write undone alone takes its counts with it); and drops them when the
 * transaction is rolled back.
 */
import {
  writeStateCounts,
  type DeferredStateCounts,
  type StateCountDelta,
} from '../../sql/ops/invocation-change.js';
import type { SqlSession, Step } from '../../sql/session.js';

export interface StateCountSums extends DeferredStateCounts {
  /** Writes the sums (none that came to 0) and forgets them. */
  write(s: SqlSession): Step<void>;
  /** Forgets the sums (their transaction or savepoint was rolled back). */
  drop(): void;
}

export function createStateCountSums(): StateCountSums {
  const byTask = new Map<string, Map<string, number>>();
  return {
    add(taskId, state, n) {
      let states = byTask.get(taskId);
      if (states === undefined) {
        states = new Map();
        byTask.set(taskId, states);
      }
      states.set(state, (states.get(state) ?? 0) + n);
    },
    *write(s) {
      if (byTask.size === 0) return;
      const deltas: StateCountDelta[] = [];
      for (const [taskId, states] of byTask)
        for (const [state, n] of states) if (n !== 0) deltas.push([taskId, state, n]);
      byTask.clear();
      if (deltas.length > 0) yield* writeStateCounts(s, deltas);
    },
    drop() {
      byTask.clear();
    },
  };
}
