/**
 * Task enrollment of an agent session (docs/architecture.md#permits-and-tasks): enrolling a session
 * in task control is a persistent requirement that also affects its other conversations, and
 * cancelling the task does not remove it. The first invocation of a session that carries a task_id enrolls the
 * session in that task, durably; from then on every call of that session must carry exactly that
 * task_id, or it is refused `task_required` and spends nothing. A pure function of what the
 * dispatch transaction reads (store/sql/ops/invocation-change.ts), like the permit policy.
 */
import type { TaskRefusalCode } from '../../src-shared/states.js';
import type { EnrollmentEvaluator } from '../store/types.js';

export const evaluateEnrollment: EnrollmentEvaluator = (enrolledTaskId, call) => {
  if (enrolledTaskId === null || enrolledTaskId === call.task_id) return { ok: true };
  const carried = call.task_id === null ? 'carries no task_id' : `carries task_id ${call.task_id}`;
  return {
    ok: false,
    code: 'task_required' satisfies TaskRefusalCode,
    message: `agent session ${call.agent_session_id} is enrolled in task ${enrolledTaskId}; this call ${carried}, so it was not dispatched (every call of an enrolled session must carry task_id ${enrolledTaskId})`,
    retry_after_ms: null,
  };
};
