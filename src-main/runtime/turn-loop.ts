/**
 * One turn: the user's message, then model requests and tool calls until the model answers in
 * text (or the step limit, an error or a cancellation ends it). Every event is saved before it is
 * shown. A turn that makes no tool calls makes no Hub request at all (not even a scope check: an
 * offline or unchecked scope is re-checked by the tool executor, only when a call needs the Hub).
 */
import type { ModelClient, ModelReply } from './model-client.js';
import type { LiveSession, Recorder, TurnContext } from './live-session.js';
import type { TurnOutcome, TurnResult } from './desk-runtime.js';
import type { ExecutableCall, ToolExecutor } from './tool-executor.js';
import { targetOf } from './tool-calls/targets.js';
import { eventsToMessages } from './conversation.js';
import { modelTools } from './model-tools.js';
import type { IdSource } from './ids.js';
import type { RuntimeHubPort } from './hub-port.js';
import { createTurnRuns } from './turn-runs.js';
import { createStreamRedactor } from '../archive/index.js';
import type { AttachmentSpace } from './attachments.js';
import type { AttachmentInput, AttachmentRef } from './desk-runtime.js';

export interface TurnLoopDeps {
  model: ModelClient;
  executor: ToolExecutor;
  recorder: Recorder;
  ids: IdSource;
  maxModelRequests: number;
  systemPromptOf(session: LiveSession): string;
  secrets: () => readonly string[];
  attachments: AttachmentSpace;
}

export function startTurn(
  hub: Pick<RuntimeHubPort, 'createRun' | 'endRun'>,
  session: LiveSession,
  turnId: string,
): TurnContext {
  let fire: () => void = () => undefined;
  const cancelledSignal = new Promise<void>((resolve) => {
    fire = resolve;
  });
  const abort = new AbortController();
  abort.signal.addEventListener('abort', () => fire(), { once: true });
  return {
    turnId,
    abort,
    cancelled: false,
    ended: false,
    runs: createTurnRuns(hub, session.sessionId, turnId),
    cancelledSignal,
  };
}

export function cancelTurn(turn: TurnContext): void {
  if (turn.cancelled || turn.ended) return;
  turn.cancelled = true;
  turn.abort.abort();
}

/** Host call ids are unique per session: the turn id plus the model's own call id (which models reuse). */
export function hostCallId(turnId: string, modelCallId: string, index: number): string {
  const safe = modelCallId.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 100) || `call${index}`;
  return `${turnId}.${index}.${safe}`.slice(0, 200);
}

/** How the turn's steps ended. */
interface StepsEnd {
  outcome: TurnOutcome;
  /** The code the turn ended with, and the source's own words beside it. */
  error: string | null;
  detail?: string | null;
  finalText: string;
}

function emitTurnState(
  recorder: Recorder,
  session: LiveSession,
  turn: TurnContext,
  state: 'running' | TurnOutcome,
  error: string | null,
): void {
  recorder.emit({ type: 'turn.state', sessionId: session.sessionId, turnId: turn.turnId, state, error });
}

/**
 * A message that cannot be saved is refused: not shown, not sent to the model. The refusal is
 * queued right behind an unsaved message so the rebuilt history never hands it to the model later.
 */
function refuseUnsaved(recorder: Recorder, session: LiveSession, turn: TurnContext): void {
  turn.ended = true;
  recorder.record(session, turn.turnId, {
    kind: 'turn_ended',
    turnId: turn.turnId,
    outcome: 'refused',
    error: 'archive_storage_error',
  });
  emitTurnState(recorder, session, turn, 'refused', 'archive_storage_error');
}

/**
 * Saves the attachments (in the attachment space, BEFORE the message that refers to them) and the
 * user message. False when either could not be saved (the turn is then refused, nothing sent).
 */
