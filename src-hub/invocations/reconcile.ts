/**
 * Reconciles an `unknown` or `unverified` invocation from business evidence: asks the system's
 * operations look-up for the original idempotency key. Never re-sends the call.
 *   succeeded / failed       -> that state, with the evidence
 *   not_found / unavailable  -> `unverified` (or stays `unverified`), with the evidence
 */
import type { ReconciliationEvidence } from '../../src-shared/hub-api.js';
import type { HubContext, LookupResult } from '../context.js';
import type { InvocationRecord } from '../store/types.js';
import { transitionInvocation } from './transition.js';

export async function reconcile(
  ctx: HubContext,
  rec: InvocationRecord,
  actor: string,
): Promise<InvocationRecord> {
  if (rec.state !== 'unknown' && rec.state !== 'unverified') return rec;
  const system = await ctx.store.getSystem(rec.system_id);
  const auth = await ctx.store.getAuthorization(rec.authorization_ref);
  let result: LookupResult;
  if (!system || !auth) {
    result = { outcome: 'unavailable', detail: 'the system or authorization is no longer registered' };
  } else {
    try {
      result = await ctx.edge.lookup({
        baseUrl: system.base_url,
        secret: system.signing_secret,
        signedPath: system.signed_path,
        idempotencyKey: rec.invocation_id,
        onBehalfOf: auth.on_behalf_of,
        jobId: rec.run_id,
        timeoutMs: ctx.settings.lookupTimeoutMs,
        signal: ctx.shutdown,
      });
    } catch (err) {
      result = { outcome: 'unavailable', detail: `look-up failed: ${String(err)}` };
    }
  }
  const at = ctx.now().toISOString();
  const evidence: ReconciliationEvidence = {
    checked_at: at,
    source: 'operations_lookup',
    outcome: result.outcome,
    http_status: 'http_status' in result ? result.http_status : null,
    evidence_digest: 'evidence_digest' in result ? result.evidence_digest : null,
    detail:
      result.outcome === 'succeeded'
        ? 'the business system reports the operation committed'
        : result.outcome === 'failed'
          ? 'the business system reports the operation failed'
          : result.outcome === 'not_found'
            ? 'the business system has no record of this idempotency key; that alone does not prove it never ran'
            : `the operations look-up is unavailable: ${'detail' in result ? result.detail : ''}`,
  };
  const audit = { actor, kind: 'invocation.reconciled', detail: { outcome: result.outcome } };
  const res =
    result.outcome === 'succeeded' || result.outcome === 'failed'
      ? await transitionInvocation(ctx, {
          invocation_id: rec.invocation_id,
          from: rec.state,
          to: result.outcome,
          at,
          audit,
          patch: {
            dispatch: 'confirmed',
            result: result.result ?? null,
            result_truncated: false,
            business_status: result.http_status,
            reason_code: result.outcome === 'failed' ? 'business_rejected' : null,
            reason_message:
              result.outcome === 'failed' ? 'the business system reports the operation failed' : null,
            add_evidence: evidence,
          },
        })
      : await transitionInvocation(ctx, {
          invocation_id: rec.invocation_id,
          from: rec.state,
          to: 'unverified',
          at,
          audit,
          patch: {
            reason_code: result.outcome === 'not_found' ? 'lookup_not_found' : 'lookup_unavailable',
            reason_message: evidence.detail,
            add_evidence: evidence,
          },
        });
  if (res.kind === 'stale') return res.current ?? rec;
  return res.record;
}
