/** Live usage of a task (in-flight, rate window, counts per state, unresolved calls), read in SQL. */
import {
  OPERATOR_ATTESTED,
  UNRESOLVED_INVOCATION_STATES,
  type InvocationState,
} from '../../../../src-shared/states.js';
import type { TaskUsage } from '../../types.js';
import { io, type SqlSession, type Step } from '../session.js';
import { windowBounds } from '../window.js';

/** The unresolved states as an SQL list; the names are constants of states.ts, never input. */
const UNRESOLVED_SQL = UNRESOLVED_INVOCATION_STATES.map((s) => `'${s}'`).join(', ');

/** A task's permits in flight, and those granted since `windowStartMs` (its rate window), in one query. */
export function* countOpenPermits(
  s: SqlSession,
  taskId: string,
  windowStartMs: number | null,
): Step<{ in_flight: number; in_window: number }> {
  const row = yield* io(
    s.get<{ in_flight: number; in_window: number }>(
      `SELECT (SELECT COUNT(*) FROM permits WHERE task_id = ? AND released_at_ms IS NULL) AS in_flight,
              (SELECT COUNT(*) FROM permits WHERE task_id = ? AND granted_at_ms >= ?) AS in_window`,
      [taskId, taskId, windowStartMs ?? Number.MAX_SAFE_INTEGER],
    ),
  );
  return {
    in_flight: Number(row?.in_flight ?? 0),
    in_window: windowStartMs === null ? 0 : Number(row?.in_window ?? 0),
  };
}

/** Run inside a transaction (or a snapshot read) for a consistent view. */
export function* readTaskUsage(
  s: SqlSession,
  taskId: string,
  nowMs: number,
  windowMs: number | null,
): Step<TaskUsage> {
  const bounds = windowMs ? windowBounds(nowMs, windowMs) : null;
  const byState: Partial<Record<InvocationState, number>> = {};
  const counts = yield* io(
    s.all<{ state: InvocationState; n: number }>(
      'SELECT state, COUNT(*) AS n FROM invocations WHERE task_id = ? GROUP BY state',
      [taskId],
    ),
  );
  for (const r of counts) byState[r.state] = Number(r.n);
  // A call an operator settled carries the attestation as its reason (src-hub/invocations/attest.ts).
  const attested = yield* io(
    s.all<{ state: InvocationState; n: number }>(
      'SELECT state, COUNT(*) AS n FROM invocations WHERE task_id = ? AND reason_code = ? GROUP BY state',
      [taskId, OPERATOR_ATTESTED],
    ),
  );
  const settledByOperator = { succeeded: 0, failed: 0 };
  for (const r of attested)
    if (r.state === 'succeeded' || r.state === 'failed') settledByOperator[r.state] = Number(r.n);
  const unresolved = yield* io(
    s.all<TaskUsage['unresolved'][number]>(
      `SELECT invocation_id, state, tool, authorization_ref, updated_at FROM invocations
       WHERE task_id = ? AND state IN (${UNRESOLVED_SQL})
       ORDER BY created_at, invocation_id`,
      [taskId],
    ),
  );
  const open = yield* countOpenPermits(s, taskId, bounds?.start ?? null);
  return {
    in_flight: open.in_flight,
    used_in_window: open.in_window,
    window_start_ms: bounds?.start ?? null,
    window_end_ms: bounds?.end ?? null,
    counts: byState,
    settled_by_operator: settledByOperator,
    unresolved,
  };
}
