/** Live usage of a task (in-flight, rate window, counts per state, unresolved calls), read in SQL. */
import type Database from 'better-sqlite3';
import { UNRESOLVED_INVOCATION_STATES, type InvocationState } from '../../../src-shared/states.js';
import type { TaskUsage } from '../types.js';
import { windowBounds } from './window.js';

/** The unresolved states as an SQL list; the names are constants of states.ts, never input. */
const UNRESOLVED_SQL = UNRESOLVED_INVOCATION_STATES.map((s) => `'${s}'`).join(', ');

export function createTaskUsageReader(db: Database.Database) {
  const inFlight = db.prepare(
    'SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND released_at_ms IS NULL',
  );
  const inWindow = db.prepare('SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND granted_at_ms >= ?');
  const counts = db.prepare('SELECT state, COUNT(*) AS n FROM invocations WHERE task_id = ? GROUP BY state');
  const unresolved = db.prepare(
    `SELECT invocation_id, state, tool, authorization_ref, updated_at FROM invocations
     WHERE task_id = ? AND state IN (${UNRESOLVED_SQL})
     ORDER BY created_at, invocation_id`,
  );
  /** Call inside a transaction for a consistent snapshot. */
  return (taskId: string, nowMs: number, windowMs: number | null): TaskUsage => {
    const bounds = windowMs ? windowBounds(nowMs, windowMs) : null;
    const byState: Partial<Record<InvocationState, number>> = {};
    for (const r of counts.all(taskId) as Array<{ state: InvocationState; n: number }>)
      byState[r.state] = r.n;
    return {
      in_flight: (inFlight.get(taskId) as { n: number }).n,
      used_in_window: bounds ? (inWindow.get(taskId, bounds.start) as { n: number }).n : 0,
      window_start_ms: bounds?.start ?? null,
      window_end_ms: bounds?.end ?? null,
      counts: byState,
      unresolved: unresolved.all(taskId) as TaskUsage['unresolved'],
    };
  };
}
