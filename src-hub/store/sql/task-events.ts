/**
 * The `task.changed` event a task change publishes: the task's view (boundary, accounting, the
 * oldest unresolved calls), a snapshot of the task as it is when the view is rendered.
 *
 * Two ways to publish it, chosen by the store:
 *   - inside the change's own transaction, at its end (PostgreSQL's group commit renders each
 *     touched task's view once per batch, under the task row lock: postgres/group-commit.ts);
 *   - at the end of the batch's own transaction too on SQLite (the writer thread's sink,
 *     `createTaskEventSink`): changes only note the tasks they touch, and after the batch's last
 *     write the writer renders each touched task's view once, in a savepoint (`publishTouched`).
 *     If that fails, the tasks are marked in `task_views_pending` instead (`mark`, in the same
 *     transaction: durable with the change), and the marked views are rendered by a later
 *     transaction (`publish`: the next batch's, first thing, or one of their own), as is a mark an
 *     older Hub left when the store opens. A view is a snapshot, so when changes of one task
 *     follow each other faster than views are published, the next view published covers all of
 *     them (latest wins); views are rendered and appended by the one writer thread, one after
 *     another, so a later event never shows an older state.
 */
import { randomUUID } from 'node:crypto';
import { TASK_VIEW_UNRESOLVED_LIMIT } from '../../../src-shared/hub-api.js';
import { isUnresolved, type InvocationState } from '../../../src-shared/states.js';
import type { TaskRecord, TaskUsage } from '../types.js';
import type { OpEnv } from './env.js';
import { readTask } from './ops/tasks.js';
import { readTaskUsage, type UnresolvedCache, type UnresolvedRow } from './ops/task-usage.js';
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
  const kept = env.taskEvents?.unresolved;
  // the kept list the usage's unresolved calls come from, if they come from one
  let listed: UnresolvedRow[] | undefined;
  const usage = yield* readTaskUsage(
    s,
    task.task_id,
    nowMs,
    rules.taskWindowMs(task),
    kept && {
      get: (id, total) => (listed = kept.get(id, total)),
      put(id, rows) {
        kept.put(id, rows);
        listed = rows;
      },
    },
  );
  const unresolvedJson = listed && kept?.json?.(task.task_id, listed, () => JSON.stringify(usage.unresolved));
  yield* appendTaskView(env, task, usage, nowMs, at, unresolvedJson);
  return task.client_id;
}

/**
 * Stands for a view's unresolved list while the rest of the view is rendered, where a kept
 * rendering of the list is laid in (appendTaskView). Random per process, so no text a caller
 * chose (a task's title) can be it; and it is laid in only where it appears exactly once.
 */
const UNRESOLVED_MARK = `\u0000unresolved ${randomUUID()}`;
const UNRESOLVED_MARK_JSON = JSON.stringify(UNRESOLVED_MARK);

/**
 * Appends a task's view (`task.changed`) from its row and usage as read at `nowMs`.
 * `unresolvedJson`: `usage.unresolved` as JSON, rendered before (a kept list's), laid into the view
 * instead of rendering the list again.
 */
export function* appendTaskView(
  env: OpEnv,
  task: TaskRecord,
  usage: TaskUsage,
  nowMs: number,
  at: string,
  unresolvedJson?: string,
): Step<void> {
  const { sql: s, rules } = env;
  let payload: string | undefined;
  if (unresolvedJson !== undefined) {
    const marked = JSON.stringify(
      rules.taskEvent(
        task,
        { ...usage, unresolved: UNRESOLVED_MARK as unknown as TaskUsage['unresolved'] },
        nowMs,
      ),
    );
    const where = marked.indexOf(UNRESOLVED_MARK_JSON);
    if (where >= 0 && marked.indexOf(UNRESOLVED_MARK_JSON, where + 1) < 0)
      payload = marked.slice(0, where) + unresolvedJson + marked.slice(where + UNRESOLVED_MARK_JSON.length);
  }
  payload ??= JSON.stringify(rules.taskEvent(task, usage, nowMs));
  yield* s.dialect.appendEvent(s, task.client_id, 'task.changed', payload, at);
}

/**
 * The call a task change moved (absent for a change of the task itself: create, pause, …), as its
 * row is after the change. With `updated_at`, `tool` and `authorization_ref` (what the task's
 * unresolved list shows of it) a kept list is updated in place; without them, dropped when the
 * change could alter it.
 */
export interface ChangedCall {
  invocation_id: string;
  /** Its state after the change. */
  state: string;
  created_at: string;
  updated_at: string;
  tool: string;
  authorization_ref: string;
}

/** A change of this task at `at`: publish its view now (no sink) or mark it for the sink. */
export function* taskChanged(env: OpEnv, taskId: string, at: string, call?: ChangedCall): Step<void> {
  if (env.taskEvents) env.taskEvents.touch(taskId, at, call);
  else yield* publishTaskView(env, taskId, at);
}

export interface TaskEventSink {
  /** Notes that a change of this task (of this call, if any) is in the running transaction, at `at`. */
  touch(taskId: string, at: string, call?: ChangedCall): void;
  /**
   * The unresolved lists the sink's views last read, kept while only this sink's writer changes
   * the store: every change of a call reaches `touch` first, which updates a task's list in place
   * from the changed call, or drops it when the change leaves it unknown. Only a single writer
   * keeps them (SQLite's writer thread).
   */
  readonly unresolved?: UnresolvedCache;
  /** Forgets every kept list (another connection changed the store). */
  forget?(): void;
  /** Marks every touched task in `task_views_pending` (inside the same transaction); forgets them. */
  mark(env: OpEnv): Step<number>;
  /** Publishes the view of every marked task and clears the marks; answers the clients published to. */
  publish(env: OpEnv): Step<string[]>;
}