function recordUserMessage(
  deps: TurnLoopDeps,
  session: LiveSession,
  turn: TurnContext,
  text: string,
  attachments: readonly AttachmentInput[],
): boolean {
  const { recorder } = deps;
  let refs: AttachmentRef[] = [];
  if (attachments.length > 0) {
    const saved = deps.attachments.save(session.sessionId, attachments);
    if (!saved.saved) {
      turn.ended = true;
      recorder.emit({
        type: 'archive.state',
        sessionId: session.sessionId,
        archive: {
          ...recorder.archiveStatus(session.sessionId),
          state: 'storage_error',
          reason: saved.reason,
        },
      });
      recorder.record(session, turn.turnId, {
        kind: 'turn_ended',
        turnId: turn.turnId,
        outcome: 'refused',
        error: 'archive_storage_error',
      });
      emitTurnState(recorder, session, turn, 'refused', 'archive_storage_error');
      return false;
    }
    refs = saved.refs;
  }
  const user = recorder.record(
    session,
    turn.turnId,
    refs.length > 0 ? { kind: 'user_message', text, attachments: refs } : { kind: 'user_message', text },
  );
  if (!user) {
    // The archive keeps the unsaved message queued (it stays visible and is saved once the store works).
    refuseUnsaved(recorder, session, turn);
    return false;
  }
  return true;
}

/** One model request with streamed text; `cancelled` keeps what was streamed so far. */
async function requestModel(
  deps: TurnLoopDeps,
  session: LiveSession,
  turn: TurnContext,
  messageId: string,
): Promise<{ reply: ModelReply } | { cancelled: true } | { error: 'model_error'; detail: string }> {
  const { recorder } = deps;
  // An offline or not yet checked scope still offers its tools: a call re-checks the scope
  // before anything goes to the Hub (tool-executor). A blocked scope offers none.
  const toolsEnabled = session.scope.members.length > 0 && session.availability !== 'blocked';
  let partial = '';
  const redactor = createStreamRedactor(deps.secrets());
  const showDelta = (delta: string) => {
    if (delta && !turn.cancelled)
      recorder.emit({
        type: 'message.delta',
        sessionId: session.sessionId,
        turnId: turn.turnId,
        messageId,
        delta,
      });
  };
  try {
    const reply = await deps.model.complete({
      messages: eventsToMessages(session.events, deps.systemPromptOf(session), undefined, (id) =>
        deps.attachments.text(session.sessionId, id),
      ),
      tools: modelTools(toolsEnabled ? session.cache.list() : [], toolsEnabled),
      signal: turn.abort.signal,
      onDelta: (delta) => {
        partial += delta;
        showDelta(redactor.push(delta));
      },
    });
    showDelta(redactor.flush());
    return { reply };
  } catch (err) {
    if (turn.cancelled) {
      if (partial)
        recorder.record(session, turn.turnId, {
          kind: 'assistant_message',
          messageId,
          text: partial,
          finish: 'cancelled',
        });
      return { cancelled: true };
    }
    return { error: 'model_error', detail: (err instanceof Error ? err.message : String(err)).slice(0, 500) };
  }
}

/** Every call is recorded before any of them runs; false when one of the records could not be saved. */
function recordToolCalls(
  recorder: Recorder,
  session: LiveSession,
  turn: TurnContext,
  calls: readonly ExecutableCall[],
): boolean {
  const recorded = calls.map((c) => {
    const entry = session.cache.byFunctionName(c.name);
    const sensitive = entry?.declaration.audit_sensitive === true;
    return recorder.record(session, turn.turnId, {
      kind: 'tool_call',
      callId: c.callId,
      functionName: c.name,
      argumentsText: sensitive ? null : c.argumentsText.slice(0, 64_000),
      target: entry ? targetOf(entry.declaration) : null,
    });
  });
  return recorded.every((r) => r !== null);
}

/** Runs the calls one after another; on a cancellation the calls not started yet are refused (recorded, never sent). */
async function runToolCalls(
  executor: ToolExecutor,
  session: LiveSession,
  turn: TurnContext,
  calls: readonly ExecutableCall[],
): Promise<void> {
  for (const call of calls) {
    const running = executor.execute(session, turn, call);
    session.background.add(running);
    void running.finally(() => session.background.delete(running)).catch(() => undefined);
    await Promise.race([running, turn.cancelledSignal]);
    if (turn.cancelled) break;
  }
  if (turn.cancelled) {
    for (const call of calls) {
      if (!session.cards.has(call.callId)) await executor.execute(session, turn, call);
    }
  }
}

