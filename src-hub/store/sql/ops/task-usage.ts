/** Live usage of a task (in-flight, rate window, counts per state, unresolved calls), read in SQL. */
import {
  OPERATOR_ATTESTED,
  UNRESOLVED_INVOCATION_STATES,
  type InvocationState,
} from '../../../../src-shared/states.js';
import { TASK_VIEW_UNRESOLVED_LIMIT } from '../../../../src-shared/hub-api.js';
import type { TaskUsage } from '../../types.js';
import { io, type SqlSession, type Step } from '../session.js';
import { windowBounds } from '../window.js';

/**
 * A task's permits in flight (the count the permit transactions keep on the task row, so it costs
 * the same with 10,000 calls in flight as with one), and those granted since `windowStartMs` (its
 * rate window, bounded by the rate limit).
 */
export function* countOpenPermits(
  s: SqlSession,
  taskId: string,
  windowStartMs: number | null,
): Step<{ in_flight: number; in_window: number }> {
  const row = yield* io(
    s.get<{ in_flight: number; in_window: number }>(
      `SELECT (SELECT permits_open FROM tasks WHERE task_id = ?) AS in_flight,
              (SELECT COUNT(*) FROM permits WHERE task_id = ? AND granted_at_ms >= ?) AS in_window`,
      [taskId, taskId, windowStartMs ?? Number.MAX_SAFE_INTEGER],
    ),
  );
  return {
    in_flight: Number(row?.in_flight ?? 0),
    in_window: windowStartMs === null ? 0 : Number(row?.in_window ?? 0),
  };
}

/** One unresolved call of a task's list, with what orders the list (oldest first, then by id). */
export type UnresolvedRow = TaskUsage['unresolved'][number] & { created_at: string };

/**
 * The unresolved list of a task as last read, kept by a single writer (SQLite's writer thread)
 * that sees every change of the task's calls (sql/task-events.ts): `get` answers it only while no
 * change since could have altered it.
 */
export interface UnresolvedCache {
  get(taskId: string, unresolvedTotal: number): UnresolvedRow[] | undefined;
  put(taskId: string, rows: UnresolvedRow[]): void;
  /**
   * The task's kept list as JSON of its view rows (`render`: the rows a view of `rows` shows,
   * rendered), kept until the list changes; undefined when `rows` is not the kept list, or its
   * first view since it changed (which renders it with the rest of the view).
   */
  json?(taskId: string, rows: UnresolvedRow[], render: () => string): string | undefined;
}

/** The oldest `limit` of `rows` (unresolved calls of any states), by creation time, then id. */
export function oldestUnresolved(rows: UnresolvedRow[], limit: number): UnresolvedRow[] {
  const sorted = rows.sort((a, b) =>
    a.created_at < b.created_at
      ? -1
      : a.created_at > b.created_at
        ? 1
        : a.invocation_id < b.invocation_id
          ? -1
          : a.invocation_id > b.invocation_id
            ? 1
            : 0,
  );
  return sorted.slice(0, limit);
}

/** The oldest `?` calls of a task in one state (index invocations_task_created). */
export const UNRESOLVED_OF_STATE_SQL = `SELECT invocation_id, state, tool, authorization_ref, updated_at, created_at FROM invocations
         WHERE task_id = ? AND state = ? ORDER BY created_at, invocation_id LIMIT ?`;

/**
 * The unresolved calls, oldest first: the oldest `limit` of each state that has any (index
 * invocations_task_created), merged. `counts` are the task's calls per state, read in the same
 * transaction.
 */
function* readUnresolved(
  s: SqlSession,
  taskId: string,
  counts: Partial<Record<InvocationState, number>>,
  limit: number,
): Step<UnresolvedRow[]> {
  const all: UnresolvedRow[] = [];
  for (const state of UNRESOLVED_INVOCATION_STATES) {
    if ((counts[state] ?? 0) === 0) continue;
    const rows = yield* io(s.all<UnresolvedRow>(UNRESOLVED_OF_STATE_SQL, [taskId, state, limit]));
    all.push(...rows);
  }
  return oldestUnresolved(all, limit);
}

