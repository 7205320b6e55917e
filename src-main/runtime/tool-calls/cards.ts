/**
 * The call card of a tool call: kept on the session and emitted (a copy) on every change. This is
 * the one route a card takes to the UI (the relay turns each `tool.card` into a conversation item);
 * a reopened conversation rebuilds the same card from the archive with the fold below
 * (./card-rebuild.ts), and an inspect / resume / attest after a reopen emits the card rebuilt the
 * same way.
 */
import { parseArguments } from '../../../src-shared/call-view.js';
import type { ToolCallCard } from '../desk-runtime.js';
import type { LiveSession, Recorder, TurnContext } from '../live-session.js';
import type { ExecutableCall } from './outcome.js';

/** A card as a call starts: its identity and arguments, checking, nothing known yet. */
export function newCard(
  fields: Pick<ToolCallCard, 'sessionId' | 'turnId' | 'callId' | 'at' | 'functionName' | 'target'> & {
    /** The argument text the call was made with (null when not kept: an audit-sensitive operation). */
    argumentsText?: string | null;
    masked?: boolean;
  },
): ToolCallCard {
  const { argumentsText, masked, ...identity } = fields;
  return {
    ...identity,
    arguments: masked ? null : parseArguments(argumentsText),
    masked: masked ?? false,
    effect: null,
    invocation_id: null,
    state: 'validating',
    feedback: null,
    receipt: null,
    late: false,
  };
}

export function updateCard(
  recorder: Pick<Recorder, 'emit'>,
  session: LiveSession,
  turn: TurnContext | null,
  call: ExecutableCall,
  patch: Partial<ToolCallCard>,
): ToolCallCard {
  const prev = session.cards.get(call.callId);
  const next: ToolCallCard = {
    ...(prev ??
      newCard({
        sessionId: session.sessionId,
        turnId: turn?.turnId ?? null,
        callId: call.callId,
        at: callTime(session, call.callId),
        functionName: call.name,
        target: null,
        argumentsText: call.argumentsText,
      })),
    ...patch,
  };
  if (next.masked) next.arguments = null;
  session.cards.set(call.callId, next);
  recorder.emit({ type: 'tool.card', card: structuredClone(next) });
  return next;
}

/** The time of the call's `tool_call` event (recorded before the call runs), as a rebuild reads it. */
function callTime(session: LiveSession, callId: string): string {
  for (let i = session.events.length - 1; i >= 0; i--) {
    const e = session.events[i];
    if (e?.kind === 'tool_call' && e.callId === callId) return e.at;
  }
  return new Date().toISOString();
}