interface KeptList {
  rows: UnresolvedRow[];
  ids: Set<string>;
  /** The list holds the limit, so calls ordered after its last one are not in it. */
  full: boolean;
  /**
   * The list as a view shows it, as JSON: rendered by the second view of the list as it is (a list
   * that changes from view to view is not rendered twice), dropped whenever the list changes.
   */
  json?: string;
  /** A view showed the list as it is. */
  viewed?: boolean;
}

/** The kept list changed: its JSON is stale, and no view has shown it yet. */
const changed = (kept: KeptList) => {
  kept.json = undefined;
  kept.viewed = false;
};

const ordered = (a: { created_at: string; invocation_id: string }, b: UnresolvedRow) =>
  a.created_at < b.created_at || (a.created_at === b.created_at && a.invocation_id < b.invocation_id);

/** The call's row in the list. */
const rowOf = (call: ChangedCall): UnresolvedRow => ({
  invocation_id: call.invocation_id,
  state: call.state as InvocationState,
  tool: call.tool,
  authorization_ref: call.authorization_ref,
  updated_at: call.updated_at,
  created_at: call.created_at,
});

/**
 * A kept list (the oldest unresolved calls of its task, all of them when it is short of the
 * limit) brought up to date with this change of one of its task's calls, in place; false when it
 * cannot be: a listed call resolved out of a full list, whose next call is not known.
 *   - a listed call still unresolved: its row is replaced (its creation, so its place, unchanged);
 *   - a listed call resolved: it leaves the list;
 *   - a call not listed, unresolved now, ordered before a full list's last (or any call, when the
 *     list is short of the limit): it was not unresolved before (else it would be listed), so it
 *     joins the list in its place, and a list past the limit drops its last;
 *   - any other call not listed changes nothing: after a full list's last, or resolved.
 */
function updated(kept: KeptList, call: ChangedCall): boolean {
  const unresolved = isUnresolved(call.state as InvocationState);
  if (kept.ids.has(call.invocation_id)) {
    const at = kept.rows.findIndex((r) => r.invocation_id === call.invocation_id);
    if (unresolved) {
      kept.rows[at] = rowOf(call);
      changed(kept);
      return true;
    }
    if (kept.full) return false;
    kept.rows.splice(at, 1);
    kept.ids.delete(call.invocation_id);
    changed(kept);
    return true;
  }
  if (!unresolved) return true;
  const last = kept.rows.at(-1);
  if (kept.full && last !== undefined && !ordered(call, last)) return true;
  let at = kept.rows.length;
  while (at > 0 && ordered(call, kept.rows[at - 1]!)) at -= 1;
  kept.rows.splice(at, 0, rowOf(call));
  kept.ids.add(call.invocation_id);
  changed(kept);
  if (kept.rows.length > TASK_VIEW_UNRESOLVED_LIMIT) kept.ids.delete(kept.rows.pop()!.invocation_id);
  kept.full = kept.rows.length >= TASK_VIEW_UNRESOLVED_LIMIT;
  return true;
}

/** The SQLite writer's sink: also renders the touched tasks' views inside the running transaction. */
export interface WriterTaskEventSink extends Required<TaskEventSink> {
  /**
   * Publishes the view of every task touched since the last mark or publish, in the order of their
   * changes' times (then task id), and forgets them; answers the clients published to. On failure
   * the touched tasks are kept (so they can be marked instead).
   */
  publishTouched(env: OpEnv): Step<string[]>;
  /** Forgets the touched tasks (their transaction was rolled back). */
  dropTouched(): void;
}

export function createTaskEventSink(): WriterTaskEventSink {
  const touched = new Map<string, string>();
  const lists = new Map<string, KeptList>();
  return {
    touch(taskId, at, call) {
      const seen = touched.get(taskId);
      if (seen === undefined || at > seen) touched.set(taskId, at);
      const kept = lists.get(taskId);
      if (kept && call && !updated(kept, call)) lists.delete(taskId);
    },
    unresolved: {
      get(taskId, unresolvedTotal) {
        const kept = lists.get(taskId);
        if (!kept) return undefined;
        // a list short of the limit holds every unresolved call; a full one, the oldest of at least as many
        const fits = kept.full
          ? unresolvedTotal >= TASK_VIEW_UNRESOLVED_LIMIT
          : unresolvedTotal === kept.rows.length;
        return fits ? kept.rows : undefined;
      },
      put(taskId, rows) {
        lists.set(taskId, {
          rows,
          ids: new Set(rows.map((r) => r.invocation_id)),
          full: rows.length >= TASK_VIEW_UNRESOLVED_LIMIT,
        });
      },
      json(taskId, rows, render) {
        const kept = lists.get(taskId);
        if (kept?.rows !== rows) return undefined;
        if (kept.json === undefined && !kept.viewed) {
          kept.viewed = true; // the first view of the list renders it with the rest of the view
          return undefined;
        }
        return (kept.json ??= render());
      },
    },
    forget() {
      lists.clear();
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
    *publishTouched(env) {
      const order = [...touched].sort(([ta, a], [tb, b]) => (a < b ? -1 : a > b ? 1 : ta < tb ? -1 : 1));
      const clients = new Set<string>();
      for (const [taskId, at] of order) {
        const client = yield* publishTaskView(env, taskId, at);
        if (client !== null) clients.add(client);
      }
      touched.clear();
      return [...clients];
    },
    dropTouched() {
      touched.clear();
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
