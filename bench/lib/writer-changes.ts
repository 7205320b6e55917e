/**
 * A governed write's two changes as the Hub hands them to the store's writer (invoke.ts, send.ts):
 * the permit (new → dispatching, permit taken, its system checked in service) and the outcome (dispatching → succeeded, the
 * business response, the permit freed). bench:sqlite-permits and bench:writer-latency send them.
 * A change without a task (`taskId` null) is the Hub's governed write outside a task (bench:hub's
 * write): no permit is taken, the session's enrollment and the operation's rate are still checked.
 */
import type { InvocationChange, OperationRecord } from '../../src-hub/store/types.js';
import { benchInvocationId } from './invocation-ids.js';
import { permitInvocationRecord, writePermit } from './permit-record.js';

export function permitChange(
  taskId: string | null,
  session: string,
  operation: OperationRecord,
): InvocationChange {
  const at = new Date();
  const id = benchInvocationId();
  const rec = permitInvocationRecord({
    invocation_id: id,
    client_id: 'bench',
    task_id: taskId,
    run: {
      run_id: 'run-bench',
      agent_session_id: session,
      turn_id: 'bench',
      authorization_ref: 'auth-bench-shop',
    },
    operation,
    at,
  });
  return {
    invocation_id: id,
    from: 'new',
    to: 'dispatching',
    at: at.toISOString(),
    create: rec,
    live_system: operation.system_id,
    patch: { dispatch: 'attempted', owner_instance: 'bench', owner_incarnation: 1 },
    ...(taskId === null ? {} : { permit: writePermit(taskId, at) }),
    enrollment: { refused_to: 'not_dispatched' },
    operation_rate: { now_ms: at.getTime(), refused_to: 'not_dispatched' },
    audit: { actor: 'bench', kind: 'invocation.created', detail: {} },
  };
}

export function outcomeChange(invocationId: string): InvocationChange {
  const at = new Date();
  return {
    invocation_id: invocationId,
    from: 'dispatching',
    to: 'succeeded',
    at: at.toISOString(),
    patch: {
      dispatch: 'confirmed',
      result: { product_id: 42, description: 'updated', updated_at: at.toISOString() },
      business_status: 200,
    },
    release_permit: { now_ms: at.getTime(), refund: false },
    audit: {
      actor: 'bench',
      kind: 'invocation.dispatched',
      detail: { outcome: 'http_response', business_status: 200, request_sent: true },
    },
  };
}