/**
 * Run inside a transaction (or a snapshot read) for a consistent view. Its cost does not grow with
 * the calls the task has made: the counts per state are kept in `task_state_counts`, the
 * unresolved list is the oldest TASK_VIEW_UNRESOLVED_LIMIT (the counts carry the totals), and
 * attested calls are counted from a partial index of only those.
 */
export function* readTaskUsage(
  s: SqlSession,
  taskId: string,
  nowMs: number,
  windowMs: number | null,
  cache?: UnresolvedCache,
): Step<TaskUsage> {
  const bounds = windowMs ? windowBounds(nowMs, windowMs) : null;
  // kept by every change of the task's calls (invocation-change.ts), so reading them does not grow
  // with the calls the task has made
  const counts = yield* io(s.all<StateCount>(TASK_STATE_COUNTS_SQL, [taskId]));
  const attested = yield* io(s.all<StateCount>(TASK_ATTESTED_SQL, [taskId]));
  const byState = countsByState(counts);
  const unresolvedTotal = UNRESOLVED_INVOCATION_STATES.reduce((n, st) => n + (byState[st] ?? 0), 0);
  let rows = unresolvedTotal === 0 ? [] : cache?.get(taskId, unresolvedTotal);
  if (rows === undefined) {
    rows = yield* readUnresolved(s, taskId, byState, TASK_VIEW_UNRESOLVED_LIMIT);
    cache?.put(taskId, rows);
  }
  const open = yield* countOpenPermits(s, taskId, bounds?.start ?? null);
  return taskUsageOf({ byState, attested, rows, open, bounds });
}

/** A task's calls per state (one of a state's rows), as task_state_counts holds them. */
export type StateCount = { state: InvocationState; n: number };

/** The task's calls per state, kept by every change of its calls (task_state_counts). */
export const TASK_STATE_COUNTS_SQL =
  'SELECT state, n FROM task_state_counts WHERE task_id = ? AND n > 0 ORDER BY state';

// A call an operator settled carries the attestation as its reason (src-hub/invocations/attest.ts).
// The reason is written into the SQL (a constant, never input) so the partial index
// invocations_task_attested serves it.
/** The task's calls an operator settled, per state. */
export const TASK_ATTESTED_SQL = `SELECT state, COUNT(*) AS n FROM invocations WHERE task_id = ? AND reason_code = '${OPERATOR_ATTESTED}' GROUP BY state`;

export function countsByState(counts: readonly StateCount[]): Partial<Record<InvocationState, number>> {
  const byState: Partial<Record<InvocationState, number>> = {};
  for (const r of counts) byState[r.state] = Number(r.n);
  return byState;
}

/** A task's usage from what readTaskUsage reads (the PostgreSQL store reads it all in one round trip). */
export function taskUsageOf(read: {
  byState: Partial<Record<InvocationState, number>>;
  attested: readonly StateCount[];
  /** The oldest unresolved calls (at most TASK_VIEW_UNRESOLVED_LIMIT). */
  rows: readonly UnresolvedRow[];
  open: { in_flight: number; in_window: number };
  bounds: { start: number; end: number } | null;
}): TaskUsage {
  const { byState, bounds } = read;
  const settledByOperator = { succeeded: 0, failed: 0 };
  for (const r of read.attested)
    if (r.state === 'succeeded' || r.state === 'failed') settledByOperator[r.state] = Number(r.n);
  const unresolvedTotal = UNRESOLVED_INVOCATION_STATES.reduce((n, st) => n + (byState[st] ?? 0), 0);
  const unresolved = read.rows.map(({ invocation_id, state, tool, authorization_ref, updated_at }) => ({
    invocation_id,
    state,
    tool,
    authorization_ref,
    updated_at,
  }));
  return {
    in_flight: read.open.in_flight,
    used_in_window: read.open.in_window,
    window_start_ms: bounds?.start ?? null,
    window_end_ms: bounds?.end ?? null,
    counts: byState,
    settled_by_operator: settledByOperator,
    unresolved,
    unresolved_total: unresolvedTotal,
  };
}
