/**
 * inspectSessionInvocation / resumeSessionInvocation: the two remote recovery actions. They need
 * the real, reopened session and act only on the original call as recorded in the journal (never
 * on a binding guessed from conversation text or model input).
 *
 * - inspect: GET the original receipt. No run, no resume. The journal is updated with the new
 *   last state only when it changed.
 * - resume: verify every original scope member, inspect, then POST resume with the original id and
 *   an empty body, at most once per call, only for a state the Hub can continue (approved) or
 *   reconcile (unknown, unverified). `resume_dispatched` is true once resume was handed to the client.
 * - the authoritative 404 (`invocation_not_found`): stop; feedback says the outcome is unverified;
 *   journal, scope and run are kept untouched (no revision bump), nothing is retried or rediscovered.
 */
import type { Receipt } from '../../../src-shared/hub-api.js';
import { isAuthoritativeNotFound } from '../../hub-client/index.js';
import type { JournalEntry } from '../../journal/index.js';
import type {
  Feedback,
  InvocationAction,
  InvocationActionEnvelope,
  SessionHandle,
} from '../invocation-ports.js';
import { isResumable, type JournalState } from '../../../src-shared/states.js';
import type { RuntimeContext } from '../invocations/context.js';
import { bindingMatchesScope, outcomeKey, receiptMatchesEntry, withReceipt } from '../invocations/entries.js';
import type { SessionJournal } from '../invocations/session-journal.js';
import {
  bindingFeedback,
  notFoundFeedback,
  offlineFeedback,
  outcomeUnknownFeedback,
  readFailedFeedback,
  scopeBlockedFeedback,
  storageFeedback,
  unsupportedFeedback,
} from './feedback.js';

export interface Prepared {
  journal: SessionJournal;
  entry: JournalEntry;
}

export function journalState(journal: SessionJournal, fallback: JournalState): JournalState {
  if (journal.hasStore && (journal.loadError || journal.unsaved.size > 0)) return 'storage_error';
  return fallback;
}

export function envelope(
  action: InvocationAction,
  invocationId: string,
  journal: SessionJournal,
  state: JournalState,
  fields: { receipt?: Receipt | null; feedback?: Feedback | null; resumeDispatched?: boolean },
): InvocationActionEnvelope {
  return {
    schema: 'bailing.agent-session-invocation-action.v1',
    state: journalState(journal, state),
    action,
    invocation_id: invocationId,
    resume_dispatched: fields.resumeDispatched ?? false,
    receipt: fields.receipt ?? null,
    feedback: fields.feedback ?? null,
    unsavedRecords: journal.unsavedRecords(),
  };
}

export async function prepare(
  ctx: RuntimeContext,
  session: SessionHandle,
  invocationId: string,
  action: InvocationAction,
): Promise<Prepared | InvocationActionEnvelope> {
  const journal = ctx.journal(session.sessionId);
  const fail = (state: JournalState, feedback: Feedback) =>
    envelope(action, invocationId, journal, state, { feedback });
  if (session.scope.sessionId !== session.sessionId)
    return fail('blocked', bindingFeedback('invocation_binding_conflict', invocationId));

  await journal.ensureLoaded();
  const entry = journal.local.get(invocationId);
  if (!ctx.store && !entry) return fail('unsupported', unsupportedFeedback(invocationId));
  if (journal.loadError && !entry)
    return fail('storage_error', storageFeedback(journal.loadError, invocationId));

  // The session's original scope, as persisted: the handle must be that scope.
  let stored;
  try {
    stored = await ctx.scopeStore.load(session.sessionId);
  } catch {
    return fail('blocked', bindingFeedback('invocation_binding_unavailable', invocationId));
  }
  if (!stored) return fail('blocked', bindingFeedback('invocation_binding_unavailable', invocationId));
  if (
    stored.fingerprint !== session.scope.fingerprint ||
    stored.revision !== session.scope.revision ||
    stored.connectionKey !== session.scope.connectionKey
  ) {
    return fail('blocked', bindingFeedback('invocation_binding_conflict', invocationId));
  }
  if (!entry) return fail('blocked', bindingFeedback('invocation_binding_unavailable', invocationId));
  if (
    !bindingMatchesScope(entry, stored) ||
    journal.conflicts.get(invocationId)?.reason === 'invocation_binding_conflict'
  ) {
    return fail('blocked', bindingFeedback('invocation_binding_conflict', invocationId));
  }
  return { journal, entry };
}

/** Record a receipt read from the Hub, only when it changes the entry's last state/digest/deadline. */
export async function record(
  ctx: RuntimeContext,
  journal: SessionJournal,
  entry: JournalEntry,
  receipt: Receipt,
): Promise<{ ok: boolean; feedback: Feedback | null; entry: JournalEntry }> {
  const next = withReceipt(entry, receipt, ctx.now());
  if (outcomeKey(next) === outcomeKey(entry) && !journal.dirty.has(entry.invocation_id))
    return { ok: true, feedback: null, entry };
  const mode = journal.conflicts.has(entry.invocation_id) ? 'authoritative' : 'direct';
  const r = await journal.serialize(() => journal.commit([next], mode));
  return { ok: r.ok, feedback: r.ok ? null : storageFeedback(r.error, entry.invocation_id), entry: next };
}

