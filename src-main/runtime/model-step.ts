/**
 * One model request of a turn: the history rebuilt from the saved events (with the provider's
 * reasoning rule), the offered tools, streamed text and reasoning shown as they arrive (secrets
 * masked across chunk boundaries), and each retry wait saved as a `model_retry` event before it is
 * shown. Returns the reply, or the error the request ended with.
 */
import { createStreamRedactor } from '../archive/index.js';
import type { AttachmentSpace } from './attachments.js';
import { eventsToMessages } from './conversation.js';
import type { LiveSession, Recorder, TurnContext } from './live-session.js';
import { ModelRequestError, type ModelClient, type ModelReply } from './model-client.js';
import { modelTools } from './model-tools.js';

export interface ModelStepDeps {
  model: ModelClient;
  recorder: Recorder;
  secrets: () => readonly string[];
  attachments: AttachmentSpace;
  systemPromptOf(session: LiveSession): string;
}

export type ModelStepResult =
  | { ok: true; reply: ModelReply }
  | {
      ok: false;
      cancelled: true;
      partial: { text: string; reasoning: string; reasoningField: 'reasoning_content' | 'reasoning' };
    }
  | { ok: false; cancelled: false; code: string; detail: string };

export async function askModel(
  deps: ModelStepDeps,
  session: LiveSession,
  turn: TurnContext,
  messageId: string,
): Promise<ModelStepResult> {
  const { recorder } = deps;
  // An offline or not yet checked scope still offers its tools: a call re-checks the scope
  // before anything goes to the Hub (tool-executor). A blocked scope offers none.
  const toolsEnabled = session.scope.members.length > 0 && session.availability !== 'blocked';
  const partial = {
    text: '',
    reasoning: '',
    reasoningField: 'reasoning_content' as 'reasoning_content' | 'reasoning',
  };
  const textRedactor = createStreamRedactor(deps.secrets());
  const reasoningRedactor = createStreamRedactor(deps.secrets());
  const show = (delta: string, channel: 'text' | 'reasoning') => {
    if (delta && !turn.cancelled)
      recorder.emit({
        type: 'message.delta',
        sessionId: session.sessionId,
        turnId: turn.turnId,
        messageId,
        delta,
        ...(channel === 'reasoning' ? { channel } : {}),
      });
  };
  try {
    const reply = await deps.model.complete({
      history: (opts) =>
        eventsToMessages(
          session.events,
          deps.systemPromptOf(session),
          undefined,
          (id) => deps.attachments.text(session.sessionId, id),
          opts,
        ),
      tools: modelTools(toolsEnabled ? session.cache.list() : [], toolsEnabled),
      signal: turn.abort.signal,
      onDelta: (delta) => {
        partial.text += delta;
        show(textRedactor.push(delta), 'text');
      },
      onReasoningDelta: (delta, field) => {
        partial.reasoning += delta;
        partial.reasoningField = field;
        show(reasoningRedactor.push(delta), 'reasoning');
      },
      onRetry: (n) => {
        recorder.record(session, turn.turnId, {
          kind: 'model_retry',
          messageId,
          attempt: n.attempt,
          maxAttempts: n.maxAttempts,
          waitMs: n.waitMs,
          reason: n.reason,
          status: n.status,
          fromProvider: n.fromProvider,
        });
      },
    });
    show(reasoningRedactor.flush(), 'reasoning');
    show(textRedactor.flush(), 'text');
    return { ok: true, reply };
  } catch (err) {
    if (turn.cancelled) return { ok: false, cancelled: true, partial };
    const failure =
      err instanceof ModelRequestError
        ? err
        : new ModelRequestError('model_error', err instanceof Error ? err.message : String(err));
    return { ok: false, cancelled: false, code: failure.code, detail: failure.detail };
  }
}
