/**
 * The `task.changed` event a task change publishes: the task's view (boundary, accounting, the
 * oldest unresolved calls), a snapshot of the task as it is when the view is rendered.
 *
 * Two ways to publish it, chosen by the store:
 *   - inside the change's own transaction, at its end (PostgreSQL's group commit renders each
 *     touched task's view once per batch, under the task row lock: postgres/group-commit.ts);
 *   - after commit (SQLite's writer thread, a `TaskEventSink`): the change's transaction only marks
 *     the task in `task_views_pending` (durable with the change itself), and the writer renders
 *     the views of the marked tasks in a transaction of their own once the batch is answered. A
 *     view is a snapshot, so when changes of one task follow each other faster than views are
 *     published, the next view published covers all of them (latest wins); views are rendered
 *     and appended by the one writer thread, one after another, so a later event never shows an
 *     older state. A mark left by a crash is published when the store opens again.
 */
import type { OpEnv } from './env.js';
import { readTask } from './ops/tasks.js';
import { readTaskUsage } from './ops/task-usage.js';
import { io, type Step } from './session.js';

/**
 * Renders and appends the task's current view; answers the client it was published to (null: no
 * such task). `lock` (the dialect's FOR UPDATE) reads the task row under its lock, so views of one
 * task rendered by concurrent transactions are appended in the order of their states.
 */
export function* publishTaskView(env: OpEnv, taskId: string, at: string, lock = ''): Step<string | null> {
  const { sql: s, rules } = env;
  const task = yield* readTask(s, taskId, lock);
  if (!task) return null;
  const nowMs = Date.parse(at);
  const usage = yield* readTaskUsage(s, task.task_id, nowMs, rules.taskWindowMs(task));
  yield* s.dialect.appendEvent(
    s,
    task.client_id,
    'task.changed',
    JSON.stringify(rules.taskEvent(task, usage, nowMs)),
    at,
  );
  return task.client_id;
}

/** A change of this task at `at`: publish its view now (no sink) or mark it for the sink. */
export function* taskChanged(env: OpEnv, taskId: string, at: string): Step<void> {
  if (env.taskEvents) env.taskEvents.touch(taskId, at);
  else yield* publishTaskView(env, taskId, at);
}

export interface TaskEventSink {
  /** Notes that a change of this task is in the running transaction, at `at`. */
  touch(taskId: string, at: string): void;
  /** Marks every touched task in `task_views_pending` (inside the same transaction); forgets them. */
  mark(env: OpEnv): Step<number>;
  /** Publishes the view of every marked task and clears the marks; answers the clients published to. */
  publish(env: OpEnv): Step<string[]>;
}

export function createTaskEventSink(): TaskEventSink {
  const touched = new Map<string, string>();
  return {
    touch(taskId, at) {
      const seen = touched.get(taskId);
      if (seen === undefined || at > seen) touched.set(taskId, at);
    },
    *mark({ sql: s }) {
      const n = touched.size;
      for (const [taskId, at] of touched) {
        yield* io(
          s.run(
            `INSERT INTO task_views_pending (task_id, at) VALUES (?, ?)
             ON CONFLICT (task_id) DO UPDATE SET at = CASE
               WHEN excluded.at > task_views_pending.at THEN excluded.at ELSE task_views_pending.at END`,
            [taskId, at],
          ),
        );
      }
      touched.clear();
      return n;
    },
    *publish(env) {
      const s = env.sql;
      const marked = yield* io(
        s.all<{ task_id: string; at: string }>(
          'SELECT task_id, at FROM task_views_pending ORDER BY at, task_id',
        ),
      );
      const clients = new Set<string>();
      for (const { task_id: taskId, at } of marked) {
        const client = yield* publishTaskView(env, String(taskId), String(at));
        if (client !== null) clients.add(client);
      }
      if (marked.length > 0) yield* io(s.run('DELETE FROM task_views_pending'));
      return [...clients];
    },
  };
}
