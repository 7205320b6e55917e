/**
 * Startup recovery: a `dispatching` record found at start belongs to a Hub that stopped while the
 * request was (or was about to be) on the wire. It becomes `unknown`, never `succeeded`, is never
 * re-sent, and its in-flight slot is freed. Resume later reconciles it from business evidence.
 */
import type { HubContext } from '../context.js';
import { transitionInvocation } from './transition.js';

export async function recoverDispatching(ctx: HubContext): Promise<number> {
  let n = 0;
  for (const rec of await ctx.store.listInvocationsInState('dispatching')) {
    const at = ctx.now();
    const res = await transitionInvocation(ctx, {
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to: 'unknown',
      at: at.toISOString(),
      release_permit: { now_ms: at.getTime() },
      patch: {
        dispatch: 'attempted',
        reason_code: 'hub_restarted',
        reason_message: 'the Hub stopped while this call was being dispatched; its outcome needs checking',
        add_evidence: {
          checked_at: at.toISOString(),
          source: 'startup_recovery',
          outcome: 'inconclusive',
          http_status: null,
          evidence_digest: null,
          detail: 'found dispatching at Hub start; not re-sent',
        },
      },
      audit: { actor: 'hub', kind: 'invocation.recovered', detail: {} },
    });
    if (res.kind !== 'stale') n += 1;
  }
  return n;
}
