/**
 * A batch's task view computed from reads sent in the batch's first round trip (PostgreSQL), so
 * the batch's writes, the view's event and COMMIT leave together, one socket write after the
 * decisions: the task row is held for one wait on the Hub instead of two.
 *
 * task-view.ts reads the view's inputs after the batch's writes (a round trip), then appends the
 * view and commits (another). Here the same inputs are read ahead, right behind the calls' locks
 * (outcome-reads.ts) and the task row's lock (FOR UPDATE, which the batch's permits take anyway):
 * the row, its counts per state, its calls an operator settled, and the oldest unresolved calls of
 * each unresolved state — as many more than the list shows as the batch has changes, so however
 * many of them leave the list it is still the oldest. The batch's answers then say what each
 * change did (the call's state before: the one it changed from, as read ahead; after: its answer's
 * record; a granted permit and a released one change the row's counters as the one-change path and
 * permit-run.ts write them), and the view is the state read plus those changes.
 *
 * Only a batch of one task whose every change this can follow reads its view ahead: new calls of
 * the task (with or without a permit), and changes of its existing calls read ahead (one each in
 * the batch) that release no refund, decide no approval and create none. Anything else, a task
 * with a rate window (its window's permits would need counting), a change of another task: the
 * view is read after the writes, as before (render answers false).
 *
 * What was read ahead is the state under the task row's lock, as the view read at the end saw it,
 * but for a change of one of the task's calls that takes no task row lock (an operator's
 * settlement, a recovery) committed between the two reads: its own view, appended after this one
 * (it takes the row's lock to render), shows it — views still come in the order of their states.
 */
import { TASK_VIEW_UNRESOLVED_LIMIT } from '../../../src-shared/hub-api.js';
import {
  OPERATOR_ATTESTED,
  UNRESOLVED_INVOCATION_STATES,
  type InvocationState,
} from '../../../src-shared/states.js';
import type { OpEnv } from '../sql/env.js';
import {
  countsByState,
  oldestUnresolved,
  TASK_ATTESTED_SQL,
  TASK_STATE_COUNTS_SQL,
  taskUsageOf,
  type StateCount,
  type UnresolvedRow,
} from '../sql/ops/task-usage.js';
import { toInvocation, toTask } from '../sql/rows.js';
import { runAsync, type Row } from '../sql/session.js';
import { appendTaskView } from '../sql/task-events.js';
import type { InvocationChange, InvocationChangeResult, InvocationRecord } from '../types.js';
import type { ReadAhead } from './outcome-reads.js';
import { taskRowKey } from './lock-order.js';
import type { PgSession } from './session.js';
import { UNRESOLVED_SQL } from './task-view.js';

/** The task row, locked: as the one-change path's gates and a permit run read it. */
const TASK_ROW_SQL = 'SELECT * FROM tasks WHERE task_id = ? FOR UPDATE';

export interface ViewAhead {
  /**
   * Appends the task's view after the batch's changes (`results`, in the order of `changes`),
   * held back to leave with COMMIT; false if it cannot be followed (the batch reads the view).
   */
  render(
    env: OpEnv,
    results: ReadonlyArray<InvocationChangeResult>,
    touched: Map<string, string>,
  ): Promise<boolean>;
}

/** Whether the view can follow this change of a call of `taskId`. */
function follows(c: InvocationChange, taskId: string): boolean {
  if (c.create_approval || c.decide_approval || c.only_if_orphaned || c.release_permit?.refund) return false;
  if (c.permit && c.permit.task_id !== taskId) return false;
  if (c.from === 'new') return c.create?.task_id === taskId && !c.release_permit;
  return true;
}

/** Whether the view of `taskId` can follow every one of the batch's changes (each of a call of its own). */
export function viewFollows(taskId: string, changes: ReadonlyArray<InvocationChange | null>): boolean {
  const ids = changes.map((c) => c?.invocation_id);
  return new Set(ids).size === ids.length && changes.every((c) => c !== null && follows(c, taskId));
}

/**
 * Whether the task row as read ahead is what the batch's first read of it (a permit's, under the
 * lock) would find: no change before the last permit request writes the row without reading it
 * first (a permit's release or refund does; releases-last.ts orders them after the requests).
 */
export function requestsFirst(changes: ReadonlyArray<InvocationChange | null>): boolean {
  let released = false;
  for (const c of changes) {
    if (c?.permit && released) return false;
    if (c?.release_permit) released = true;
  }
  return true;
}

