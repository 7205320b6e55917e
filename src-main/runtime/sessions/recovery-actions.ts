/**
 * The operator's recovery actions on a session (docs/journal.md): the journal status and its
 * restore, and inspect / resume of one original call. Each reads or acts on the original call only;
 * a session bound to another Hub connection than the current one asks nothing at all.
 */
import { redactPayload } from '../../archive/index.js';
import { handleOf } from '../tool-calls/targets.js';
import type { RuntimeEvents } from '../runtime-events.js';
import type { InvocationActionEnvelope, InvocationRuntime, InvocationStatus } from '../invocation-ports.js';
import type { LiveSession, Recorder } from '../live-session.js';
import { connectionKeyOf, type HubConnectionInfo } from '../scope-builder.js';
import type { ScopeAvailability } from './scope-availability.js';
import type { SessionRegistry } from './session-registry.js';

export type RecoveryAction = 'inspect' | 'resume';

export interface RecoveryActionsDeps {
  invocations: InvocationRuntime;
  sessions: SessionRegistry;
  scope: ScopeAvailability;
  recorder: Recorder;
  events: RuntimeEvents;
  connection: HubConnectionInfo;
  secrets: () => readonly string[];
}

export interface RecoveryActions {
  /** The journal status (or, with `restore`, the result of flushing unsaved records), also emitted. */
  journalStatus(sessionId: string, restore: boolean): Promise<InvocationStatus>;
  act(sessionId: string, invocationId: string, action: RecoveryAction): Promise<InvocationActionEnvelope>;
}

/**
 * The journal's remembered scope check only knows what its own revalidation saw. A member this
 * runtime learned was revoked/rebound (Hub event, refused run) blocks the scope too: report it,
 * with storage_error kept primary (docs/journal.md, "Status"). Local only, no Hub request.
 */
export function withLiveScope(s: LiveSession | undefined, status: InvocationStatus): InvocationStatus {
  if (!s || s.availability !== 'blocked' || status.scope_state === 'blocked') return status;
  const reason = s.availabilityReason ?? 'scope_blocked';
  const scope = {
    scope_state: 'blocked' as const,
    scope_reason: reason,
    ...(s.availabilityRef ? { scope_ref: s.availabilityRef } : {}),
  };
  if (status.state === 'storage_error') return { ...status, ...scope };
  if (status.state === 'ready') return { ...status, state: 'blocked', reason, ...scope };
  return status;
}

/** The session's calls live on another Hub connection than this host's current one. */
export function onAnotherConnection(s: LiveSession, connection: HubConnectionInfo): boolean {
  return (
    s.scope.members.length > 0 &&
    (s.scope.hubId !== connection.hubId || s.scope.connectionKey !== connectionKeyOf(connection))
  );
}

/**
 * The answer for a call of a session bound to another Hub connection: asking the Hub this host is
 * connected to now would turn its 404 into a false "invocation_not_found", so nothing is asked.
 */
export function anotherConnectionEnvelope(
  status: InvocationStatus,
  action: RecoveryAction,
  invocationId: string,
): InvocationActionEnvelope {
  return {
    schema: 'bailing.agent-session-invocation-action.v1',
    state: status.state === 'storage_error' ? 'storage_error' : 'blocked',
    action,
    invocation_id: invocationId,
    resume_dispatched: false,
    receipt: null,
    feedback: {
      category: 'blocked',
      code: 'invocation_binding_conflict',
      message:
        'This conversation belongs to another Hub connection than the one this host uses now; its calls can only be inspected or resumed through their original Hub. Nothing was asked.',
      next_action: 'inspect_original',
      retryable: false,
      invocation_id: invocationId,
    },
    unsavedRecords: status.unsavedRecords,
  };
}

export function createRecoveryActions(deps: RecoveryActionsDeps): RecoveryActions {
  const redacted = (env: InvocationActionEnvelope) =>
    redactPayload(env, deps.secrets()) as InvocationActionEnvelope;

  return {
    async journalStatus(sessionId, restore) {
      const raw = restore
        ? await deps.invocations.restoreSessionInvocations(sessionId)
        : await deps.invocations.getSessionInvocationStatus(sessionId);
      const status = withLiveScope(deps.sessions.peek(sessionId), raw);
      deps.events.emit({ type: 'journal.state', sessionId, status });
      return status;
    },

    async act(sessionId, invocationId, action) {
      const s = await deps.sessions.get(sessionId);
      if (onAnotherConnection(s, deps.connection)) {
        const status = await deps.invocations.getSessionInvocationStatus(sessionId);
        return redacted(anotherConnectionEnvelope(status, action, invocationId));
      }
      await deps.scope.ensure(s);
      deps.recorder.record(s, null, { kind: 'control', action, detail: { invocation_id: invocationId } });
      const handle = handleOf(s, null);
      const env =
        action === 'inspect'
          ? await deps.invocations.inspectSessionInvocation(handle, invocationId)
          : await deps.invocations.resumeSessionInvocation(handle, invocationId);
      if (env.receipt) {
        deps.recorder.record(s, null, {
          kind: 'receipt',
          callId: null,
          invocation_id: env.receipt.invocation_id,
          state: env.receipt.state,
          receipt: env.receipt,
          late: false,
        });
      }
      return redacted(env);
    },
  };
}
