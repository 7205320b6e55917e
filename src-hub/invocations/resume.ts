/**
 * POST /agent/v1/invocations/{id}/resume (empty body). Never creates an invocation.
 *   approved            -> revalidate authorization, take the task permit, send once with the
 *                          original arguments (a concurrent second resume finds `dispatching`)
 *   unknown/unverified  -> reconcile from business evidence (never re-send)
 *   anything else       -> the current receipt, action `unchanged`
 */
import type { ResumeResponse } from '../../src-shared/hub-api.js';
import { isReconcilable } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { InvocationRecord } from '../store/types.js';
import { WINDOW_MS } from '../tasks/policy.js';
import { reconcile } from './reconcile.js';
import { toReceipt } from './receipt.js';
import { sendAndRecord } from './send.js';
import { transitionInvocation } from './transition.js';

export async function loadOwnInvocation(
  ctx: HubContext,
  clientId: string,
  id: string,
): Promise<InvocationRecord> {
  const rec = await ctx.store.getInvocation(id);
  if (!rec || rec.client_id !== clientId)
    throw notFound('invocation_not_found', `no invocation ${id} for this client`);
  return rec;
}

async function respond(
  ctx: HubContext,
  action: ResumeResponse['action'],
  rec: InvocationRecord,
): Promise<ResumeResponse> {
  const approval = rec.approval_id ? await ctx.store.getApproval(rec.approval_id) : null;
  return { action, receipt: toReceipt(rec, approval) };
}

export async function resume(ctx: HubContext, clientId: string, id: string): Promise<ResumeResponse> {
  const rec = await loadOwnInvocation(ctx, clientId, id);
  ctx.metrics.count(clientId, 'resumes');
  const actor = `client:${clientId}`;
  if (isReconcilable(rec.state)) {
    return respond(ctx, 'reconciled', await reconcile(ctx, rec, actor));
  }
  if (rec.state !== 'approved') return respond(ctx, 'unchanged', rec);

  const refuse = async (code: string, message: string) => {
    const res = await transitionInvocation(ctx, {
      invocation_id: rec.invocation_id,
      from: 'approved',
      to: 'approved',
      patch: { reason_code: code, reason_message: message, retry_after_ms: null },
      audit: { actor, kind: 'invocation.resume_refused', detail: { code } },
    });
    return respond(
      ctx,
      res.kind === 'stale' ? 'unchanged' : 'refused',
      res.kind === 'stale' ? (res.current ?? rec) : res.record,
    );
  };

  const approval = rec.approval_id ? await ctx.store.getApproval(rec.approval_id) : null;
  if (!approval || approval.state !== 'approved' || approval.parameter_digest !== rec.parameter_digest) {
    return refuse('approval_mismatch', 'the approval does not cover these exact arguments');
  }
  const auth = await ctx.store.getAuthorization(rec.authorization_ref);
  if (!auth || auth.state === 'revoked')
    return refuse('authorization_revoked', `authorization ${rec.authorization_ref} is revoked`);
  if (auth.revision !== rec.authorization_revision) {
    return refuse(
      'authorization_rebound',
      `authorization ${rec.authorization_ref} changed since the call was approved`,
    );
  }
  const task = rec.task_id ? await ctx.store.getTask(rec.task_id) : null;
  const now = ctx.now();
  const res = await transitionInvocation(ctx, {
    invocation_id: rec.invocation_id,
    from: 'approved',
    to: 'dispatching',
    at: now.toISOString(),
    patch: { dispatch: 'attempted', reason_code: null, reason_message: null, retry_after_ms: null },
    permit: task
      ? {
          task_id: task.task_id,
          effect: rec.effect,
          now_ms: now.getTime(),
          window_ms: task.boundary.rate_limit ? WINDOW_MS[task.boundary.rate_limit.window] : null,
          permit_id: newId('prm'),
          refused_to: null,
        }
      : undefined,
    audit: { actor, kind: 'invocation.resumed', detail: {} },
  });
  if (res.kind === 'stale') return respond(ctx, 'unchanged', res.current ?? rec);
  if (res.kind === 'refused') return respond(ctx, 'refused', res.record);
  const done = await sendAndRecord(ctx, res.record, actor);
  // Back to `approved`: the request never left (not_sent_*), nothing is spent, a later resume may send it.
  return respond(ctx, done.state === 'approved' ? 'refused' : 'dispatched', done);
}
