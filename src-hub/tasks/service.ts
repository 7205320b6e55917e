/**
 * Tasks: create (boundary validated against the client's authorizations and declared tools, and
 * constraint schemas checked against their budget and compiled, with RE2 for their patterns), read, list, pause / continue / cancel (canTransitionTask).
 */
import {
  CreateTaskRequestSchema,
  type CreateTaskRequest,
  type TaskBoundary,
  type TaskView,
} from '../../src-shared/hub-api.js';
import { CONSTRAINT_SCHEMA_BUDGET, schemaProblem } from '../../src-shared/schema-safety.js';
import { canTransitionTask, type TaskState } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import { badRequest, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { TaskRecord } from '../store/types.js';
import { constraintKey } from './boundary.js';
import { boundarySystemsReader } from './systems.js';
import { taskView } from './view.js';

export async function createTask(
  ctx: HubContext,
  clientId: string,
  req: CreateTaskRequest,
): Promise<TaskView> {
  const boundary: TaskBoundary = {
    authorizations: req.authorizations,
    write_budget: req.write_budget,
    in_flight_limit: req.in_flight_limit,
    rate_limit: req.rate_limit ?? null,
    constraints: req.constraints ?? [],
    expires_at: req.expires_at ?? null,
  };
  const seen = new Set<string>();
  const toolsByRef = new Map<string, string[]>();
  for (const member of boundary.authorizations) {
    if (seen.has(member.authorization_ref))
      throw badRequest(`authorization ${member.authorization_ref} appears twice in the boundary`);
    seen.add(member.authorization_ref);
    const auth = await ctx.store.getAuthorization(member.authorization_ref);
    if (!auth || !(await ctx.store.isGranted(auth.authorization_ref, clientId))) {
      throw badRequest(`authorization ${member.authorization_ref} is not granted to this client`);
    }
    if (auth.state === 'revoked') throw badRequest(`authorization ${member.authorization_ref} is revoked`);
    const sys = await ctx.store.getSystem(auth.system_id);
    if (sys?.retired_at)
      throw conflict(
        'system_retired',
        `authorization ${member.authorization_ref} is of system ${auth.system_id}, which is retired: a task cannot name it (nothing was stored)`,
      );
    const declared = new Set((await ctx.store.currentOperations([auth.system_id])).map((o) => o.tool));
    for (const tool of member.tools) {
      if (!declared.has(tool))
        throw badRequest(`tool ${tool} is not declared for authorization ${member.authorization_ref}`);
    }
    toolsByRef.set(member.authorization_ref, member.tools);
  }
  if (
    boundary.expires_at !== null &&
    !CreateTaskRequestSchema.shape.expires_at.safeParse(boundary.expires_at).success
  ) {
    throw badRequest('expires_at must be an ISO 8601 date-time with an offset that exists on the calendar');
  }
  const taskId = newId('task');
  for (const [i, c] of boundary.constraints.entries()) {
    const tools =
      c.authorization_ref === null
        ? [...toolsByRef.values()].flat()
        : (toolsByRef.get(c.authorization_ref) ?? null);
    if (tools === null)
      throw badRequest(`constraint ${i}: authorization ${c.authorization_ref} is not in the boundary`);
    if (!tools.includes(c.tool)) throw badRequest(`constraint ${i}: tool ${c.tool} is not in the boundary`);
    const problem = schemaProblem(c.schema, CONSTRAINT_SCHEMA_BUDGET);
    if (problem) throw badRequest(`constraint ${i} is refused (${problem.code}): ${problem.message}`);
    try {
      ctx.schemas.compile(constraintKey(taskId, i), c.schema);
    } catch (err) {
      throw badRequest(`constraint ${i} is not a valid JSON Schema: ${(err as Error).message}`);
    }
  }
  const at = ctx.now().toISOString();
  const task: TaskRecord = {
    task_id: taskId,
    client_id: clientId,
    title: req.title,
    state: 'active',
    boundary,
    writes_used: 0,
    permits_granted: 0,
    created_at: at,
    updated_at: at,
    paused_at: null,
    cancelled_at: null,
  };
  await ctx.store.createTask(task, {
    actor: `client:${clientId}`,
    kind: 'task.created',
    detail: { title: task.title, boundary },
  });
  return emit(ctx, task);
}

/** The task's view for the answer; the store published it as `task.changed` with the change itself. */
async function emit(ctx: HubContext, task: TaskRecord): Promise<TaskView> {
  const view = await taskView(ctx, task);
  ctx.bus.notify(task.client_id);
  return view;
}

/** The task, if `clientId` (null = operator) may see it. */
export async function loadTask(
  ctx: HubContext,
  clientId: string | null,
  taskId: string,
): Promise<TaskRecord> {
  const task = await ctx.store.getTask(taskId);
  if (!task || (clientId !== null && task.client_id !== clientId))
    throw notFound('task_not_found', `no task ${taskId}`);
  return task;
}

const ACTION_TARGET = { pause: 'paused', continue: 'active', cancel: 'cancelled' } as const satisfies Record<
  string,
  TaskState
>;
export type TaskAction = keyof typeof ACTION_TARGET;

export async function changeTask(
  ctx: HubContext,
  clientId: string | null,
  taskId: string,
  action: TaskAction,
  actor: string,
): Promise<TaskView> {
  const task = await loadTask(ctx, clientId, taskId);
  const to = ACTION_TARGET[action];
  if (task.state === to) return taskView(ctx, task); // repeating an action is harmless
  if (!canTransitionTask(task.state, to)) {
    throw conflict('task_state_conflict', `a ${task.state} task cannot ${action}`);
  }
  const changed = await ctx.store.changeTaskState({
    task_id: taskId,
    from: task.state,
    to,
    at: ctx.now().toISOString(),
    audit: { actor, kind: `task.${to}`, detail: { action } },
  });
  if (!changed) return changeTask(ctx, clientId, taskId, action, actor);
  return emit(ctx, changed);
}

export async function listTaskViews(ctx: HubContext, clientId: string | null): Promise<TaskView[]> {
  const tasks = await ctx.store.listTasks(clientId ?? undefined);
  const systems = boundarySystemsReader(ctx.store);
  return Promise.all(tasks.map((t) => taskView(ctx, t, systems)));
}