export async function inspectInvocation(
  ctx: RuntimeContext,
  session: SessionHandle,
  invocationId: string,
  opts: { signal?: AbortSignal } = {},
): Promise<InvocationActionEnvelope> {
  const prepared = await prepare(ctx, session, invocationId, 'inspect');
  if (!('entry' in prepared)) return prepared;
  const { journal, entry } = prepared;
  let receipt: Receipt;
  try {
    receipt = await ctx.hub.getInvocation(invocationId, { signal: opts.signal });
  } catch (err) {
    // 404 invocation_not_found: journal untouched, outcome unverified. Anything else concludes nothing.
    return envelope('inspect', invocationId, journal, 'ready', {
      feedback: readFailedFeedback(err, invocationId),
    });
  }
  if (!receiptMatchesEntry(receipt, entry)) {
    return envelope('inspect', invocationId, journal, 'blocked', {
      receipt,
      feedback: bindingFeedback('invocation_binding_conflict', invocationId),
    });
  }
  const saved = await record(ctx, journal, entry, receipt);
  return envelope('inspect', invocationId, journal, 'ready', { receipt, feedback: saved.feedback });
}

export async function resumeInvocation(
  ctx: RuntimeContext,
  session: SessionHandle,
  invocationId: string,
  opts: { signal?: AbortSignal } = {},
): Promise<InvocationActionEnvelope> {
  const prepared = await prepare(ctx, session, invocationId, 'resume');
  if (!('entry' in prepared)) return prepared;
  const { journal } = prepared;
  let entry = prepared.entry;
  if (journal.hasStore && (journal.loadError || journal.unsaved.size > 0)) {
    // Restore local persistence first: nothing that could act on the business leaves meanwhile.
    return envelope('resume', invocationId, journal, 'storage_error', {
      feedback: storageFeedback(
        journal.lastError ?? journal.loadError ?? 'invocation_store_unavailable',
        invocationId,
      ),
    });
  }

  // Every original member, not a surviving subset.
  const check = await ctx.revalidate(session.scope, opts.signal);
  if (check.state === 'blocked')
    return envelope('resume', invocationId, journal, 'blocked', {
      feedback: scopeBlockedFeedback(check, invocationId),
    });
  if (check.state === 'offline')
    return envelope('resume', invocationId, journal, 'ready', {
      feedback: offlineFeedback(check.reason, invocationId),
    });

  // Inspect first.
  let inspected: Receipt;
  try {
    inspected = await ctx.hub.getInvocation(invocationId, { signal: opts.signal });
  } catch (err) {
    return envelope('resume', invocationId, journal, 'ready', {
      feedback: readFailedFeedback(err, invocationId),
    });
  }
  if (!receiptMatchesEntry(inspected, entry)) {
    return envelope('resume', invocationId, journal, 'blocked', {
      receipt: inspected,
      feedback: bindingFeedback('invocation_binding_conflict', invocationId),
    });
  }
  const first = await record(ctx, journal, entry, inspected);
  entry = first.entry;
  if (!first.ok)
    return envelope('resume', invocationId, journal, 'storage_error', {
      receipt: inspected,
      feedback: first.feedback,
    });
  if (!isResumable(inspected.state)) {
    // Nothing to continue (pending approval, denied, done, ...): observation only.
    return envelope('resume', invocationId, journal, 'ready', { receipt: inspected });
  }

  // Continue the original call: its id only, empty body, at most once.
  let resumed: { action: string; receipt: Receipt };
  try {
    resumed = await ctx.hub.resumeInvocation(invocationId, { signal: opts.signal });
  } catch (err) {
    const feedback = isAuthoritativeNotFound(err)
      ? notFoundFeedback(invocationId)
      : outcomeUnknownFeedback(err, invocationId);
    return envelope('resume', invocationId, journal, 'ready', {
      receipt: inspected,
      feedback,
      resumeDispatched: true,
    });
  }
  if (!receiptMatchesEntry(resumed.receipt, entry)) {
    return envelope('resume', invocationId, journal, 'blocked', {
      receipt: resumed.receipt,
      feedback: bindingFeedback('invocation_binding_conflict', invocationId),
      resumeDispatched: true,
    });
  }
  const second = await record(ctx, journal, entry, resumed.receipt);
  let feedback = second.feedback;
  if (!feedback && resumed.action === 'refused') {
    const r = resumed.receipt;
    feedback = {
      category: 'hub_error',
      code: r.reason_code ?? 'resume_refused',
      message:
        r.reason_message ?? 'The Hub refused to continue this call; its receipt shows the current state.',
      ...(r.reason_message ? { detail: r.reason_message } : {}),
      next_action: 'inspect_original',
      retryable: false,
      invocation_id: invocationId,
    };
  }
  return envelope('resume', invocationId, journal, 'ready', {
    receipt: resumed.receipt,
    feedback,
    resumeDispatched: true,
  });
}
