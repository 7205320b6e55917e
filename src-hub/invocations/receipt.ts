/** Renders the wire receipt (hub-api ReceiptSchema) from a stored invocation and its approval. */
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { Receipt } from '../../src-shared/hub-api.js';
import type { ApprovalRecord, InvocationRecord } from '../store/types.js';

/** sha256 over the canonical JSON of the facts a receipt asserts. */
export function receiptDigest(
  r: Pick<
    InvocationRecord,
    'state' | 'dispatch' | 'result' | 'business_status' | 'reason_code' | 'reconciliation'
  >,
): string {
  return sha256Hex(
    canonicalJson({
      state: r.state,
      dispatch: r.dispatch,
      result: r.result ?? null,
      business_status: r.business_status,
      reason_code: r.reason_code,
      reconciliation: r.reconciliation,
    }),
  );
}

export function toReceipt(rec: InvocationRecord, approval: ApprovalRecord | null): Receipt {
  return {
    schema: 'bailing.receipt.v1',
    invocation_id: rec.invocation_id,
    state: rec.state,
    dispatch: rec.dispatch,
    reason_code: rec.reason_code,
    reason_message: rec.reason_message,
    retry_after_ms: rec.retry_after_ms,
    result: rec.result ?? null,
    result_truncated: rec.result_truncated,
    business_status: rec.business_status,
    receipt_digest: receiptDigest(rec),
    run_id: rec.run_id,
    agent_session_id: rec.agent_session_id,
    turn_id: rec.turn_id,
    authorization_ref: rec.authorization_ref,
    authorization_revision: rec.authorization_revision,
    tool: rec.tool,
    declaration_revision: rec.declaration_revision,
    parameter_digest: rec.parameter_digest,
    host_call_id: rec.host_call_id,
    task_id: rec.task_id,
    effect: rec.effect,
    approval: approval
      ? {
          approval_id: approval.approval_id,
          state: approval.state,
          decided_at: approval.decided_at,
          prompt: approval.prompt,
        }
      : null,
    reconciliation: rec.reconciliation,
    created_at: rec.created_at,
    updated_at: rec.updated_at,
  };
}
