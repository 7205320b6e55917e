/**
 * The cost of rebuilding the provider history for a conversation of N turns: each turn a user
 * message, an assistant message with reasoning and a tool call, its result, and a final answer
 * with reasoning — rebuilt as each model request does (eventsToMessages, DeepSeek's rule: the
 * reasoning of tool-call turns goes back, provider ids beside host call ids).
 */
import { performance } from 'node:perf_hooks';
import { eventsToMessages } from '../../src-main/runtime/conversation.js';
import type { ArchiveEvent } from '../../src-main/runtime/desk-runtime.js';

export function conversationOfTurns(turns: number): ArchiveEvent[] {
  const events: ArchiveEvent[] = [];
  let seq = 0;
  const at = new Date().toISOString();
  const push = (turnId: string, payload: Record<string, unknown>) => {
    seq += 1;
    events.push({
      seq,
      eventId: `evt_${seq}`,
      sessionId: 'ses_bench',
      turnId,
      at,
      ...payload,
    } as ArchiveEvent);
  };
  for (let i = 0; i < turns; i++) {
    const turnId = `turn_${i.toString().padStart(6, '0')}`;
    const providerCallId = `call_${i.toString(36).padStart(24, '0')}`;
    push(turnId, { kind: 'turn_started', turnId });
    push(turnId, { kind: 'user_message', text: `Please update the description of product ${i}.` });
    push(turnId, {
      kind: 'assistant_message',
      messageId: `msg_${i}_a`,
      text: '',
      finish: 'tool_calls',
      reasoning: {
        field: 'reasoning_content',
        text: `The operator wants product ${i} changed; I will edit it.`,
      },
    });
    push(turnId, {
      kind: 'tool_call',
      callId: `${turnId}.0.${providerCallId}`,
      providerCallId,
      index: 0,
      messageId: `msg_${i}_a`,
      functionName: 'auth_shop_a__update_product_content',
      argumentsText: JSON.stringify({ product_id: i, description: `Description ${i}.` }),
      target: null,
    });
    push(turnId, {
      kind: 'tool_result',
      callId: `${turnId}.0.${providerCallId}`,
      functionName: 'auth_shop_a__update_product_content',
      content: JSON.stringify({ invocation_id: `inv_${i}`, state: 'succeeded', result: { product_id: i } }),
      feedback: null,
      invocation_id: `inv_${i}`,
      state: 'succeeded',
      effect: 'write',
    });
    push(turnId, {
      kind: 'assistant_message',
      messageId: `msg_${i}_b`,
      text: `Product ${i} is updated.`,
      finish: 'stop',
      reasoning: { field: 'reasoning_content', text: 'The edit succeeded.' },
    });
    push(turnId, { kind: 'turn_ended', turnId, outcome: 'completed', error: null });
  }
  return events;
}

export function measureHistoryRebuild(turns: number, reps: number): { samples: number[]; messages: number } {
  const events = conversationOfTurns(turns);
  const samples: number[] = [];
  let messages = 0;
  for (let i = 0; i < reps + 3; i++) {
    const t = performance.now();
    const out = eventsToMessages(events, 'You are Bailing Desk.', undefined, () => null, {
      reasoningSendBack: 'tool_call_turns',
      reasoningField: 'reasoning_content',
    });
    const dt = performance.now() - t;
    messages = out.length;
    if (i >= 3) samples.push(dt);
  }
  return { samples, messages };
}
