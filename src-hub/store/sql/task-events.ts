/**
 * The `task.changed` event a task-bound invocation change publishes: the task's view (boundary,
 * accounting, unresolved calls) rendered inside the transaction. A view is a snapshot, so when
 * several changes of one task commit together (SQLite's group commit) only the last view matters:
 * a `TaskEventSink` collects the tasks a batch touched and the batch publishes one view per task
 * just before its COMMIT, instead of rendering a view — O(calls in flight) — for every change.
 */
import type { OpEnv } from './env.js';
import { readTask } from './ops/tasks.js';
import { readTaskUsage } from './ops/task-usage.js';
import type { Step } from './session.js';

/** Renders and appends the task's current view (the event a task-bound change publishes). */
export function* publishTaskView(env: OpEnv, taskId: string, at: string): Step<void> {
  const { sql: s, rules } = env;
  const task = yield* readTask(s, taskId);
  if (!task) return;
  const nowMs = Date.parse(at);
  const usage = yield* readTaskUsage(s, task.task_id, nowMs, rules.taskWindowMs(task));
  yield* s.dialect.appendEvent(
    s,
    task.client_id,
    'task.changed',
    JSON.stringify(rules.taskEvent(task, usage, nowMs)),
    at,
  );
}

export interface TaskEventSink {
  /** Notes that a change of this task committed in this batch, at `at`. */
  touch(taskId: string, at: string): void;
  /** Publishes one view per touched task, in the order first touched; then forgets them. */
  flush(env: OpEnv): Step<void>;
}

export function createTaskEventSink(): TaskEventSink {
  const touched = new Map<string, string>();
  return {
    touch(taskId, at) {
      touched.set(taskId, at > (touched.get(taskId) ?? '') ? at : touched.get(taskId)!);
    },
    *flush(env) {
      const pending = [...touched];
      touched.clear();
      for (const [taskId, at] of pending) yield* publishTaskView(env, taskId, at);
    },
  };
}
