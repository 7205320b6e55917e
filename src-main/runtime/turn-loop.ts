/**
 * One turn: the user's message, then model requests and tool calls until the model answers in
 * text (or the step limit, an error or a cancellation ends it). Every event is saved before it is
 * shown. A turn that makes no tool calls makes no Hub request at all (not even a scope check: an
 * offline or unchecked scope is re-checked by the tool executor, only when a call needs the Hub).
 */
import type { ModelClient, ModelReply } from './model-client.js';
import type { LiveSession, Recorder, TurnContext } from './live-session.js';
import type { TurnOutcome, TurnResult } from './desk-runtime.js';
import type { ToolExecutor } from './tool-executor.js';
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
  hub: RuntimeHubPort;
  ids: IdSource;
  maxModelRequests: number;
  systemPromptOf(session: LiveSession): string;
  secrets: () => readonly string[];
  attachments: AttachmentSpace;
}

export function startTurn(hub: RuntimeHubPort, session: LiveSession, turnId: string): TurnContext {
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

export async function runTurn(
  deps: TurnLoopDeps,
  session: LiveSession,
  turn: TurnContext,
  text: string,
  attachments: readonly AttachmentInput[] = [],
): Promise<TurnResult> {
  const { recorder, model, executor } = deps;
  const result = (outcome: TurnOutcome, finalText: string, error: string | null): TurnResult => ({
    sessionId: session.sessionId,
    turnId: turn.turnId,
    outcome,
    text: finalText,
    error,
  });
  // The turn boundary in the archive. Saved (or queued unsaved) like every other event; the user
  // message below decides whether the turn may run.
  recorder.record(session, turn.turnId, { kind: 'turn_started', turnId: turn.turnId });
  // Attachments are saved in the attachment space BEFORE the message that refers to them; if the
  // store cannot save them, the message is refused like an unsaved message: not sent, error visible.
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
      recorder.emit({
        type: 'turn.state',
        sessionId: session.sessionId,
        turnId: turn.turnId,
        state: 'refused',
        error: 'archive_storage_error',
      });
      return result('refused', '', 'archive_storage_error');
    }
    refs = saved.refs;
  }
  const user = recorder.record(
    session,
    turn.turnId,
    refs.length > 0 ? { kind: 'user_message', text, attachments: refs } : { kind: 'user_message', text },
  );
  if (!user) {
    // Not saved: not shown and not sent to the model. The archive keeps the unsaved message queued
    // (it stays visible and is saved once the store works); the refusal is queued right behind it so
    // the rebuilt history never hands that message to the model as an instruction later.
    turn.ended = true;
    recorder.record(session, turn.turnId, {
      kind: 'turn_ended',
      turnId: turn.turnId,
      outcome: 'refused',
      error: 'archive_storage_error',
    });
    recorder.emit({
      type: 'turn.state',
      sessionId: session.sessionId,
      turnId: turn.turnId,
      state: 'refused',
      error: 'archive_storage_error',
    });
    return result('refused', '', 'archive_storage_error');
  }
  recorder.emit({
    type: 'turn.state',
    sessionId: session.sessionId,
    turnId: turn.turnId,
    state: 'running',
    error: null,
  });
  if (!session.reuseDeclarations) session.cache.clear();

  let outcome: TurnOutcome = 'completed';
  let error: string | null = null;
  let finalText = '';
  try {
    for (let step = 0; ; step++) {
      if (turn.cancelled) {
        outcome = 'cancelled';
        break;
      }
      if (step >= deps.maxModelRequests) {
        outcome = 'failed';
        error = 'step_limit_reached';
        break;
      }
      const messageId = deps.ids.messageId();
      // An offline or not yet checked scope still offers its tools: a call re-checks the scope
      // before anything goes to the Hub (tool-executor). A blocked scope offers none.
      const toolsEnabled = session.scope.members.length > 0 && session.availability !== 'blocked';
      let reply: ModelReply;
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
        reply = await model.complete({
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
      } catch (err) {
        if (turn.cancelled) {
          if (partial)
            recorder.record(session, turn.turnId, {
              kind: 'assistant_message',
              messageId,
              text: partial,
              finish: 'cancelled',
            });
          outcome = 'cancelled';
          break;
        }
        outcome = 'failed';
        error = `model_error: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500);
        break;
      }
      if (turn.cancelled) {
        recorder.record(session, turn.turnId, {
          kind: 'assistant_message',
          messageId,
          text: reply.text,
          finish: 'cancelled',
        });
        outcome = 'cancelled';
        break;
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
      if (!saved) {
        outcome = 'failed';
        error = 'archive_storage_error';
        break;
      }
      finalText = reply.text;
      if (calls.length === 0) break;
      // Every call is recorded before any of them runs; a call whose record cannot be saved is not run.
      const recorded = calls.map((c) => {
        const entry = session.cache.byFunctionName(c.name);
        const sensitive = entry?.declaration.audit_sensitive === true;
        return recorder.record(session, turn.turnId, {
          kind: 'tool_call',
          callId: c.callId,
          functionName: c.name,
          argumentsText: sensitive ? null : c.argumentsText.slice(0, 64_000),
          target: entry
            ? {
                hub_id: entry.declaration.hub_id,
                authorization_ref: entry.declaration.authorization_ref,
                system_id: entry.declaration.system_id,
                system_name: entry.declaration.system_name,
                account: entry.declaration.account,
                tool: entry.declaration.tool,
                declaration_revision: entry.declaration.declaration_revision,
              }
            : null,
        });
      });
      if (recorded.some((r) => r === null)) {
        outcome = 'failed';
        error = 'archive_storage_error';
        break;
      }
      for (const call of calls) {
        const running = executor.execute(session, turn, call);
        session.background.add(running);
        void running.finally(() => session.background.delete(running)).catch(() => undefined);
        await Promise.race([running, turn.cancelledSignal]);
        if (turn.cancelled) break;
      }
      if (turn.cancelled) {
        // Calls of this turn not started yet are refused (recorded, never sent).
        for (const call of calls) {
          if (!session.cards.has(call.callId)) await executor.execute(session, turn, call);
        }
        outcome = 'cancelled';
        break;
      }
    }
  } finally {
    turn.ended = true;
    const ended = await turn.runs.endAll();
    const endErrors = ended.filter((r) => r.error).map((r) => `${r.run_id}: ${r.error}`);
    if (endErrors.length > 0 && !error) error = `run_end_failed: ${endErrors.join('; ')}`.slice(0, 500);
    recorder.record(session, turn.turnId, { kind: 'turn_ended', turnId: turn.turnId, outcome, error });
    recorder.emit({
      type: 'turn.state',
      sessionId: session.sessionId,
      turnId: turn.turnId,
      state: outcome,
      error,
    });
  }
  return result(outcome, finalText, error);
}
