/**
 * The static part of a task boundary, checked when a call is made (before approval or permit):
 * the task is usable at all, the authorization and tool belong to it, and the arguments satisfy
 * every matching constraint schema. Spends nothing.
 */
import type { TaskRefusalCode } from '../../src-shared/states.js';
import type { TaskRecord } from '../store/types.js';
import type { SchemaValidator } from '../validation/ajv.js';
import { isExpired } from './policy.js';

export interface BoundaryRefusal {
  code: TaskRefusalCode;
  message: string;
}

export function constraintKey(taskId: string, index: number): string {
  return `task:${taskId}:constraint:${index}`;
}

export function checkBoundary(
  task: TaskRecord,
  call: { authorization_ref: string; tool: string; arguments: Record<string, unknown> },
  schemas: SchemaValidator,
  nowMs: number,
): BoundaryRefusal | null {
  const b = task.boundary;
  if (task.state === 'cancelled') return { code: 'task_cancelled', message: 'the task is cancelled' };
  if (isExpired(b.expires_at, nowMs))
    return { code: 'task_expired', message: `the task expired at ${b.expires_at}` };
  const member = b.authorizations.find((a) => a.authorization_ref === call.authorization_ref);
  if (!member) {
    return {
      code: 'authorization_not_in_task',
      message: `authorization ${call.authorization_ref} is not part of this task`,
    };
  }
  if (!member.tools.includes(call.tool)) {
    return {
      code: 'tool_not_in_task',
      message: `tool ${call.tool} is not allowed for ${call.authorization_ref} in this task`,
    };
  }
  for (const [i, c] of b.constraints.entries()) {
    if (c.tool !== call.tool) continue;
    if (c.authorization_ref !== null && c.authorization_ref !== call.authorization_ref) continue;
    const r = schemas.validate(constraintKey(task.task_id, i), c.schema, call.arguments);
    if (!r.ok) {
      const why = c.description ? `${c.description}: ` : '';
      return { code: 'constraint_violation', message: `${why}${r.message}` };
    }
  }
  return null;
}
