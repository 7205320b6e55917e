/**
 * Approval decisions. A decision moves the invocation awaiting_approval -> approved | denied and
 * never executes anything: an approved call runs only on an explicit resume. Idempotent: the same
 * decision again returns the same approval; a different decision on a decided approval is 409
 * `decision_conflict`.
 */
import type { Approval } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { conflict, HubError, notFound } from '../errors.js';
import { transitionInvocation } from '../invocations/transition.js';
import type { ApprovalRecord } from '../store/types.js';
import { approvalView } from './view.js';

export interface DecisionInput {
  decision_id: string;
  decision: 'approve' | 'deny';
  note?: string;
}

async function alreadyDecided(ctx: HubContext, a: ApprovalRecord, input: DecisionInput): Promise<Approval> {
  const wanted = input.decision === 'approve' ? 'approved' : 'denied';
  if (a.state === wanted) return approvalView(ctx.store, a);
  throw conflict('decision_conflict', `approval ${a.approval_id} is already ${a.state}`);
}

export async function decideApproval(
  ctx: HubContext,
  approvalId: string,
  input: DecisionInput,
  actor: string,
): Promise<Approval> {
  const a = await ctx.store.getApproval(approvalId);
  if (!a) throw notFound('approval_not_found', `no approval ${approvalId}`);
  if (a.state !== 'pending') return alreadyDecided(ctx, a, input);
  const to = input.decision === 'approve' ? 'approved' : 'denied';
  const res = await transitionInvocation(ctx, {
    invocation_id: a.invocation_id,
    from: 'awaiting_approval',
    to,
    decide_approval: {
      approval_id: a.approval_id,
      decision_id: input.decision_id,
      state: to,
      decided_by: actor,
      note: input.note ?? null,
    },
    audit: {
      actor,
      kind: 'approval.decided',
      detail: { approval_id: a.approval_id, decision_id: input.decision_id, decision: input.decision },
    },
  });
  const after = await ctx.store.getApproval(approvalId);
  if (!after) throw new HubError(500, 'internal_error', 'approval vanished');
  if (res.kind === 'stale') return alreadyDecided(ctx, after, input);
  return approvalView(ctx.store, after);
}
