/**
 * attestSessionInvocation: the operator records what they checked in the business system for an
 * original call whose result is not known (docs/hub-api.md, attest). It acts on the original call
 * as the journal records it (never on a binding from conversation text), sends nothing to any
 * business system, and records the settled receipt in the journal like any receipt.
 *
 * A storage failure comes first (restore local persistence before anything changes at the Hub).
 * When the Hub refuses (e.g. `invocation_not_attestable`: the call was settled meanwhile), the
 * current receipt is read and recorded, so the card and Needs attention show what it is now.
 */
import type { AttestRequest, Receipt } from '../../../src-shared/hub-api.js';
import { HubClientError } from '../../hub-client/index.js';
import type { InvocationActionEnvelope, SessionHandle } from '../invocation-ports.js';
import type { RuntimeContext } from '../invocations/context.js';
import { receiptMatchesEntry } from '../invocations/entries.js';
import { bindingFeedback, readFailedFeedback, storageFeedback } from './feedback.js';
import { envelope, prepare, record } from './remote.js';

export async function attestInvocation(
  ctx: RuntimeContext,
  session: SessionHandle,
  invocationId: string,
  attestation: AttestRequest,
  opts: { signal?: AbortSignal } = {},
): Promise<InvocationActionEnvelope> {
  const prepared = await prepare(ctx, session, invocationId, 'attest');
  if (!('entry' in prepared)) return prepared;
  const { journal, entry } = prepared;
  if (journal.hasStore && (journal.loadError || journal.unsaved.size > 0)) {
    return envelope('attest', invocationId, journal, 'storage_error', {
      feedback: storageFeedback(
        journal.lastError ?? journal.loadError ?? 'invocation_store_unavailable',
        invocationId,
      ),
    });
  }

  let receipt: Receipt;
  try {
    receipt = (await ctx.hub.attestInvocation(invocationId, attestation, { signal: opts.signal })).receipt;
  } catch (err) {
    const feedback = readFailedFeedback(err, invocationId);
    // A coded refusal: the call is something else now; show what it is (read-only).
    if (err instanceof HubClientError && err.kind === 'http' && err.code) {
      try {
        const current = await ctx.hub.getInvocation(invocationId, { signal: opts.signal });
        if (receiptMatchesEntry(current, entry)) {
          const saved = await record(ctx, journal, entry, current);
          return envelope('attest', invocationId, journal, 'ready', {
            receipt: current,
            feedback: saved.feedback ?? feedback,
          });
        }
      } catch {
        // the refusal stands on its own
      }
    }
    return envelope('attest', invocationId, journal, 'ready', { feedback });
  }
  if (!receiptMatchesEntry(receipt, entry)) {
    return envelope('attest', invocationId, journal, 'blocked', {
      receipt,
      feedback: bindingFeedback('invocation_binding_conflict', invocationId),
    });
  }
  const saved = await record(ctx, journal, entry, receipt);
  return envelope('attest', invocationId, journal, 'ready', { receipt, feedback: saved.feedback });
}
