// A conversation through the handler table with the project's scripted model (real openai SDK,
// real tool loop): streamed text arrives as growing items, a tool call becomes a card, and the
// conversation rebuilt from the archive shows the same items. Chat without a model is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../../demo/scripted-model/index.js';
import type { CallResult, EventPayload } from '../../src-shared/ipc/contract.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let model: ScriptedModel;
let desk: TestDesk;
const items: Array<EventPayload<'conversationItem'>> = [];
const turns: Array<EventPayload<'turnState'>> = [];
const ctx = { transport: 'browser' as const };

beforeAll(async () => {
  model = await startScriptedModel({
    script: [
      {
        match: { userIncludes: 'hello' },
        reply: { text: 'Hello, operator. Nothing was sent anywhere.', chunkDelayMs: 5 },
      },
      {
        match: { userIncludes: 'find' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'product description' } }] },
      },
      { match: { afterToolResultFor: 'search_tools' }, reply: { text: 'I found the product tools.' } },
    ],
  });
  desk = await startTestDesk({ env: { BAILING_MODEL_BASE_URL: model.url, BAILING_MODEL: 'scripted' } });
  desk.root.bus.subscribe((name, payload) => {
    if (name === 'conversationItem') items.push(payload as EventPayload<'conversationItem'>);
    if (name === 'turnState') turns.push(payload as EventPayload<'turnState'>);
  });
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
  await model?.close();
}, 120_000);

describe('chat through the handler table', () => {
  it('streams the answer, shows the tool call as a card, and rebuilds the same conversation from the archive', async () => {
    const sessionId = desk.root.defaultSessionId ?? '';
    const sent = (await desk.root.router.call(
      'sendMessage',
      { session_id: sessionId, text: 'hello' },
      ctx,
    )) as CallResult<'sendMessage'>;
    expect(sent.ok).toBe(true);
    await waitFor(() => turns.some((t) => t.state === 'completed'), 15_000, 'first turn completed');
    const answer = items.filter((i) => i.item.kind === 'assistant_text');
    expect(answer.some((i) => i.item.kind === 'assistant_text' && i.item.streaming)).toBe(true);
    expect(answer.at(-1)?.item).toMatchObject({
      kind: 'assistant_text',
      text: 'Hello, operator. Nothing was sent anywhere.',
      streaming: false,
    });

    const second = (await desk.root.router.call(
      'sendMessage',
      { session_id: sessionId, text: 'find the product tools' },
      ctx,
    )) as CallResult<'sendMessage'>;
    expect(second.ok).toBe(true);
    await waitFor(
      () => turns.filter((t) => t.state === 'completed').length >= 2,
      15_000,
      'second turn completed',
    );
    expect(items.some((i) => i.item.kind === 'tool_call' && i.item.function_name === 'search_tools')).toBe(
      true,
    );

    const conv = (await desk.root.router.call(
      'getConversation',
      { session_id: sessionId },
      ctx,
    )) as CallResult<'getConversation'>;
    expect(conv.ok).toBe(true);
    if (!conv.ok) return;
    const kinds = conv.value.items.map((i) =>
      i.kind === 'tool_call'
        ? `tool:${i.function_name}`
        : i.kind === 'assistant_text'
          ? `assistant:${i.text}`
          : i.kind === 'user_message'
            ? `user:${i.text}`
            : i.kind,
    );
    expect(kinds).toEqual([
      'user:hello',
      'assistant:Hello, operator. Nothing was sent anywhere.',
      'user:find the product tools',
      'tool:search_tools',
      'assistant:I found the product tools.',
    ]);
  });

  it('refuses chat without a model, and a conversation that does not exist', async () => {
    const other = await startTestDesk();
    try {
      const r = await other.root.router.call(
        'sendMessage',
        { session_id: other.root.defaultSessionId ?? '', text: 'hello' },
        ctx,
      );
      expect(r).toMatchObject({ ok: false, error: { code: 'model_not_configured' } });
      expect(
        await other.root.router.call('sendMessage', { session_id: 'ses_nope', text: 'hello' }, ctx),
      ).toMatchObject({ ok: false, error: { code: 'session_not_found' } });
    } finally {
      await other.cleanup();
    }
  });
});
