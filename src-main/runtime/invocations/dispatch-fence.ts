/**
 * invokeGoverned: the dispatch fence. The call's binding is saved with CAS BEFORE the request
 * leaves; if that save cannot be confirmed, nothing is sent. After the answer only the state and
 * the receipt digest are saved; a failed save keeps the record unsaved (`storage_error`) even
 * when the business answer was a success. A timeout or network failure after sending is
 * `sent_unconfirmed` (outcome unknown), never "not dispatched". The one network failure that is
 * proof of nothing sent — the connection to the Hub could not even be opened (`notSent`) — is
 * `not_dispatched` (hub_unreachable). Never retries.
 */
import { parameterDigest } from '../../../src-shared/digest.js';
import { HUB_ERROR_CODES, type InvokeRequest, type Receipt } from '../../../src-shared/hub-api.js';
import { HubClientError } from '../../hub-client/index.js';
import type { JournalEntry } from '../../journal/index.js';
import type {
  Feedback,
  GovernedCallOptions,
  GovernedCallOutcome,
  GovernedCallRequest,
  SessionHandle,
} from '../invocation-ports.js';
import {
  bindingFeedback,
  notDispatchedFeedback,
  outcomeUnknownFeedback,
  scopeBlockedFeedback,
  storageFeedback,
} from '../recovery/feedback.js';
import type { RuntimeContext } from './context.js';
import { receiptMatchesEntry, withReceipt, withState } from './entries.js';
import type { SessionJournal } from './session-journal.js';

const KNOWN_CODES = new Set<string>(HUB_ERROR_CODES);

/** The Hub refused the request before dispatching it: a well-formed 4xx with a known code. */
function refusedBeforeDispatch(err: unknown): err is HubClientError {
  if (err instanceof HubClientError && err.kind === 'invalid_request') return true; // never sent
  return (
    err instanceof HubClientError &&
    err.kind === 'http' &&
    err.status !== null &&
    err.status >= 400 &&
    err.status < 500 &&
    err.code !== null &&
    KNOWN_CODES.has(err.code)
  );
}

function nextActionFor(code: string): string {
  if (code === 'declaration_changed' || code === 'tool_not_found') return 'search_tools';
  if (code === 'run_ended' || code === 'run_not_found' || code === 'run_mismatch') return 'start_new_turn';
  if (code === 'invalid_request') return 'fix_arguments';
  return 'none';
}

function receiptFeedback(r: Receipt): Feedback | null {
  if (r.state !== 'not_dispatched') return null;
  const code = r.reason_code ?? 'not_dispatched';
  const retryable = code === 'rate_limited' || code === 'in_flight_limit' || code === 'task_paused';
  return notDispatchedFeedback(
    code,
    r.reason_message ?? 'The Hub did not dispatch this call.',
    retryable ? 'wait' : 'none',
    r.invocation_id,
    retryable,
    r.reason_message ?? undefined,
  );
}

export async function invokeGoverned(
  ctx: RuntimeContext,
  session: SessionHandle,
  call: GovernedCallRequest,
  opts: GovernedCallOptions = {},
): Promise<GovernedCallOutcome> {
  const scope = session.scope;
  const d = call.declaration;
  const member = scope.members.find((m) => m.authorization_ref === d.authorization_ref);
  // Targets come from the declaration and the session's fixed scope, never from model text.
  if (
    !member ||
    d.hub_id !== scope.hubId ||
    scope.sessionId !== session.sessionId ||
    d.system_id !== member.system_id ||
    d.account !== member.account
  ) {
    return {
      kind: 'not_sent',
      invocation_id: null,
      feedback: bindingFeedback('invocation_binding_conflict'),
    };
  }
  const check = ctx.lastScopeCheck(session.sessionId, scope.fingerprint);
  if (check?.state === 'blocked')
    return { kind: 'not_sent', invocation_id: null, feedback: scopeBlockedFeedback(check) };

  const journal = ctx.journal(session.sessionId);
  await journal.ensureLoaded();
  if (journal.hasStore && (journal.loadError || journal.unsaved.size > 0)) {
    // Restore local persistence first; a new call must not leave while records are unsaved.
    return {
      kind: 'not_sent',
      invocation_id: null,
      feedback: storageFeedback(journal.loadError ?? journal.lastError ?? 'invocation_store_unavailable'),
    };
  }

  const invocationId = ctx.newId();
  const fence: JournalEntry = {
    invocation_id: invocationId,
    agent_session_id: session.sessionId,
    hub_id: scope.hubId,
    client_id: scope.clientId,
    workspace_id: scope.workspaceId,
    connection_key: scope.connectionKey,
    scope_fingerprint: scope.fingerprint,
    scope_revision: scope.revision,
    authorization_ref: d.authorization_ref,
    run_id: call.runId,
    tool: d.tool,
    declaration_revision: d.declaration_revision,
    host_call_id: call.hostCallId,
    parameter_digest: parameterDigest(call.arguments),
    task_id: scope.taskId,
    last_state: 'pending_dispatch',
    receipt_digest: null,
    retry_at: null,
  };

  const saved = await journal.serialize(() => journal.commit([fence], 'direct'));
  if (!saved.ok) {
    // Not sent. The fence may or may not have reached the store (lost acknowledgement); locally it is known undispatched.
    journal.setLocal(withState(fence, 'not_dispatched'));
    return {
      kind: 'not_sent',
      invocation_id: invocationId,
      feedback: storageFeedback(saved.error, invocationId),
    };
  }
  if (opts.signal?.aborted) {
    return recordNotSent(
      journal,
      fence,
      notDispatchedFeedback(
        'cancelled',
        'The turn was cancelled before the request was sent; nothing was dispatched.',
        'none',
        invocationId,
      ),
    );
  }

  const request: InvokeRequest = {
    invocation_id: invocationId,
    run_id: call.runId,
    authorization_ref: d.authorization_ref,
    authorization_revision: member.authorization_revision,
    tool: d.tool,
    declaration_revision: d.declaration_revision,
    arguments: call.arguments,
    host_call_id: call.hostCallId,
    ...(scope.taskId ? { task_id: scope.taskId } : {}),
  };

  // The caller's signal does not abort a request that has left: the call answers at once
  // (outcome unknown) and the late answer is still recorded.
  try {
    opts.onSent?.(invocationId);
  } catch {
    // a failing hook never stops a call whose fence is saved
  }
  const sending = ctx.hub.invoke(request);
  const settled = sending.then(
    (receipt) => ({ receipt, error: null as unknown }),
    (error: unknown) => ({ receipt: null, error }),
  );
  const cancelled = opts.signal ? abortPromise(opts.signal) : null;
  const first = cancelled ? await Promise.race([settled, cancelled.promise]) : await settled;
  cancelled?.dispose();
  if (first === 'aborted') {
    const post = await journal.serialize(() => journal.commit([withState(fence, 'unknown')], 'direct'));
    // Only after `unknown` is recorded, so the late answer can never be overwritten by it.
    void settled
      .then(async (late) => {
        const r = await finish(ctx, journal, fence, late.receipt, late.error);
        if (late.receipt && r.kind === 'receipt') opts.onLateReceipt?.(late.receipt, r.feedback);
      })
      .catch(() => undefined);
    const feedback = post.ok
      ? {
          ...outcomeUnknownFeedback(null, invocationId),
          code: 'cancelled_after_send',
          message:
            'The turn was cancelled after the request was sent. It may still run; its answer will be recorded. Inspect the original call; do not send it again.',
        }
      : storageFeedback(post.error, invocationId);
    return { kind: 'sent_unconfirmed', invocation_id: invocationId, feedback };
  }
  return finish(ctx, journal, fence, first.receipt, first.error);
}

