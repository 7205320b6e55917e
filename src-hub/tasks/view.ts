/** Renders the wire TaskView (hub-api TaskViewSchema) from a task and its live usage. */
import type { TaskView } from '../../src-shared/hub-api.js';
import { INVOCATION_STATES } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import type { TaskRecord, TaskUsage } from '../store/types.js';
import { isExpired, WINDOW_MS } from './policy.js';
import { boundarySystemsReader } from './systems.js';

export const taskWindowMs = (task: TaskRecord): number | null =>
  task.boundary.rate_limit ? WINDOW_MS[task.boundary.rate_limit.window] : null;

/**
 * A task as the task routes serve it to a caller: its view with its boundary's systems (`systems`,
 * ./systems.ts). `systems` may be shared by the views of one answer (a list reads each client's
 * grants and each system once).
 */
export async function taskView(
  ctx: HubContext,
  task: TaskRecord,
  systems = boundarySystemsReader(ctx.store),
): Promise<TaskView> {
  const nowMs = ctx.now().getTime();
  const [usage, named] = await Promise.all([
    ctx.store.taskUsage(task.task_id, nowMs, taskWindowMs(task)),
    systems(task),
  ]);
  return { ...toTaskView(task, usage, nowMs), systems: named };
}

/** Pure rendering (also used inside the invocation transaction for `task.changed` events). */
export function toTaskView(task: TaskRecord, usage: TaskUsage, nowMs: number): TaskView {
  const rl = task.boundary.rate_limit;
  const counts = Object.fromEntries(
    INVOCATION_STATES.map((s) => [s, usage.counts[s] ?? 0]),
  ) as TaskView['counts'];
  return {
    task_id: task.task_id,
    client_id: task.client_id,
    title: task.title,
    state: task.state,
    expired: isExpired(task.boundary.expires_at, nowMs),
    boundary: task.boundary,
    writes_used: task.writes_used,
    writes_left: Math.max(0, task.boundary.write_budget - task.writes_used),
    in_flight: usage.in_flight,
    rate:
      rl && usage.window_end_ms !== null
        ? {
            count: rl.count,
            window: rl.window,
            used_in_window: usage.used_in_window,
            resets_at: new Date(usage.window_end_ms).toISOString(),
          }
        : null,
    counts,
    settled_by_operator: { ...usage.settled_by_operator },
    permits_granted: task.permits_granted,
    unresolved: usage.unresolved,
    unresolved_total: usage.unresolved_total,
    created_at: task.created_at,
    updated_at: task.updated_at,
    paused_at: task.paused_at,
    cancelled_at: task.cancelled_at,
  };
}
