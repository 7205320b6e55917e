/** The call card of a tool call: kept on the session and emitted (a copy) on every change. */
import type { ToolCallCard } from '../desk-runtime.js';
import type { LiveSession, Recorder, TurnContext } from '../live-session.js';
import type { ExecutableCall } from './outcome.js';

export function updateCard(
  recorder: Pick<Recorder, 'emit'>,
  session: LiveSession,
  turn: TurnContext | null,
  call: ExecutableCall,
  patch: Partial<ToolCallCard>,
): ToolCallCard {
  const prev = session.cards.get(call.callId);
  const next: ToolCallCard = {
    sessionId: session.sessionId,
    turnId: turn?.turnId ?? null,
    callId: call.callId,
    functionName: call.name,
    target: null,
    effect: null,
    invocation_id: null,
    state: 'validating',
    feedback: null,
    receipt: null,
    late: false,
    ...prev,
    ...patch,
  };
  session.cards.set(call.callId, next);
  recorder.emit({ type: 'tool.card', card: structuredClone(next) });
  return next;
}
