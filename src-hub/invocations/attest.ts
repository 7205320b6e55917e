/**
 * POST /agent/v1/invocations/{id}/attest: an operator records what they checked in the business
 * system for a call whose result is not known (`unknown` or `unverified`) — "it happened" or "it
 * did not happen", with a note. The Hub keeps it as evidence of kind `operator_attested`, settles
 * the call (`succeeded` / `failed`) through the one invocation transition, and sends nothing.
 *
 * - The attestation is the evidence's detail and the call's reason (`reason_code:
 *   operator_attested`), so a receipt, the audit and the task's accounting all say a person
 *   settled it, not the business system.
 * - Identity: the audit entry's actor is the client (`client:<id>`), its detail names the person the
 *   call's authorization acts for (`attested_by`, the authorization's on-behalf-of subject), the
 *   outcome, the note and the time.
 * - Spent stays spent: the task's write budget and permits are not given back on a person's word.
 * - Anything but `unknown` / `unverified` is refused (409 `invocation_not_attestable`); the same
 *   attestation again (same outcome and note, the call settled by it) answers `unchanged`.
 */
import { sha256Hex } from '../../src-shared/digest.js';
import type { AttestRequest, AttestResponse, ReconciliationEvidence } from '../../src-shared/hub-api.js';
import { isAttestable, OPERATOR_ATTESTED } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import { conflict } from '../errors.js';
import type { InvocationRecord } from '../store/types.js';
import { toReceipt } from './receipt.js';
import { loadOwnInvocation } from './resume.js';
import { transitionInvocation } from './transition.js';

/** The same attestation was recorded before: the call is settled by it with this outcome and note. */
function settledBy(rec: InvocationRecord, req: AttestRequest): boolean {
  const last = rec.reconciliation.at(-1);
  return (
    rec.state === req.outcome &&
    rec.reason_code === OPERATOR_ATTESTED &&
    last?.source === OPERATOR_ATTESTED &&
    last.detail === req.note
  );
}

async function respond(
  ctx: HubContext,
  action: AttestResponse['action'],
  rec: InvocationRecord,
): Promise<AttestResponse> {
  const approval = rec.approval_id ? await ctx.store.getApproval(rec.approval_id) : null;
  return { action, receipt: toReceipt(rec, approval) };
}

const refuse = (rec: InvocationRecord) =>
  conflict(
    'invocation_not_attestable',
    `invocation ${rec.invocation_id} is ${rec.state}: only a call whose result is not known (unknown, unverified) can be settled by an operator's attestation`,
  );

export async function attest(
  ctx: HubContext,
  clientId: string,
  id: string,
  req: AttestRequest,
): Promise<AttestResponse> {
  const rec = await loadOwnInvocation(ctx, clientId, id);
  if (settledBy(rec, req)) return respond(ctx, 'unchanged', rec);
  if (!isAttestable(rec.state)) throw refuse(rec);
  const auth = await ctx.store.getAuthorization(rec.authorization_ref);
  const attestedBy = auth?.on_behalf_of ?? null;
  const at = ctx.now().toISOString();
  const evidence: ReconciliationEvidence = {
    checked_at: at,
    source: OPERATOR_ATTESTED,
    outcome: req.outcome,
    http_status: null,
    evidence_digest: sha256Hex(`${req.outcome}\n${req.note}`),
    detail: req.note,
  };
  const res = await transitionInvocation(ctx, {
    invocation_id: rec.invocation_id,
    from: rec.state,
    to: req.outcome,
    at,
    audit: {
      actor: `client:${clientId}`,
      kind: 'invocation.attested',
      detail: {
        outcome: req.outcome,
        note: req.note,
        attested_by: attestedBy,
        attested_at: at,
        previous_state: rec.state,
      },
    },
    patch: {
      reason_code: OPERATOR_ATTESTED,
      reason_message:
        req.outcome === 'succeeded'
          ? `an operator checked the business system and attests it happened: ${req.note}`
          : `an operator checked the business system and attests it did not happen: ${req.note}`,
      retry_after_ms: null,
      add_evidence: evidence,
    },
  });
  if (res.kind !== 'stale') return respond(ctx, 'attested', res.record);
  // Someone else moved the call meanwhile (a look-up, another attestation): say what it is now.
  const now = res.current ?? rec;
  if (settledBy(now, req)) return respond(ctx, 'unchanged', now);
  throw refuse(now);
}
