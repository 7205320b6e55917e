/**
 * The operator's recovery actions on a session (docs/journal.md): the journal status and its
 * restore, and inspect / resume of one original call. Each reads or acts on the original call only;
 * a session bound to another Hub connection than the current one asks nothing at all.
 */
import type { AttestRequest } from '../../../src-shared/hub-api.js';
import type { RecoveryAction } from '../../../src-shared/states.js';
import { AppError } from '../../../src-shared/errors.js';
import { redactPayload } from '../../archive/index.js';
import { rebuildCardOf } from '../tool-calls/card-rebuild.js';
import { handleOf } from '../tool-calls/targets.js';
import type { RuntimeEvents } from '../runtime-events.js';
import type { InvocationActionEnvelope, InvocationRuntime, InvocationStatus } from '../invocation-ports.js';
import type { LiveSession, Recorder } from '../live-session.js';
import { connectionKeyOf, type HubConnectionInfo } from '../scope-builder.js';
import type { ScopeAvailability } from './scope-availability.js';
import type { SessionRegistry } from './session-registry.js';

export type { RecoveryAction };

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
  /** Inspect, resume or (with the operator's attestation) attest one original call. */
  act(
    sessionId: string,
    invocationId: string,
    action: RecoveryAction,
    attestation?: AttestRequest,
  ): Promise<InvocationActionEnvelope>;
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

  /**
   * The original call's card after its receipt changed: the card a reopened conversation shows,
   * rebuilt from the session's events the same way, handed to the UI by the one card route — so an
   * inspect, resume or attest from anywhere (Needs attention too) updates the open conversation live.
   */
  const emitCard = async (s: LiveSession, invocationId: string) => {
    const live = [...s.cards.values()].find((c) => c.invocation_id === invocationId);
    if (live && s.activeTurn && live.turnId === s.activeTurn.turnId) return; // its turn shows it
    const status = await deps.invocations.getSessionInvocationStatus(s.sessionId).catch(() => null);
    const journal = new Map((status?.entries ?? []).map((e) => [e.invocation_id, e.last_known_state]));
    const card = rebuildCardOf(s.events, invocationId, journal, s.activeTurn?.turnId ?? null);
    if (!card) return;
    if (s.cards.has(card.callId)) s.cards.set(card.callId, card);
    deps.recorder.emit({ type: 'tool.card', card: redactPayload(card, deps.secrets()) as typeof card });
  };

  return {
    async journalStatus(sessionId, restore) {
      const raw = restore
        ? await deps.invocations.restoreSessionInvocations(sessionId)
        : await deps.invocations.getSessionInvocationStatus(sessionId);
      const status = withLiveScope(deps.sessions.peek(sessionId), raw);
      deps.events.emit({ type: 'journal.state', sessionId, status });
      return status;
    },

    async act(sessionId, invocationId, action, attestation) {
      if (action === 'attest' && !attestation)
        throw new AppError('invalid_payload', 'an attestation needs its outcome and note');
      const s = await deps.sessions.get(sessionId);
      if (onAnotherConnection(s, deps.connection)) {
        const status = await deps.invocations.getSessionInvocationStatus(sessionId);
        return redacted(anotherConnectionEnvelope(status, action, invocationId));
      }
      await deps.scope.ensure(s);
      deps.recorder.record(s, null, {
        kind: 'control',
        action,
        detail: {
          invocation_id: invocationId,
          ...(attestation ? { outcome: attestation.outcome, note: attestation.note } : {}),
        },
      });
      const handle = handleOf(s, null);
      const env =
        action === 'inspect'
          ? await deps.invocations.inspectSessionInvocation(handle, invocationId)
          : action === 'resume'
            ? await deps.invocations.resumeSessionInvocation(handle, invocationId)
            : await deps.invocations.attestSessionInvocation(handle, invocationId, attestation!);
      if (env.receipt) {
        deps.recorder.record(s, null, {
          kind: 'receipt',
          callId: null,
          invocation_id: env.receipt.invocation_id,
          state: env.receipt.state,
          receipt: env.receipt,
          late: false,
        });
        await emitCard(s, env.receipt.invocation_id);
      }
      return redacted(env);
    },
  };
}