/** Model requests and tool calls until a text answer, the step limit, an error or a cancellation. */
async function runSteps(deps: TurnLoopDeps, session: LiveSession, turn: TurnContext): Promise<StepsEnd> {
  const { recorder } = deps;
  let finalText = '';
  for (let step = 0; ; step++) {
    if (turn.cancelled) return { outcome: 'cancelled', error: null, finalText };
    if (step >= deps.maxModelRequests) return { outcome: 'failed', error: 'step_limit_reached', finalText };
    const messageId = deps.ids.messageId();
    const answer = await requestModel(deps, session, turn, messageId);
    if ('cancelled' in answer) return { outcome: 'cancelled', error: null, finalText };
    if ('error' in answer)
      return { outcome: 'failed', error: answer.error, detail: answer.detail, finalText };
    const reply = answer.reply;
    if (turn.cancelled) {
      recorder.record(session, turn.turnId, {
        kind: 'assistant_message',
        messageId,
        text: reply.text,
        finish: 'cancelled',
      });
      return { outcome: 'cancelled', error: null, finalText };
    }
    const calls = reply.toolCalls.map((tc, i) => ({
      callId: hostCallId(turn.turnId, tc.id, i + step * 100),
      name: tc.name,
      argumentsText: tc.argumentsText,
    }));
    const finish = calls.length > 0 ? 'tool_calls' : reply.finishReason === 'length' ? 'length' : 'stop';
    const saved = recorder.record(session, turn.turnId, {
      kind: 'assistant_message',
      messageId,
      text: reply.text,
      finish,
    });
    if (!saved) return { outcome: 'failed', error: 'archive_storage_error', finalText };
    finalText = reply.text;
    if (calls.length === 0) return { outcome: 'completed', error: null, finalText };
    if (!recordToolCalls(recorder, session, turn, calls))
      return { outcome: 'failed', error: 'archive_storage_error', finalText };
    await runToolCalls(deps.executor, session, turn, calls);
    if (turn.cancelled) return { outcome: 'cancelled', error: null, finalText };
  }
}

/** Ends the turn's runs and records how the turn ended. */
async function endTurn(
  recorder: Recorder,
  session: LiveSession,
  turn: TurnContext,
  end: StepsEnd,
): Promise<StepsEnd> {
  turn.ended = true;
  let error = end.error;
  let detail = end.detail ?? null;
  const ended = await turn.runs.endAll();
  const endErrors = ended.filter((r) => r.error).map((r) => `${r.run_id}: ${r.error}`);
  if (endErrors.length > 0 && !error) {
    error = 'run_end_failed';
    detail = endErrors.join('; ').slice(0, 500);
  }
  recorder.record(session, turn.turnId, {
    kind: 'turn_ended',
    turnId: turn.turnId,
    outcome: end.outcome,
    error,
    detail,
  });
  emitTurnState(recorder, session, turn, end.outcome, error);
  return { ...end, error, detail };
}

export async function runTurn(
  deps: TurnLoopDeps,
  session: LiveSession,
  turn: TurnContext,
  text: string,
  attachments: readonly AttachmentInput[] = [],
): Promise<TurnResult> {
  const { recorder } = deps;
  const result = (end: StepsEnd): TurnResult => ({
    sessionId: session.sessionId,
    turnId: turn.turnId,
    outcome: end.outcome,
    text: end.finalText,
    error: end.error,
  });
  // The turn boundary in the archive. Saved (or queued unsaved) like every other event; the user
  // message decides whether the turn may run.
  recorder.record(session, turn.turnId, { kind: 'turn_started', turnId: turn.turnId });
  if (!recordUserMessage(deps, session, turn, text, attachments))
    return result({ outcome: 'refused', error: 'archive_storage_error', finalText: '' });
  emitTurnState(recorder, session, turn, 'running', null);
  if (!session.reuseDeclarations) session.cache.clear();

  let end: StepsEnd = { outcome: 'failed', error: null, finalText: '' };
  try {
    end = await runSteps(deps, session, turn);
  } finally {
    end = await endTurn(recorder, session, turn, end);
  }
  return result(end);
}
