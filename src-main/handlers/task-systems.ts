/**
 * Gets the desk a view naming each task's systems. The Hub names a task's boundary systems
 * (`TaskView.systems`, also a retired system's) only where it serves a task to its caller — list,
 * create, pause / continue / cancel, get — never on the live stream, whose views it renders with
 * every permit batch. So a task the desk saw only on the stream (made by another agent with the
 * same client) is looked up once: one GET for a lone task, one list for a burst of them (a replay).
 * After that its views from the stream carry no systems and the renderer keeps the ones it has
 * (store/tasks.ts). An older Hub serves none: its tasks are still looked up only once, and the
 * renderer names their systems from the agent list.
 */
import type { TaskView } from '../../src-shared/hub-api.js';

export interface TaskSystemsDeps {
  getTask(taskId: string): Promise<TaskView>;
  listTasks(): Promise<TaskView[]>;
  /** A served view found by a look-up, for the renderer. */
  emit(task: TaskView): void;
  /** How long unknown tasks are gathered into one look-up (default 50 ms). */
  gatherMs?: number;
}

export interface TaskSystemsLookup {
  /** A view the Hub served: its task needs no look-up. Returns the view. */
  served(view: TaskView): TaskView;
  /** A view from the live stream: its task is looked up once if no view of it was served. */
  streamed(view: TaskView): void;
  close(): void;
}

export function createTaskSystemsLookup(deps: TaskSystemsDeps): TaskSystemsLookup {
  const served = new Set<string>();
  const asked = new Set<string>();
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let closed = false;

  const lookUp = async (ids: string[]) => {
    try {
      const views = ids.length === 1 && ids[0] ? [await deps.getTask(ids[0])] : await deps.listTasks();
      if (closed) return;
      for (const view of views) {
        served.add(view.task_id);
        deps.emit(view);
      }
    } catch {
      // the Hub cannot say now: the next view of the task from the stream asks again
      for (const id of ids) asked.delete(id);
    }
  };
  const flush = () => {
    timer = null;
    const ids = [...pending];
    pending.clear();
    if (ids.length > 0) void lookUp(ids);
  };

  return {
    served(view) {
      served.add(view.task_id);
      return view;
    },
    streamed(view) {
      if (closed || view.systems || served.has(view.task_id) || asked.has(view.task_id)) return;
      asked.add(view.task_id);
      pending.add(view.task_id);
      timer ??= setTimeout(flush, deps.gatherMs ?? 50);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
