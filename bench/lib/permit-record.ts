/**
 * The task and the invocation a permit benchmark creates (bench:tasks' permit job, bench:sqlite-permits): a
 * write of the bench shop's operation (task-bound, or without a task for bench:pg-permits' untasked
 * calls), not yet dispatched, as the Hub would create it.
 */
import { randomUUID } from 'node:crypto';
import { newId } from '../../src-hub/ids.js';
import type {
  HubStore,
  InvocationChange,
  InvocationRecord,
  OperationRecord,
  RunRecord,
} from '../../src-hub/store/types.js';

export interface PermitRecordInput {
  invocation_id: string;
  client_id: string;
  task_id: string | null;
  run: Pick<RunRecord, 'run_id' | 'agent_session_id' | 'turn_id' | 'authorization_ref'>;
  operation: OperationRecord;
  at: Date;
}

export function permitInvocationRecord(i: PermitRecordInput): InvocationRecord {
  const at = i.at.toISOString();
  return {
    invocation_id: i.invocation_id,
    client_id: i.client_id,
    run_id: i.run.run_id,
    agent_session_id: i.run.agent_session_id,
    turn_id: i.run.turn_id,
    authorization_ref: i.run.authorization_ref,
    authorization_revision: 1,
    system_id: i.operation.system_id,
    tool: i.operation.tool,
    declaration_revision: i.operation.declaration_revision,
    operation: i.operation.operation,
    arguments: { product_id: 42 },
    parameter_digest: i.invocation_id,
    host_call_id: 'bench',
    task_id: i.task_id,
    effect: 'write',
    state: 'not_dispatched',
    dispatch: 'none',
    reason_code: null,
    reason_message: null,
    retry_after_ms: null,
    result: null,
    result_truncated: false,
    business_status: null,
    approval_id: null,
    reconciliation: [],
    permit_id: null,
    owner_instance: null,
    owner_incarnation: null,
    created_at: at,
    updated_at: at,
  };
}

/** A write permit of the task, asked for at `at` with a fresh permit id; refused calls end not_dispatched. */
export function writePermit(taskId: string, at: Date): NonNullable<InvocationChange['permit']> {
  return {
    task_id: taskId,
    effect: 'write',
    now_ms: at.getTime(),
    window_ms: null,
    permit_id: newId('prm'),
    refused_to: 'not_dispatched',
  };
}

/**
 * Creates the task a permit benchmark spends: the bench shop's write, `budget` writes, no other
 * limit unless `inFlightLimit` is given.
 */
export async function createBenchTask(
  store: HubStore,
  budget: number,
  inFlightLimit = 100_000,
): Promise<string> {
  const taskId = `task_${randomUUID()}`;
  const at = new Date().toISOString();
  await store.createTask(
    {
      task_id: taskId,
      client_id: 'bench',
      title: 'bench',
      state: 'active',
      boundary: {
        authorizations: [{ authorization_ref: 'auth-bench-shop', tools: ['update_product_content'] }],
        write_budget: budget,
        in_flight_limit: inFlightLimit,
        rate_limit: null,
        constraints: [],
        expires_at: null,
      },
      writes_used: 0,
      permits_granted: 0,
      created_at: at,
      updated_at: at,
      paused_at: null,
      cancelled_at: null,
    },
    { actor: 'bench', kind: 'task.created', detail: {} },
  );
  return taskId;
}
