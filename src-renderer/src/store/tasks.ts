/**
 * Tasks from the Hub (kept live by task events), the selected task and its timeline. A task's
 * `systems` (its boundary's systems by name, also a retired one's) come only with the views the Hub
 * serves (list, create, pause / continue / cancel, main's look-up); views from the live stream
 * carry none, so a task keeps the last ones served.
 */
import { create } from 'zustand';
import type { CreateTaskRequest, TaskView } from '../../../src-shared/hub-api.js';
import type { TimelineEntry } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';

export interface TasksState {
  tasks: Record<string, TaskView>;
  selectedId: string | null;
  timeline: TimelineEntry[];
  load(): Promise<void>;
  select(taskId: string | null): Promise<void>;
  create(req: CreateTaskRequest): Promise<TaskView>;
  control(action: 'pause' | 'continue' | 'cancel', taskId: string): Promise<void>;
  applyTask(task: TaskView): void;
  loadTimeline(): Promise<void>;
}

export const sortedTasks = (tasks: Record<string, TaskView>): TaskView[] =>
  Object.values(tasks).sort((a, b) =>
    a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0,
  );

export const useTasks = create<TasksState>((set, get) => ({
  tasks: {},
  selectedId: null,
  timeline: [],
  async load() {
    const { tasks } = await call('listTasks', {});
    set((s) => ({
      tasks: Object.fromEntries(tasks.map((t) => [t.task_id, t])),
      selectedId: s.selectedId ?? tasks[0]?.task_id ?? null,
    }));
  },
  async select(taskId) {
    set({ selectedId: taskId, timeline: [] });
    if (taskId) await get().loadTimeline();
  },
  async create(req) {
    const task = await call('createTask', req);
    get().applyTask(task);
    await get().select(task.task_id);
    return task;
  },
  async control(action, taskId) {
    const name = action === 'pause' ? 'pauseTask' : action === 'continue' ? 'continueTask' : 'cancelTask';
    const task = await call(name, { task_id: taskId });
    get().applyTask(task);
    if (get().selectedId === taskId) await get().loadTimeline();
  },
  applyTask(task) {
    set((s) => {
      const prev = s.tasks[task.task_id];
      // An older view arrived late: only the systems it names are news (the Hub read them just now).
      if (prev && prev.updated_at > task.updated_at)
        return task.systems
          ? { tasks: { ...s.tasks, [task.task_id]: { ...prev, systems: task.systems } } }
          : s;
      // A view from the live stream names no systems: the task keeps the ones the Hub served.
      const systems = task.systems ?? prev?.systems;
      return { tasks: { ...s.tasks, [task.task_id]: systems ? { ...task, systems } : task } };
    });
  },
  async loadTimeline() {
    const id = get().selectedId;
    if (!id) return;
    const { entries } = await call('getTaskTimeline', { task_id: id });
    if (get().selectedId === id) set({ timeline: entries });
  },
}));
