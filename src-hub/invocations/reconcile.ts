/**
 * Reconciles an `unknown` or `unverified` invocation from business evidence — an HTTP system's
 * operations look-up for the original idempotency key, an MCP server's look-up tool or task
 * (by-kind.ts). Never re-sends the call.
 *   succeeded / failed                    -> that state, with the evidence
 *   not_found / unavailable / unsupported -> `unverified` (or stays `unverified`), with the evidence
 *   pending (an MCP task still running)   -> unchanged, with the evidence
 */
import type { ReconciliationEvidence } from '../../src-shared/hub-api.js';
import type { ReconciliationOutcome } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import type { InvocationRecord } from '../store/types.js';
import { checkByKind, type Check } from './by-kind.js';
import { transitionInvocation } from './transition.js';

const REASONS: Record<Exclude<Check['outcome'], 'succeeded' | 'failed'>, string> = {
  not_found: 'lookup_not_found',
  unavailable: 'lookup_unavailable',
  unsupported: 'lookup_unsupported',
  pending: 'task_working',
};

const EVIDENCE_OUTCOMES = {
  not_found: 'not_found',
  unavailable: 'unavailable',
  unsupported: 'unavailable',
  pending: 'inconclusive',
} as const satisfies Record<Exclude<Check['outcome'], 'succeeded' | 'failed'>, ReconciliationOutcome>;

export async function reconcile(
  ctx: HubContext,
  rec: InvocationRecord,
  actor: string,
): Promise<InvocationRecord> {
  if (rec.state !== 'unknown' && rec.state !== 'unverified') return rec;
  const system = await ctx.store.getSystem(rec.system_id);
  const auth = await ctx.store.getAuthorization(rec.authorization_ref);
  let check: Check;
  if (!system || !auth) {
    check = {
      source: 'none',
      outcome: 'unavailable',
      detail: 'the system or authorization is no longer registered',
    };
  } else {
    try {
      check = await checkByKind(ctx, { system, auth }, rec);
    } catch (err) {
      check = { source: 'none', outcome: 'unavailable', detail: `look-up failed: ${String(err)}` };
    }
  }
  const at = ctx.now().toISOString();
  const evidence: ReconciliationEvidence = {
    checked_at: at,
    source: check.source,
    outcome: 'evidence_digest' in check ? check.outcome : EVIDENCE_OUTCOMES[check.outcome],
    http_status: 'evidence_digest' in check ? check.http_status : null,
    evidence_digest: 'evidence_digest' in check ? check.evidence_digest : null,
    detail: check.detail,
  };
  const audit = { actor, kind: 'invocation.reconciled', detail: { outcome: check.outcome } };
  const res =
    'evidence_digest' in check
      ? await transitionInvocation(ctx, {
          invocation_id: rec.invocation_id,
          from: rec.state,
          to: check.outcome,
          at,
          audit,
          patch: {
            dispatch: 'confirmed',
            result: check.result ?? null,
            result_truncated: false,
            business_status: check.http_status,
            reason_code: check.outcome === 'failed' ? 'business_rejected' : null,
            reason_message:
              check.outcome === 'failed' ? 'the business system reports the operation failed' : null,
            add_evidence: evidence,
          },
        })
      : await transitionInvocation(ctx, {
          invocation_id: rec.invocation_id,
          from: rec.state,
          to: check.outcome === 'pending' ? rec.state : 'unverified',
          at,
          audit,
          patch: {
            reason_code: REASONS[check.outcome],
            reason_message: check.detail,
            add_evidence: evidence,
          },
        });
  if (res.kind === 'stale') return res.current ?? rec;
  return res.record;
}