function abortPromise(signal: AbortSignal): { promise: Promise<'aborted'>; dispose(): void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

/**
 * Records a call that provably did not leave as `not_dispatched`: the outcome carries `feedback`,
 * or the storage error when that save failed (which then stays primary).
 */
async function recordNotSent(
  journal: SessionJournal,
  fence: JournalEntry,
  feedback: Feedback,
): Promise<GovernedCallOutcome> {
  const post = await journal.serialize(() => journal.commit([withState(fence, 'not_dispatched')], 'direct'));
  return {
    kind: 'not_sent',
    invocation_id: fence.invocation_id,
    feedback: post.ok ? feedback : storageFeedback(post.error, fence.invocation_id),
  };
}

/** Records the Hub's answer (or failure) for a sent call and builds the outcome. */
async function finish(
  ctx: RuntimeContext,
  journal: SessionJournal,
  fence: JournalEntry,
  receipt: Receipt | null,
  err: unknown,
): Promise<GovernedCallOutcome> {
  const invocationId = fence.invocation_id;
  if (!receipt) {
    if (refusedBeforeDispatch(err)) {
      const code = err.code!;
      return recordNotSent(
        journal,
        fence,
        notDispatchedFeedback(code, err.message, nextActionFor(code), invocationId, false, err.message),
      );
    }
    if (err instanceof HubClientError && err.kind === 'network' && err.notSent) {
      // The connection was refused before a byte of the request was written: provably not sent.
      return recordNotSent(
        journal,
        fence,
        notDispatchedFeedback(
          'hub_unreachable',
          'The Hub could not be reached (no connection could be opened), so nothing was sent. Try again once the Hub is back.',
          'wait',
          invocationId,
          true,
        ),
      );
    }
    // It may have reached the Hub: the outcome is unknown. Record that, never "not dispatched".
    const post = await journal.serialize(() => journal.commit([withState(fence, 'unknown')], 'direct'));
    return {
      kind: 'sent_unconfirmed',
      invocation_id: invocationId,
      feedback: post.ok
        ? outcomeUnknownFeedback(err, invocationId)
        : storageFeedback(post.error, invocationId),
    };
  }
  if (!receiptMatchesEntry(receipt, fence)) {
    const post = await journal.serialize(() => journal.commit([withState(fence, 'unknown')], 'direct'));
    return {
      kind: 'sent_unconfirmed',
      invocation_id: invocationId,
      feedback: post.ok
        ? bindingFeedback('invocation_binding_conflict', invocationId)
        : storageFeedback(post.error, invocationId),
    };
  }
  const post = await journal.serialize(() =>
    journal.commit([withReceipt(fence, receipt, ctx.now())], 'direct'),
  );
  // A successful business answer does not clear a local storage error.
  return {
    kind: 'receipt',
    invocation_id: invocationId,
    receipt,
    feedback: post.ok ? receiptFeedback(receipt) : storageFeedback(post.error, invocationId),
  };
}
