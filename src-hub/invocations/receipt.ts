/** Renders the wire receipt (hub-api ReceiptSchema) from a stored invocation and its approval. */
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { Receipt } from '../../src-shared/hub-api.js';
import type { ApprovalRecord, InvocationRecord } from '../store/types.js';

type ReceiptFacts = Pick<
  InvocationRecord,
  'state' | 'dispatch' | 'result' | 'business_status' | 'reason_code' | 'reconciliation'
>;

/**
 * The digests of facts without a result, a business status or evidence, by their state, dispatch
 * and reason: a handful of texts (every permit's `dispatching` receipt is one), each digested once
 * instead of once per change. Cleared when full.
 */
const PLAIN_DIGESTS = new Map<string, string>();
const MAX_PLAIN_DIGESTS = 256;

/** sha256 over the canonical JSON of the facts a receipt asserts. */
export function receiptDigest(r: ReceiptFacts): string {
  const plain =
    (r.result ?? null) === null &&
    r.business_status === null &&
    (r.reason_code === null || typeof r.reason_code === 'string') &&
    Array.isArray(r.reconciliation) &&
    r.reconciliation.length === 0 &&
    typeof r.state === 'string' &&
    typeof r.dispatch === 'string';
  if (!plain) return digestOf(r);
  const key = JSON.stringify([r.state, r.dispatch, r.reason_code]);
  let digest = PLAIN_DIGESTS.get(key);
  if (digest === undefined) {
    digest = digestOf(r);
    if (PLAIN_DIGESTS.size >= MAX_PLAIN_DIGESTS) PLAIN_DIGESTS.clear();
    PLAIN_DIGESTS.set(key, digest);
  }
  return digest;
}

function digestOf(r: ReceiptFacts): string {
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
