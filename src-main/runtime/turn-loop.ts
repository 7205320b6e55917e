/**
 * One turn: the user's message, then model requests and tool calls until the model answers in
 * text (or the step limit, an error or a cancellation ends it). Every event is saved before it is
 * shown. A turn that makes no tool calls makes no Hub request at all (not even a scope check: an
 * offline or unchecked scope is re-checked by the tool executor, only when a call needs the Hub).
 */
import type { ModelClient } from './model-client.js';
import type { LiveSession, Recorder, TurnContext } from './live-session.js';
import type { TokenUsage, TurnOutcome, TurnResult, TurnUsage } from './desk-runtime.js';
import type { ExecutableCall, ToolExecutor } from './tool-executor.js';
import { targetOf } from './tool-calls/targets.js';
import { hostCallId, providerCallIds } from './call-ids.js';
import { askModel } from './model-step.js';
import type { IdSource } from './ids.js';
import type { RuntimeHubPort } from './hub-port.js';
import { createTurnRuns } from './turn-runs.js';
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

export { hostCallId };

/** How the turn's steps ended. */
interface StepsEnd {
  outcome: TurnOutcome;
  /** The code the turn ended with, and the source's own words beside it. */
  error: string | null;
  detail?: string | null;
  finalText: string;
  /** Tokens of the turn's model requests that reported usage. */
  usage?: TurnUsage | null;
}

/** A model call as the turn runs it: the desk's host call id beside the id the provider knows it by. */
interface TurnCall extends ExecutableCall {
  providerCallId: string;
  index: number;
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
      recorder.emit({
        type: 'archive.state',
        sessionId: session.sessionId,
        archive: {
          ...recorder.archiveStatus(session.sessionId),
          state: 'storage_error',
          reason: saved.reason,
        },
      });
      refuseUnsaved(recorder, session, turn);
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

/** Every call is recorded before any of them runs; false when one of the records could not be saved. */
function recordToolCalls(
  recorder: Recorder,
  session: LiveSession,
  turn: TurnContext,
  messageId: string,
  calls: readonly TurnCall[],
): boolean {
  const recorded = calls.map((c) => {
    const entry = session.cache.byFunctionName(c.name);
    const sensitive = entry?.declaration.audit_sensitive === true;
    return recorder.record(session, turn.turnId, {
      kind: 'tool_call',
      callId: c.callId,
      providerCallId: c.providerCallId,
      index: c.index,
      messageId,
      functionName: c.name,
      argumentsText: sensitive ? null : c.argumentsText.slice(0, 64_000),
      target: entry ? targetOf(entry.declaration) : null,
      ...(sensitive ? { sensitive: true } : {}),
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
  let usage: TurnUsage | null = null;
  const end = (outcome: TurnOutcome, error: string | null = null): StepsEnd => ({
    outcome,
    error,
    finalText,
    usage,
  });
  for (let step = 0; ; step++) {
    if (turn.cancelled) return end('cancelled');
    if (step >= deps.maxModelRequests) return { ...end('failed'), error: 'step_limit_reached' };
    const messageId = deps.ids.messageId();
    const asked = await askModel(deps, session, turn, messageId);
    if (!asked.ok && asked.cancelled) {
      if (asked.partial.text)
        recorder.record(session, turn.turnId, {
          kind: 'assistant_message',
          messageId,
          text: asked.partial.text,
          finish: 'cancelled',
          ...(asked.partial.reasoning
            ? { reasoning: { field: asked.partial.reasoningField, text: asked.partial.reasoning } }
            : {}),
        });
      return end('cancelled');
    }
    if (!asked.ok) return { ...end('failed', asked.code), detail: asked.detail.slice(0, 500) };
    const reply = asked.reply;
    if (reply.usage) usage = addUsage(usage, reply.usage);
    const facts = {
      ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
      ...(reply.usage ? { usage: reply.usage } : {}),
    };
    if (turn.cancelled) {
      recorder.record(session, turn.turnId, {
        kind: 'assistant_message',
        messageId,
        text: reply.text,
        finish: 'cancelled',
        ...facts,
      });
      return end('cancelled');
    }
    if (reply.interrupted) {
      // What arrived is kept (shown as interrupted, with why); its tool calls never run.
      recorder.record(session, turn.turnId, {
        kind: 'assistant_message',
        messageId,
        text: reply.text,
        finish: 'interrupted',
        interruption: reply.interrupted,
        ...facts,
      });
      return {
        ...end('failed', reply.interrupted.code),
        detail: reply.interrupted.detail.slice(0, 500),
      };
    }
    // Tool calls run only from a completed reply: one cut by the token limit may have cut an argument.
    const truncated = reply.finishReason === 'length' && reply.toolCalls.length > 0;
    const providerIds = providerCallIds(reply.toolCalls);
    const calls: TurnCall[] = truncated
      ? []
      : reply.toolCalls.map((tc, i) => ({
          callId: hostCallId(turn.turnId, providerIds[i] as string, i + step * 100),
          providerCallId: providerIds[i] as string,
          index: i,
          name: tc.name,
          argumentsText: tc.argumentsText,
        }));
    const finish = calls.length > 0 ? 'tool_calls' : reply.finishReason === 'length' ? 'length' : 'stop';
    const saved = recorder.record(session, turn.turnId, {
      kind: 'assistant_message',
      messageId,
      text: reply.text,
      finish,
      ...facts,
    });
    if (!saved) return { ...end('failed'), error: 'archive_storage_error' };
    finalText = reply.text;
    if (truncated) {
      const detail = `the reply reached the token limit while making ${reply.toolCalls.length} tool call(s); none was run`;
      return { ...end('failed'), error: 'model_reply_truncated', detail };
    }
    if (calls.length === 0) return end('completed');
    if (!recordToolCalls(recorder, session, turn, messageId, calls))
      return { ...end('failed'), error: 'archive_storage_error' };
    await runToolCalls(deps.executor, session, turn, calls);
    if (turn.cancelled) return end('cancelled');
  }
}

function addUsage(sum: TurnUsage | null, u: TokenUsage): TurnUsage {
  return {
    prompt_tokens: (sum?.prompt_tokens ?? 0) + u.prompt_tokens,
    completion_tokens: (sum?.completion_tokens ?? 0) + u.completion_tokens,
    total_tokens: (sum?.total_tokens ?? 0) + u.total_tokens,
    reasoning_tokens:
      sum === null
        ? u.reasoning_tokens
        : sum.reasoning_tokens === null || u.reasoning_tokens === null
          ? (sum.reasoning_tokens ?? u.reasoning_tokens)
          : sum.reasoning_tokens + u.reasoning_tokens,
    requests: (sum?.requests ?? 0) + 1,
  };
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
    ...(end.usage ? { usage: end.usage } : {}),
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
    detail: end.detail ?? null,
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
