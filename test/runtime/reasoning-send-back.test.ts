/**
 * The per-provider setting "send reasoning back" (src-shared/model-providers.ts) decides what the
 * rebuilt history carries: `never` — no reasoning at all (a plain server); `tool_call_turns` —
 * every assistant message of a turn in which the model called tools, '' where none was archived
 * (DeepSeek's documented rule), nothing for a turn without tool calls; `always` — each message
 * that has some, in the field it came in.
 */
import { describe, expect, it } from 'vitest';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { eventsToMessages } from '../../src-main/runtime/conversation.js';
import type { ArchiveEvent } from '../../src-main/runtime/desk-runtime.js';
import type { HistoryOptions } from '../../src-main/runtime/model-client.js';

const at = '2026-12-01T10:00:00.000Z';
let seq = 0;
const ev = (turnId: string, payload: Record<string, unknown>): ArchiveEvent =>
  ({ seq: ++seq, eventId: `evt_${seq}`, sessionId: 'ses_r', turnId, at, ...payload }) as ArchiveEvent;

const callId = 'call_0123456789abcdefghijklmn';
/** Turn 1 calls a tool (reasoning on its first message only); turn 2 only chats, with reasoning in `reasoning`. */
const events: ArchiveEvent[] = [
  ev('turn_1', { kind: 'turn_started', turnId: 'turn_1' }),
  ev('turn_1', { kind: 'user_message', text: 'Edit product 42.' }),
  ev('turn_1', {
    kind: 'assistant_message',
    messageId: 'msg_1a',
    text: '',
    finish: 'tool_calls',
    reasoning: { field: 'reasoning_content', text: 'I will edit product 42.' },
  }),
  ev('turn_1', {
    kind: 'tool_call',
    callId: `turn_1.0.${callId}`,
    providerCallId: callId,
    index: 0,
    messageId: 'msg_1a',
    functionName: 'auth_shop_a__update_product_content',
    argumentsText: '{"product_id":42,"description":"x"}',
    target: null,
  }),
  ev('turn_1', {
    kind: 'tool_result',
    callId: `turn_1.0.${callId}`,
    functionName: 'auth_shop_a__update_product_content',
    content: '{"state":"succeeded"}',
    feedback: null,
    invocation_id: 'inv_1',
    state: 'succeeded',
    effect: 'write',
  }),
  ev('turn_1', { kind: 'assistant_message', messageId: 'msg_1b', text: 'Done.', finish: 'stop' }),
  ev('turn_1', { kind: 'turn_ended', turnId: 'turn_1', outcome: 'completed', error: null }),
  ev('turn_2', { kind: 'turn_started', turnId: 'turn_2' }),
  ev('turn_2', { kind: 'user_message', text: 'Thanks.' }),
  ev('turn_2', {
    kind: 'assistant_message',
    messageId: 'msg_2a',
    text: 'You are welcome.',
    finish: 'stop',
    reasoning: { field: 'reasoning', text: 'Just a thank-you.' },
  }),
  ev('turn_2', { kind: 'turn_ended', turnId: 'turn_2', outcome: 'completed', error: null }),
];

/** Per assistant message: its reasoning fields as sent. */
function reasoningSent(history: HistoryOptions) {
  const out = eventsToMessages(events, 'sys', undefined, () => null, history);
  return out
    .filter((m): m is Extract<ChatCompletionMessageParam, { role: 'assistant' }> => m.role === 'assistant')
    .map((m) => {
      const r = m as unknown as Record<string, unknown>;
      return { reasoning_content: r.reasoning_content, reasoning: r.reasoning };
    });
}

describe('reasoning sent back, per the provider setting', () => {
  it('never: no assistant message carries any', () => {
    expect(reasoningSent({ reasoningSendBack: 'never', reasoningField: 'reasoning_content' })).toEqual([
      { reasoning_content: undefined, reasoning: undefined },
      { reasoning_content: undefined, reasoning: undefined },
      { reasoning_content: undefined, reasoning: undefined },
    ]);
  });

  it('tool_call_turns: every message of the tool-call turn (empty where none was archived), none for the chat turn', () => {
    expect(
      reasoningSent({ reasoningSendBack: 'tool_call_turns', reasoningField: 'reasoning_content' }),
    ).toEqual([
      { reasoning_content: 'I will edit product 42.', reasoning: undefined },
      { reasoning_content: '', reasoning: undefined },
      { reasoning_content: undefined, reasoning: undefined },
    ]);
  });

  it('always: each message that has some, in the field it came in', () => {
    expect(reasoningSent({ reasoningSendBack: 'always', reasoningField: 'reasoning_content' })).toEqual([
      { reasoning_content: 'I will edit product 42.', reasoning: undefined },
      { reasoning_content: undefined, reasoning: undefined },
      { reasoning_content: undefined, reasoning: 'Just a thank-you.' },
    ]);
  });
});
