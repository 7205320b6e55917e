/** Feedback for the model and the host: categories, codes and next actions of docs/journal.md#failure-rules-and-feedback. */
import type { Feedback, ScopeCheck } from '../invocation-ports.js';
import { HUB_FAILURE_CODES, HubClientError, isAuthoritativeNotFound } from '../../hub-client/index.js';
import { journalCodeOf } from '../../journal/index.js';

export function storageFeedback(err: unknown, invocationId?: string): Feedback {
  const code = typeof err === 'string' ? err : journalCodeOf(err);
  return {
    category: 'storage_error',
    code,
    message:
      'The local invocation journal could not be saved or read. Restore local persistence first (restore_invocations). ' +
      'This is not evidence about whether the business action ran.',
    next_action: 'restore_invocations',
    retryable: true,
    ...(invocationId ? { invocation_id: invocationId } : {}),
  };
}

export function bindingFeedback(
  code: 'invocation_binding_unavailable' | 'invocation_binding_conflict',
  invocationId?: string,
): Feedback {
  return {
    category: 'blocked',
    code,
    message:
      code === 'invocation_binding_unavailable'
        ? 'No original binding is recorded for this call; it cannot be recovered from conversation text or model input.'
        : 'The original binding of this call does not match its session scope or the Hub receipt; inspect the original evidence.',
    next_action: 'inspect_original',
    retryable: false,
    ...(invocationId ? { invocation_id: invocationId } : {}),
  };
}

export function scopeBlockedFeedback(
  check: Extract<ScopeCheck, { state: 'blocked' }>,
  invocationId?: string,
): Feedback {
  return {
    category: 'blocked',
    code: check.reason,
    message: `Authorization ${check.authorization_ref} of the original scope is ${check.reason === 'system_retired' ? 'of a system retired on the Hub' : check.reason.replace('authorization_', '')}; the whole original group is blocked (no other account, no surviving subset).`,
    detail: check.authorization_ref,
    next_action: 'none',
    retryable: false,
    ...(invocationId ? { invocation_id: invocationId } : {}),
  };
}

export function offlineFeedback(reason: string, invocationId?: string): Feedback {
  return {
    category: 'hub_unavailable',
    code: 'hub_unavailable',
    message: `The Hub could not be reached (${reason}); recovery stays closed and can be retried in this runtime.`,
    detail: reason,
    next_action: 'wait',
    retryable: true,
    original_outcome: 'unknown',
    ...(invocationId ? { invocation_id: invocationId } : {}),
  };
}

export function unsupportedFeedback(invocationId?: string): Feedback {
  return {
    category: 'unsupported',
    code: 'invocation_store_unsupported',
    message:
      'Durable invocation storage is not enabled on this host; only calls made in this running host can be recovered.',
    next_action: 'none',
    retryable: false,
    ...(invocationId ? { invocation_id: invocationId } : {}),
  };
}

/** The authoritative 404: the Hub has no such invocation. The original outcome stays unverified. */
export function notFoundFeedback(invocationId: string): Feedback {
  return {
    category: 'invocation_outcome_unknown',
    code: 'invocation_not_found',
    message:
      'The Hub has no record of this invocation. This does not prove the business action never ran; inspect the original evidence. ' +
      'Do not retry it or reconstruct a new call.',
    next_action: 'inspect_original',
    retryable: false,
    original_outcome: 'unverified',
    invocation_id: invocationId,
  };
}

/** A request that may have reached the Hub and got no usable answer. */
export function outcomeUnknownFeedback(err: unknown, invocationId: string): Feedback {
  const code =
    err instanceof HubClientError
      ? err.kind === 'http'
        ? (err.code ?? HUB_FAILURE_CODES.http)
        : HUB_FAILURE_CODES[err.kind]
      : 'hub_error';
  const status = err instanceof HubClientError && err.kind === 'http' && !err.code ? err.status : null;
  return {
    category: 'invocation_outcome_unknown',
    code,
    ...(status !== null ? { detail: `HTTP ${status}` } : {}),
    message:
      'The request was sent but no confirmed answer arrived. It may have run. Inspect the original call; do not send it again.',
    next_action: 'inspect_original',
    retryable: false,
    original_outcome: 'unknown',
    invocation_id: invocationId,
  };
}

/** A read (inspect) that failed without an authoritative answer: nothing is concluded. */
export function readFailedFeedback(err: unknown, invocationId: string): Feedback {
  if (isAuthoritativeNotFound(err)) return notFoundFeedback(invocationId);
  if (
    err instanceof HubClientError &&
    err.kind === 'http' &&
    err.status !== null &&
    err.status < 500 &&
    err.code
  ) {
    return {
      category: 'hub_error',
      code: err.code,
      message: `The Hub refused the request: ${err.message}`,
      detail: err.message,
      next_action: 'none',
      retryable: false,
      original_outcome: 'unknown',
      invocation_id: invocationId,
    };
  }
  return offlineFeedback(err instanceof HubClientError ? (err.code ?? err.kind) : 'error', invocationId);
}

export function notDispatchedFeedback(
  code: string,
  message: string,
  nextAction: string,
  invocationId: string | null,
  retryable = false,
  detail?: string,
): Feedback {
  const category =
    code === 'declaration_changed'
      ? 'declaration_changed'
      : code === 'arguments_invalid' || code === 'invalid_request'
        ? 'arguments_invalid'
        : 'not_dispatched';
  return {
    category,
    code,
    message,
    ...(detail ? { detail } : {}),
    next_action: nextAction,
    retryable,
    ...(invocationId ? { invocation_id: invocationId } : {}),
  };
}
