// Errors of calls to the main process, worded from their code in the current language: the real
// handler table, router and Hub (in process) refuse real calls; the renderer shows the code's
// Chinese sentence, keeps the original message where it says more (a field, the Hub's own words),
// shows a code it has no words for as it came, and leaves the English exactly as the main process
// wrote it.
// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import React from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, call, errorText, setApi } from '../../src-renderer/src/api-client.js';
import { StorageBar } from '../../src-renderer/src/components/StorageBar.js';
import { apiErrorWords } from '../../src-renderer/src/logic/feedback-text.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import type { CallInput, CallName } from '../../src-shared/ipc/contract.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from '../app/support.js';
import { inProcessApi } from './support/in-process-api.js';

let desk: TestDesk;

beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
  setApi(inProcessApi(desk.root.router, desk.root.bus));
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);
afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
});

/** The ApiError a real call is refused with. */
async function refusal<K extends CallName>(name: K, input: CallInput<K>): Promise<ApiError> {
  try {
    await call(name, input);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error(`${name} was not refused`);
}

const inLang = (lang: 'en' | 'zh', err: unknown): string => {
  useApp.setState({ lang });
  return errorText(err);
};

describe('errors of calls, in Chinese', () => {
  it('a fixed text: the Chinese sentence only; English unchanged', async () => {
    const noModel = await refusal('sendMessage', {
      session_id: desk.root.defaultSessionId ?? '',
      text: 'hello',
    });
    expect(noModel.code).toBe('model_not_configured');
    expect(inLang('zh', noModel)).toBe('尚未配置模型。请在设置中配置，或手动运行工具。');
    expect(inLang('en', noModel)).toBe(noModel.message);

    const noSession = await refusal('getConversation', { session_id: 'ses_does_not_exist' });
    expect(noSession.code).toBe('not_found');
    expect(inLang('zh', noSession)).toBe('没有这个会话。');
    expect(inLang('en', noSession)).toBe('No such conversation.');
  });

  it('a message that says more (the field the router refused) is kept beside the sentence', async () => {
    const bad = await refusal('sendMessage', { session_id: desk.root.defaultSessionId ?? '', text: '' });
    expect(bad.code).toBe('invalid_payload');
    expect(bad.message).toContain('text');
    expect(inLang('zh', bad)).toBe(`请求无效，已被拒绝；未做任何更改。原始信息：${bad.message}`);
    expect(inLang('en', bad)).toBe(bad.message);
  });

  it('a Hub code at the head of the message is worded as that code, with the Hub’s words kept', async () => {
    const task = await call('createTask', {
      title: 'One product',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    await call('cancelTask', { task_id: task.task_id });
    const conflict = await refusal('continueTask', { task_id: task.task_id });
    expect(conflict.code).toBe('conflict');
    expect(conflict.message).toMatch(/^task_state_conflict: /);
    const zh = inLang('zh', conflict);
    expect(zh.startsWith('任务无法从当前状态转到该状态。')).toBe(true);
    expect(zh).toContain(`原始信息：${conflict.message.slice('task_state_conflict: '.length)}`);
    expect(inLang('en', conflict)).toBe(conflict.message);

    const noApproval = await refusal('decideApproval', {
      approval_id: 'apr_does_not_exist',
      decision: 'approve',
    });
    expect(noApproval.code).toBe('not_found');
    expect(inLang('zh', noApproval)).toMatch(/^Hub 上没有这个审批。/);
  });

  it('a code the router refuses before any handler (no such call)', async () => {
    const r = await desk.root.router.call('noSuchCall', {}, { transport: 'browser' });
    if (r.ok) throw new Error('expected a refusal');
    const err = new ApiError(r.error.error, r.error.message);
    expect(inLang('zh', err)).toBe('接口约定中没有这个调用。');
    expect(inLang('en', err)).toBe(r.error.message);
  });

  it('an unknown code shows its message as it came, in every language', () => {
    const err = new ApiError('quota_exhausted', 'The model plan is used up until Monday.');
    expect(inLang('zh', err)).toBe(err.message);
    expect(inLang('en', err)).toBe(err.message);
    expect(apiErrorWords('quota_exhausted', '', 'zh')).toEqual({
      text: 'quota_exhausted',
      detail: null,
      known: false,
    });
    // Something thrown that is not a call's error keeps its message.
    expect(inLang('zh', new Error('API not set'))).toBe('API not set');
  });

  it('the storage bar’s restore shows the error in Chinese, and again in English when the language changes', async () => {
    useApp.setState({ lang: 'zh' });
    render(
      <StorageBar
        sessionId="ses_does_not_exist"
        storage={{
          journal: { state: 'storage_error', unsaved_records: 0, reason: 'invocation_store_unavailable' },
          archive: { state: 'ready', unsaved_events: 0, reason: null },
        }}
      />,
    );
    await userEvent.setup().click(screen.getByRole('button', { name: '重试保存调用日志' }));
    await waitFor(
      () => screen.queryAllByRole('alert').find((a) => a.textContent === '错误：没有这个会话。'),
      5_000,
      'the Chinese error',
    );
    // The component keeps the error, not its words: an error already on screen follows the language.
    act(() => useApp.setState({ lang: 'en' }));
    await waitFor(
      () => screen.queryAllByRole('alert').find((a) => a.textContent === 'Error: No such conversation.'),
      5_000,
      'the same error, now in English',
    );
  });
});
