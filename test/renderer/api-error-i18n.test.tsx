// Errors of calls to the main process, worded from their codes only, in every language: the real
// handler table, router and Hub (in process) refuse real calls; the renderer shows the sentence of
// the error's code (or of the Hub's own code in `cause`, with the Hub's words beside it), and a code
// it has no words for as it came. The English `message` is never what the operator reads.
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

describe('errors of calls, worded from their codes', () => {
  it('a refusal of the handlers: the code’s sentence in each language, never the message', async () => {
    const noModel = await refusal('sendMessage', {
      session_id: desk.root.defaultSessionId ?? '',
      text: 'hello',
    });
    expect(noModel.code).toBe('model_not_configured');
    expect(inLang('zh', noModel)).toBe('尚未配置模型。请在设置中配置，或手动运行工具。');
    expect(inLang('en', noModel)).toBe('No model is configured. Set one in Settings, or run a tool by hand.');

    const noSession = await refusal('getConversation', { session_id: 'ses_does_not_exist' });
    expect(noSession.code).toBe('session_not_found');
    expect(inLang('zh', noSession)).toBe('没有这个会话。');
    expect(inLang('en', noSession)).toBe('No such conversation.');
  });

  it('a payload the router refuses: the code’s sentence; the English message stays in the log', async () => {
    const bad = await refusal('sendMessage', { session_id: desk.root.defaultSessionId ?? '', text: '' });
    expect(bad.code).toBe('invalid_payload');
    expect(bad.message).toContain('text');
    expect(inLang('zh', bad)).toBe('请求无效，已被拒绝；未做任何更改。');
    expect(inLang('en', bad)).toBe('The request was refused as invalid; nothing was changed.');
  });

  it('a Hub refusal carries the Hub’s {error, message} unchanged: worded from the Hub’s code, its words beside', async () => {
    const task = await call('createTask', {
      title: 'One product',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    await call('cancelTask', { task_id: task.task_id });
    const conflict = await refusal('continueTask', { task_id: task.task_id });
    expect(conflict.code).toBe('conflict');
    expect(conflict.data.cause?.error).toBe('task_state_conflict');
    const hubWords = conflict.data.cause?.message ?? '';
    expect(hubWords.length).toBeGreaterThan(0);
    expect(inLang('zh', conflict)).toBe(`任务无法从当前状态转到该状态。原始信息：${hubWords}`);
    expect(inLang('en', conflict)).toBe(
      `The task cannot move to that state from its current one. As reported: ${hubWords}`,
    );

    const noApproval = await refusal('decideApproval', {
      approval_id: 'apr_does_not_exist',
      decision: 'approve',
    });
    expect(noApproval.code).toBe('not_found');
    expect(noApproval.data.cause?.error).toBe('approval_not_found');
    expect(inLang('zh', noApproval)).toMatch(/^Hub 上没有这个审批。/);
  });

  it('a code the router refuses before any handler (no such call)', async () => {
    const r = await desk.root.router.call('noSuchCall', {}, { transport: 'browser' });
    if (r.ok) throw new Error('expected a refusal');
    const err = new ApiError(r.error);
    expect(inLang('zh', err)).toBe('接口约定中没有这个调用。');
    expect(inLang('en', err)).toBe('No such call in the contract.');
  });

  it('an unknown code (another build of the main side) shows its message as it came, in every language', () => {
    const err = new ApiError({
      code: 'quota_exhausted' as never,
      message: 'The model plan is used up until Monday.',
    });
    expect(inLang('zh', err)).toBe(err.message);
    expect(inLang('en', err)).toBe(err.message);
    expect(apiErrorWords({ code: 'quota_exhausted', message: '' }, 'zh')).toEqual({
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