/**
 * Sends the view's reads of the batch's task now, right behind readAhead's locks and reads
 * (viewFollows). With `offerRow` (requestsFirst), the task row read under its lock also answers
 * the batch's first read of it (session.ts knowRows): a permit run's, or one change's gates.
 */
export function viewAhead(
  s: PgSession,
  taskId: string,
  changes: ReadonlyArray<InvocationChange | null>,
  ahead: Promise<ReadAhead>,
  opts: { offerRow?: boolean } = {},
): ViewAhead {
  const listed = TASK_VIEW_UNRESOLVED_LIMIT + changes.length;
  const taskRow = s.get<Row>(TASK_ROW_SQL, [taskId]);
  s.knowLocked(taskRowKey(taskId));
  if (opts.offerRow)
    s.knowRows(
      TASK_ROW_SQL,
      [taskId],
      Promise.resolve(taskRow).then((row) => (row ? [row] : [])),
    );
  const reads = Promise.all([
    s.indexPlans(), // for the unresolved calls (plans.ts)
    taskRow,
    s.all<StateCount>(TASK_STATE_COUNTS_SQL, [taskId]),
    s.all<StateCount>(TASK_ATTESTED_SQL, [taskId]),
    s.all<UnresolvedRow>(
      UNRESOLVED_SQL,
      UNRESOLVED_INVOCATION_STATES.flatMap((state) => [taskId, state, listed]),
    ),
    ahead,
  ]);
  reads.catch(() => undefined); // a failure is the batch's, seen by the statements it awaits
  return {
    async render(env, results, touched) {
      if (touched.size === 0) return true; // every change was stale: nothing changed, no view
      const at = touched.get(taskId);
      if (at === undefined || touched.size !== 1) return false;
      const [, row, counts, attestedRows, unresolved, { rows: before, permitOpen }] = await reads;
      if (!row) return false;
      const task = toTask(row);
      if (env.rules.taskWindowMs(task)) return false;
      let open = Number(row.permits_open ?? 0);
      const byState = countsByState(counts);
      const attested = countsByState(attestedRows);
      const add = (m: Partial<Record<InvocationState, number>>, state: InvocationState, n: number) =>
        (m[state] = (m[state] ?? 0) + n);
      const moved = new Set<string>();
      const now: UnresolvedRow[] = [];
      for (const [i, result] of results.entries()) {
        if (result.kind === 'stale') continue;
        const change = changes[i]!;
        const after = result.record;
        let was: InvocationRecord | null = null;
        if (change.from !== 'new') {
          const read = before.get(change.invocation_id);
          if (!read) return false;
          was = toInvocation(read);
        }
        if (after.task_id !== taskId || (was && was.task_id !== taskId)) return false;
        if (was) {
          add(byState, was.state, -1);
          if (was.reason_code === OPERATOR_ATTESTED) add(attested, was.state, -1);
        }
        add(byState, after.state, 1);
        if (after.reason_code === OPERATOR_ATTESTED) add(attested, after.state, 1);
        moved.add(after.invocation_id);
        if ((UNRESOLVED_INVOCATION_STATES as readonly string[]).includes(after.state))
          now.push({
            invocation_id: after.invocation_id,
            state: after.state,
            tool: after.tool,
            authorization_ref: after.authorization_ref,
            updated_at: after.updated_at,
            created_at: after.created_at,
          });
        if (result.kind !== 'applied') continue;
        // the task row's counters, as the permit's grant and its release write them
        if (result.permit) {
          task.writes_used += result.permit.effect === 'write' ? 1 : 0;
          task.permits_granted += 1;
          task.updated_at = change.at;
          open += 1;
        }
        if (change.release_permit && was?.permit_id && permitOpen.get(change.invocation_id)) open -= 1;
      }
      const rows = oldestUnresolved(
        [...unresolved.filter((r) => !moved.has(r.invocation_id)), ...now].filter(
          (r) => (byState[r.state as InvocationState] ?? 0) > 0,
        ),
        TASK_VIEW_UNRESOLVED_LIMIT,
      );
      const usage = taskUsageOf({
        // as task_state_counts lists them: the states that have calls, in their order
        byState: Object.fromEntries(
          Object.entries(byState)
            .filter(([, n]) => n > 0)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        ),
        attested: Object.entries(attested)
          .filter(([, n]) => n > 0)
          .map(([state, n]) => ({ state: state as InvocationState, n })),
        rows,
        open: { in_flight: open, in_window: 0 },
        bounds: null,
      });
      await runAsync(appendTaskView(env, task, usage, Date.parse(at), at));
      return true;
    },
  };
}
