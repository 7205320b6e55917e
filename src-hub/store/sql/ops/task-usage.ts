/** Live usage of a task (in-flight, rate window, counts per state, unresolved calls), read in SQL. */
import { UNRESOLVED_INVOCATION_STATES, type InvocationState } from '../../../../src-shared/states.js';
import type { TaskUsage } from '../../types.js';
import { io, type SqlSession, type Step } from '../session.js';
import { windowBounds } from '../window.js';

/** The unresolved states as an SQL list; the names are constants of states.ts, never input. */
const UNRESOLVED_SQL = UNRESOLVED_INVOCATION_STATES.map((s) => `'${s}'`).join(', ');

/** Open permits of a task (its calls in flight). */
export function* countInFlight(s: SqlSession, taskId: string): Step<number> {
  const row = yield* io(
    s.get<{ n: number }>('SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND released_at_ms IS NULL', [
      taskId,
    ]),
  );
  return Number(row?.n ?? 0);
}

/** Permits of a task granted since `startMs` (its rate window). */
export function* countPermitsSince(s: SqlSession, taskId: string, startMs: number): Step<number> {
  const row = yield* io(
    s.get<{ n: number }>('SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND granted_at_ms >= ?', [
      taskId,
      startMs,
    ]),
  );
  return Number(row?.n ?? 0);
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
  const unresolved = yield* io(
    s.all<TaskUsage['unresolved'][number]>(
      `SELECT invocation_id, state, tool, authorization_ref, updated_at FROM invocations
       WHERE task_id = ? AND state IN (${UNRESOLVED_SQL})
       ORDER BY created_at, invocation_id`,
      [taskId],
    ),
  );
  return {
    in_flight: yield* countInFlight(s, taskId),
    used_in_window: bounds ? yield* countPermitsSince(s, taskId, bounds.start) : 0,
    window_start_ms: bounds?.start ?? null,
    window_end_ms: bounds?.end ?? null,
    counts: byState,
    unresolved,
  };
}
