// What the provider did in a turn, as the conversation shows it, built by the real main-process
// item builders from archive events: reasoning collapsed under "Thinking", a reply that broke off
// (worded from its code, the provider's words beside it), each retry wait (the provider's own or
// our backoff), and the tokens a turn used — in English and Chinese.
// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { conversationItems } from '../../src-main/handlers/conversation.js';
import type { ArchiveEvent } from '../../src-main/runtime/desk-runtime.js';
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import { ConversationView } from '../../src-renderer/src/components/ConversationView.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useSessions } from '../../src-renderer/src/store/sessions.js';

const T0 = '2026-01-01T09:00:00.000Z';
let seq = 0;
const ev = (payload: Record<string, unknown>): ArchiveEvent => {
  seq += 1;
  return { seq, eventId: `e${seq}`, sessionId: 's1', turnId: 't1', at: T0, ...payload } as ArchiveEvent;
};
const summary = {
  session_id: 's1',
  title: 'Providers',
  created_at: T0,
  updated_at: T0,
  task_id: null,
  members: [],
  availability: 'open' as const,
  availability_reason: null,
  availability_ref: null,
  turn_running: false,
};
const show = (items: ConversationItem[]) => {
  useSessions.setState({
    sessions: [summary],
    currentId: 's1',
    conversations: { s1: { items, storage: null, loaded: true } },
  });
  render(<ConversationView />);
};
afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
  useSessions.setState({ sessions: [], currentId: null, conversations: {} });
});

const turn = conversationItems([
  ev({ kind: 'user_message', text: 'Update product 42.' }),
  ev({
    kind: 'model_retry',
    messageId: 'm1',
    attempt: 1,
    maxAttempts: 4,
    waitMs: 12_000,
    reason: 'rate_limited',
    status: 429,
    fromProvider: true,
  }),
  ev({
    kind: 'model_retry',
    messageId: 'm1',
    attempt: 2,
    maxAttempts: 4,
    waitMs: 700,
    reason: 'server_error',
    status: 503,
    fromProvider: false,
  }),
  ev({
    kind: 'assistant_message',
    messageId: 'm1',
    text: '',
    finish: 'tool_calls',
    reasoning: { field: 'reasoning_content', text: 'The operator wants product 42 changed; search first.' },
  }),
  ev({
    kind: 'assistant_message',
    messageId: 'm2',
    text: 'Updated produc',
    finish: 'interrupted',
    interruption: {
      code: 'model_stream_interrupted',
      detail: 'The server had an error while processing your request.',
    },
  }),
  ev({
    kind: 'turn_ended',
    turnId: 't1',
    outcome: 'failed',
    error: 'model_stream_interrupted: The server had an error while processing your request.',
    usage: {
      prompt_tokens: 1234,
      completion_tokens: 56,
      total_tokens: 1290,
      reasoning_tokens: 20,
      requests: 2,
    },
  }),
]);

describe('provider facts in the conversation', () => {
  it('English: Thinking collapsed (opens to the reasoning), the break-off and why, each wait, the turn’s tokens', () => {
    show(turn);
    const thinking = screen.getByTestId('thinking');
    expect(thinking.tagName).toBe('DETAILS');
    expect(thinking.hasAttribute('open')).toBe(false);
    expect(thinking.querySelector('summary')?.textContent).toBe('Thinking');
    fireEvent.click(thinking.querySelector('summary') as Element);
    expect(screen.getByTestId('thinking-text').textContent).toBe(
      'The operator wants product 42 changed; search first.',
    );
    expect(screen.getByTestId('reply-interrupted').textContent).toBe(
      'The reply broke off mid-stream; what arrived is kept and none of its tool calls ran.As reported: The server had an error while processing your request.',
    );
    expect(screen.getAllByTestId('model-retry').map((e) => e.textContent)).toEqual([
      'The provider asked us to wait 12 s — retrying (attempt 1 of 4).',
      'The provider answered with a server error (HTTP 503) — retrying in 0.7 s (attempt 2 of 4).',
    ]);
    expect(screen.getByTestId('turn-usage').textContent).toBe(
      'Tokens this turn: 1,234 in · 56 out · 1,290 total (of which 20 thinking)',
    );
  });

  it('Chinese: the same facts in Chinese', () => {
    useApp.setState({ lang: 'zh' });
    show(turn);
    expect(screen.getByTestId('thinking').querySelector('summary')?.textContent).toBe('思考过程');
    expect(screen.getAllByTestId('model-retry')[0]?.textContent).toBe(
      '服务商要求等待 12 秒——正在重试（第 1 次，共 4 次）。',
    );
    expect(screen.getByTestId('turn-usage').textContent).toBe(
      '本轮 token：输入 1,234 · 输出 56 · 共 1,290（其中思考 20）',
    );
    expect(screen.getByTestId('reply-interrupted').textContent).toContain('回复在流式传输中途中断');
  });

  it('an assistant message with only reasoning shows Thinking and no empty answer; no usage item without usage', () => {
    const items = conversationItems([
      ev({
        kind: 'assistant_message',
        messageId: 'm9',
        text: '',
        finish: 'tool_calls',
        reasoning: { field: 'reasoning', text: 'Plan.' },
      }),
      ev({ kind: 'assistant_message', messageId: 'm10', text: '', finish: 'tool_calls' }),
      ev({ kind: 'turn_ended', turnId: 't1', outcome: 'completed', error: null }),
    ]);
    expect(items.map((i) => i.kind)).toEqual(['assistant_text']);
    show(items);
    expect(screen.getByTestId('thinking')).toBeTruthy();
    expect(screen.queryByText(/Assistant:/)).toBeNull();
    expect(screen.queryByTestId('turn-usage')).toBeNull();
  });
});
