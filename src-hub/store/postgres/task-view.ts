/**
 * A task's view rendered at the end of a PostgreSQL batch (batch.ts), as sql/task-events.ts
 * publishTaskView renders it, with its reads in one round trip: the task row locked FOR UPDATE,
 * its counts per state, its calls an operator settled and the oldest unresolved calls of every
 * unresolved state go out together, pipelined (the server runs them in that order, each with its
 * own snapshot, so every read after the lock sees what committed before it was held, as when they
 * were sent one by one). Only a task with a rate window reads its window's permits after, once
 * the row says it has one.
 */
import { TASK_VIEW_UNRESOLVED_LIMIT } from '../../../src-shared/hub-api.js';
import { UNRESOLVED_INVOCATION_STATES } from '../../../src-shared/states.js';
import type { OpEnv } from '../sql/env.js';
import {
  countOpenPermits,
  countsByState,
  oldestUnresolved,
  TASK_ATTESTED_SQL,
  TASK_STATE_COUNTS_SQL,
  taskUsageOf,
  UNRESOLVED_OF_STATE_SQL,
  type StateCount,
  type UnresolvedRow,
} from '../sql/ops/task-usage.js';
import { toTask } from '../sql/rows.js';
import { appendTaskView } from '../sql/task-events.js';
import { runAsync, type Row } from '../sql/session.js';
import { windowBounds } from '../sql/window.js';
import type { PgSession } from './session.js';

/** The oldest unresolved calls of each unresolved state, in one statement (each branch in its index order). */
export const UNRESOLVED_SQL = UNRESOLVED_INVOCATION_STATES.map(() => `(${UNRESOLVED_OF_STATE_SQL})`).join(
  '\nUNION ALL ',
);

/** Renders and appends the task's current view (nothing if the task does not exist). */
export async function renderTaskView(s: PgSession, env: OpEnv, taskId: string, at: string): Promise<void> {
  const [, row, counts, attested, listed] = await Promise.all([
    s.indexPlans(), // for the unresolved calls (plans.ts): set once per transaction
    s.get<Row>(`SELECT * FROM tasks WHERE task_id = ?${s.dialect.forUpdate}`, [taskId]),
    s.all<StateCount>(TASK_STATE_COUNTS_SQL, [taskId]),
    s.all<StateCount>(TASK_ATTESTED_SQL, [taskId]),
    s.all<UnresolvedRow>(
      UNRESOLVED_SQL,
      UNRESOLVED_INVOCATION_STATES.flatMap((state) => [taskId, state, TASK_VIEW_UNRESOLVED_LIMIT]),
    ),
  ]);
  if (!row) return;
  const { rules } = env;
  const task = toTask(row);
  const nowMs = Date.parse(at);
  const windowMs = rules.taskWindowMs(task);
  const bounds = windowMs ? windowBounds(nowMs, windowMs) : null;
  const byState = countsByState(counts);
  // as readTaskUsage: only the states the counts hold any of are listed
  const rows = oldestUnresolved(
    listed.filter((r) => (byState[r.state] ?? 0) > 0),
    TASK_VIEW_UNRESOLVED_LIMIT,
  );
  // in flight: the locked row's counter (what countOpenPermits reads); the window's permits only if it has one
  const open = bounds
    ? await runAsync(countOpenPermits(s, taskId, bounds.start))
    : { in_flight: Number(row.permits_open ?? 0), in_window: 0 };
  const usage = taskUsageOf({ byState, attested, rows, open, bounds });
  await runAsync(appendTaskView(env, task, usage, nowMs, at));
}
