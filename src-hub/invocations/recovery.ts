/**
 * Recovery of orphaned dispatches. A `dispatching` call belongs to the Hub instance that sent it
 * while that instance holds a live lease (store HubStore.listOrphanedDispatching). Once it does not
 * — it stopped, was SIGKILLed, lost its database, or was replaced by a newer incarnation — the
 * request was (or was about to be) on the wire and nobody will record its answer: the call becomes
 * `unknown`, never `succeeded`, is never re-sent, and its in-flight slot is freed (the budget it
 * spent stays spent). Resume later reconciles it from business evidence. The check that the owner
 * is gone is repeated inside the transaction, so a live sibling's call is never touched.
 *   at start:  everything orphaned now (evidence `startup_recovery`);
 *   later:     the recovery sweeper (instances/recovery-sweeper.ts) catches leases that expire
 *              while this instance runs (evidence `lease_recovery`).
 */
import type { HubContext } from '../context.js';
import { transitionInvocation } from './transition.js';

export type RecoveryPhase = 'startup' | 'lease';

const WORDS: Record<
  RecoveryPhase,
  { source: 'startup_recovery' | 'lease_recovery'; reason: string; message: string; detail: string }
> = {
  startup: {
    source: 'startup_recovery',
    reason: 'hub_restarted',
    message: 'the Hub stopped while this call was being dispatched; its outcome needs checking',
    detail: 'found dispatching at Hub start; not re-sent',
  },
  lease: {
    source: 'lease_recovery',
    reason: 'hub_instance_lost',
    message: 'the Hub instance sending this call stopped (its lease expired); its outcome needs checking',
    detail: "found dispatching after its owner's lease expired; not re-sent",
  },
};

export async function recoverOrphaned(ctx: HubContext, phase: RecoveryPhase): Promise<number> {
  const words = WORDS[phase];
  let n = 0;
  for (const rec of await ctx.store.listOrphanedDispatching()) {
    const at = ctx.now();
    const res = await transitionInvocation(ctx, {
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to: 'unknown',
      at: at.toISOString(),
      only_if_orphaned: true,
      release_permit: { now_ms: at.getTime() },
      patch: {
        dispatch: 'attempted',
        reason_code: words.reason,
        reason_message: words.message,
        add_evidence: {
          checked_at: at.toISOString(),
          source: words.source,
          outcome: 'inconclusive',
          http_status: null,
          evidence_digest: null,
          detail: words.detail,
        },
      },
      audit: {
        actor: ctx.instance ? `hub:${ctx.instance.id}` : 'hub',
        kind: 'invocation.recovered',
        detail: { owner_instance: rec.owner_instance, owner_incarnation: rec.owner_incarnation, phase },
      },
    });
    if (res.kind !== 'stale') n += 1;
  }
  return n;
}
