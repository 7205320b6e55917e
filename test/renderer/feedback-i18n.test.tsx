// Feedback and notices in the current language, from their structured fields. Every code the Hub
// (HUB_ERROR_CODES, TASK_REFUSAL_CODES), the journal (JOURNAL_ERROR_CODES) and the host runtime can
// put on a call, every code a conversation notice carries (NOTICE_CODES and the codes a turn ends
// with) and every error code a call to the main process can return (APP_ERROR_CODES, the
// router's and the transports' own included) has words in both catalogs, so a new code cannot
// silently fall back to English.
// The feedback objects and conversation items below are built by the real main-process and Hub
// code (feedback builders, the permit policy, the conversation item builder): each is worded from
// its code only; the words the code cannot carry (the Hub's, a business system's or an OS's own)
// travel as a separate `detail` shown beside the sentence, and an unknown code shows its original
// message as it came.
// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import React from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { evaluatePermit } from '../../src-hub/tasks/policy.js';
import type { PermitSnapshot } from '../../src-hub/store/types.js';
import {
  conversationItems,
  INTERRUPTED_FEEDBACK,
  NOTICE_CODES,
} from '../../src-main/handlers/conversation.js';
import { HubClientError } from '../../src-main/hub-client/index.js';
import { JournalError, JOURNAL_ERROR_CODES } from '../../src-main/journal/errors.js';
import type { ArchiveEvent } from '../../src-main/runtime/desk-runtime.js';
import { MODEL_ERROR_CODES } from '../../src-main/runtime/model/model-errors.js';
import type { Feedback } from '../../src-main/runtime/invocation-ports.js';
import {
  bindingFeedback,
  notDispatchedFeedback,
  notFoundFeedback,
  offlineFeedback,
  outcomeUnknownFeedback,
  storageFeedback,
  unsupportedFeedback,
} from '../../src-main/runtime/recovery/feedback.js';
import { HUB_ERROR_CODES } from '../../src-shared/hub-api.js';
import { APP_ERROR_CODES } from '../../src-shared/errors.js';
import type { ConversationItem, InvocationActionView, UnresolvedItem } from '../../src-shared/ipc/views.js';
import { NOT_SENT_REASON_CODES, OUTCOME_REASON_CODES, TASK_REFUSAL_CODES } from '../../src-shared/states.js';
import { NO_RESPONSE_CODE, NOT_SENT_CODE } from '../../src-hub/invocations/reason-codes.js';
import { ConversationView } from '../../src-renderer/src/components/ConversationView.js';
import { IdlePanel } from '../../src-renderer/src/components/IdlePanel.js';
import { StorageBar } from '../../src-renderer/src/components/StorageBar.js';
import { ActionResult, ToolCallCard } from '../../src-renderer/src/components/ToolCallCard.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import {
  apiErrorWords,
  codeKey,
  feedbackWords,
  noticeWords,
  reasonText,
} from '../../src-renderer/src/logic/feedback-text.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useSessions } from '../../src-renderer/src/store/sessions.js';
import { useUnresolved } from '../../src-renderer/src/store/unresolved.js';

const EN: Record<string, string> = en;
const ZH: Record<string, string> = zh;

afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
});

/** Codes without words in both languages (named, so the failure says which). */
function untranslated(codes: readonly string[]): string[] {
  return codes.filter((c) => {
    const key = codeKey(c);
    return key === null || !EN[key] || !ZH[key] || ZH[key] === EN[key];
  });
}

/** Every .ts file under a directory, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const ROOT = resolve(import.meta.dirname, '../..');

describe('every code has words', () => {
  it('each Hub error code (HUB_ERROR_CODES)', () => {
    expect(
      untranslated(HUB_ERROR_CODES),
      'Hub error codes without a code.<code> key in en.ts and zh.ts',
    ).toEqual([]);
  });

  it('each task refusal code (TASK_REFUSAL_CODES)', () => {
    expect(
      untranslated(TASK_REFUSAL_CODES),
      'task refusal codes without a code.<code> key in en.ts and zh.ts',
    ).toEqual([]);
  });

  it('each reason a call was not sent (NOT_SENT_REASON_CODES)', () => {
    expect(
      untranslated(NOT_SENT_REASON_CODES),
      'not-sent reason codes without a code.<code> key in en.ts and zh.ts',
    ).toEqual([]);
  });

  it('each reason a sent call ended as it did (OUTCOME_REASON_CODES)', () => {
    expect(
      untranslated(OUTCOME_REASON_CODES),
      'outcome reason codes without a code.<code> key in en.ts and zh.ts',
    ).toEqual([]);
  });

  it('every code the Hub records for a dispatch result is a listed, worded code', () => {
    expect(untranslated(Object.values(NOT_SENT_CODE))).toEqual([]);
    expect(untranslated(Object.values(NO_RESPONSE_CODE))).toEqual([]);
    for (const c of Object.values(NOT_SENT_CODE)) expect(NOT_SENT_REASON_CODES).toContain(c);
    for (const c of Object.values(NO_RESPONSE_CODE)) expect(OUTCOME_REASON_CODES).toContain(c);
  });

  it('each journal error code (storage feedback)', () => {
    expect(untranslated(JOURNAL_ERROR_CODES)).toEqual([]);
  });

  it('each code the host runtime writes on a feedback, and each code a turn ends with', () => {
    const feedbackCodes = new Set<string>();
    const turnCodes = new Set<string>();
    const files = [
      ...sources(join(ROOT, 'src-main/runtime')),
      join(ROOT, 'src-main/handlers/conversation.ts'),
    ];
    for (const f of files) {
      const src = readFileSync(f, 'utf8');
      const patterns = [
        /\brefuse\(\s*'[a-z_]+',\s*'([a-z_]+)'/g, // tool-executor: refuse(category, code, …)
        /\bhostFeedback\(\s*'[a-z_]+',\s*'([a-z_]+)'/g,
        /\bnotDispatchedFeedback\(\s*'([a-z_]+)'/g,
        /\bbindingFeedback\(\s*'([a-z_]+)'/g,
        /(?<!readonly )\bcode: '([a-z_]+)'/g, // object literals ({ category, code: '…', … })
        /\?\? '([a-z_]+)',\s*`The session's scope/g, // scopeUnavailable's fallback code
        /r\.reason_code \?\? '([a-z_]+)'/g,
      ];
      // conversation.ts also writes notice codes (checked as notice.<code> below), not feedback codes.
      const noticeOnly = (c: string) =>
        f.endsWith('conversation.ts') && (NOTICE_CODES as readonly string[]).includes(c);
      for (const re of patterns)
        for (const m of src.matchAll(re)) if (!noticeOnly(m[1] ?? '')) feedbackCodes.add(m[1] ?? '');
      for (const m of src.matchAll(/\berror(?: =|:) '([a-z_]+)'/g)) turnCodes.add(m[1] ?? '');
      for (const m of src.matchAll(/\berror(?: =|:) `([a-z_]+): /g)) turnCodes.add(m[1] ?? '');
    }
    // The scan must see the codes it is meant to see (so it cannot pass by matching nothing).
    expect([...feedbackCodes]).toEqual(
      expect.arrayContaining([
        'turn_cancelled',
        'tool_not_loaded',
        'interrupted',
        'cancelled_after_send',
        'scope_unavailable',
      ]),
    );
    expect([...turnCodes]).toEqual(
      expect.arrayContaining([
        'archive_storage_error',
        'step_limit_reached',
        'model_reply_truncated',
        'run_end_failed',
      ]),
    );
    // A failed model request ends the turn with one of the model client's codes.
    for (const c of MODEL_ERROR_CODES) turnCodes.add(c);
    expect(untranslated([...feedbackCodes]), 'runtime feedback codes without words').toEqual([]);
    expect(
      [...turnCodes].filter((c) => !EN[`notice.${c}`] || !ZH[`notice.${c}`]),
      'turn error codes without a notice.<code> key',
    ).toEqual([]);
  });

  it('each code a conversation notice carries (NOTICE_CODES)', () => {
    expect(NOTICE_CODES.length).toBeGreaterThan(5);
    const missing = NOTICE_CODES.filter(
      (c) => !EN[`notice.${c}`] || !ZH[`notice.${c}`] || ZH[`notice.${c}`] === EN[`notice.${c}`],
    );
    expect(missing, 'notice codes without a notice.<code> key in en.ts and zh.ts').toEqual([]);
  });

  it('each error code a call to the main process can return (APP_ERROR_CODES), and only those are sent', () => {
    const sent = new Set<string>();
    const scan = (files: string[], re: RegExp) => {
      for (const f of files) for (const m of readFileSync(f, 'utf8').matchAll(re)) sent.add(m[1] ?? '');
    };
    // AppError codes thrown anywhere in the main process (handlers, router, runtime, settings, …).
    scan(sources(join(ROOT, 'src-main')), /\bnew AppError\(\s*'([a-z_]+)'/g);
    // Errors the transports and the error mapping answer a call with themselves ({ code: '…', message }).
    scan(
      [
        ...sources(join(ROOT, 'src-main/app')),
        ...sources(join(ROOT, 'src-main/browser-host')),
        join(ROOT, 'src-main/handlers/errors.ts'),
        join(ROOT, 'src-renderer/src/transport/ws-client.ts'),
      ],
      /\bcode: '([a-z_]+)'/g,
    );
    sent.delete('');
    // The scan must see what it is meant to see (so it cannot pass by matching nothing).
    expect([...sent]).toEqual(
      expect.arrayContaining([
        'invalid_payload',
        'unknown_channel',
        'payload_too_large',
        'forbidden_sender',
        'keychain_unavailable',
        'session_not_found',
        'turn_in_progress',
        'host_unavailable',
        'launch_token_rejected',
        'launch_token_missing',
      ]),
    );
    expect(
      [...sent].filter((c) => !(APP_ERROR_CODES as readonly string[]).includes(c)),
      'codes sent that are not in APP_ERROR_CODES',
    ).toEqual([]);
    const missing = APP_ERROR_CODES.filter(
      (c) => !EN[`apiError.${c}`] || !ZH[`apiError.${c}`] || ZH[`apiError.${c}`] === EN[`apiError.${c}`],
    );
    expect(missing, 'error codes without an apiError.<code> key in en.ts and zh.ts').toEqual([]);
    // Each is worded in Chinese from its code, whatever its message says.
    expect(
      APP_ERROR_CODES.filter(
        (code) => !apiErrorWords({ code, message: 'Some new words from the main process.' }, 'zh').known,
      ),
    ).toEqual([]);
  });

  it('the reasons a session scope is blocked or offline with (they become a refusal code)', () => {
    // ScopeCheck (invocation-ports.ts), sessions/scope-availability.ts and scope/revalidate.ts.
    const reasons = [
      'authorization_revoked',
      'authorization_rebound',
      'authorization_missing',
      'binding_conflict',
      'scope_missing',
      'scope_check_failed',
      'hub_unreachable',
      'hub_timeout',
      'hub_network',
      'hub_http_error',
    ];
    expect(untranslated(reasons)).toEqual([]);
  });

  it('the codes the outcome-unknown feedback derives from a transport failure', () => {
    const codes = (['timeout', 'network', 'aborted', 'invalid_response'] as const).map(
      (kind) =>
        outcomeUnknownFeedback(
          new HubClientError(kind, null, null, 'x', 'POST', '/agent/v1/invocations'),
          'inv_1',
        ).code,
    );
    codes.push(
      outcomeUnknownFeedback(new HubClientError('http', 502, null, 'bad gateway', 'POST', '/x'), 'inv_1')
        .code,
    );
    codes.push(outcomeUnknownFeedback(new Error('boom'), 'inv_1').code);
    expect(codes).toEqual([
      'hub_timeout',
      'hub_network',
      'hub_aborted',
      'hub_invalid_response',
      'hub_http_error',
      'hub_error',
    ]);
    expect(untranslated(codes)).toEqual([]);
  });
});

// ---------- the main process's fixed texts say nothing more than their code ----------

describe('feedback the main process writes alone is worded from its code, with no detail', () => {
  const fixed: Feedback[] = [
    storageFeedback(new JournalError('invocation_store_unavailable', 'disk I/O error'), 'inv_1'),
    storageFeedback(new JournalError('invocation_record_corrupt', 'bad'), 'inv_1'),
    bindingFeedback('invocation_binding_unavailable', 'inv_1'),
    bindingFeedback('invocation_binding_conflict', 'inv_1'),
    unsupportedFeedback('inv_1'),
    notFoundFeedback('inv_1'),
    outcomeUnknownFeedback(new HubClientError('timeout', null, null, 'timed out', 'POST', '/x'), 'inv_1'),
    INTERRUPTED_FEEDBACK,
  ];
  it.each(fixed.map((f) => [f.code, f] as const))('%s: the sentence only, in each language', (_code, f) => {
    const words = feedbackWords(f, 'zh');
    expect(words.known).toBe(true);
    expect(words.detail).toBeNull();
    expect(words.text).toMatch(/[\u4e00-\u9fff]/);
    expect(feedbackWords(f, 'en')).toEqual({ text: feedbackWords(f, 'en').text, detail: null, known: true });
  });

  it('the outcome-unknown feedback leads with the outcome and names its cause', () => {
    const f = outcomeUnknownFeedback(
      new HubClientError('timeout', null, null, 'timed out', 'POST', '/x'),
      'inv_1',
    );
    expect(feedbackWords(f, 'en').text).toBe(
      `${EN['feedback.outcomeUnknown']} Cause: The Hub did not answer in time.`,
    );
    expect(feedbackWords(f, 'zh').text).toBe(
      '请求已发送，但没有收到确认的答复，它可能已经执行。请查看原始调用，不要再次发送。原因：Hub 未能及时应答。',
    );
  });
});

// ---------- cards in Chinese ----------

const T0 = '2026-01-01T09:00:00.000Z';
let seq = 0;
const ev = (payload: Record<string, unknown>): ArchiveEvent => {
  seq += 1;
  return { seq, eventId: `e${seq}`, sessionId: 's1', turnId: 't1', at: T0, ...payload } as ArchiveEvent;
};
const target = {
  hub_id: 'hub_1',
  authorization_ref: 'auth-shop-a',
  system_id: 'shop-a',
  system_name: 'Shop A',
  account: 'homeware',
  tool: 'update_product',
  declaration_revision: 'r1',
};

/** The conversation items the main process builds for one governed call that ended with `feedback`. */
function cardWith(
  feedback: Feedback,
  state: string,
  invocationId: string | null,
): Extract<ConversationItem, { kind: 'tool_call' }> {
  const callId = `call_${seq}`;
  const items = conversationItems([
    ev({ kind: 'tool_call', callId, functionName: 'shop_a__update_product', argumentsText: '{}', target }),
    ev({
      kind: 'tool_result',
      callId,
      functionName: 'shop_a__update_product',
      content: '{}',
      feedback,
      invocation_id: invocationId,
      state,
      effect: 'write',
    }),
  ]);
  const card = items.find((i) => i.kind === 'tool_call');
  if (card?.kind !== 'tool_call') throw new Error('no card');
  return card;
}

/** The Hub's own refusal for a call under a task in this state (the real permit policy). */
function hubRefusal(task: { state: string; writes_used: number; write_budget: number }): Feedback {
  const snap = {
    task: {
      state: task.state,
      writes_used: task.writes_used,
      boundary: { expires_at: null, write_budget: task.write_budget, in_flight_limit: 2, rate_limit: null },
    },
    in_flight: 0,
    used_in_window: 0,
    window_start_ms: 0,
    window_end_ms: 0,
  } as unknown as PermitSnapshot;
  const d = evaluatePermit(snap, 'write', Date.parse(T0));
  if (d.ok) throw new Error('expected a refusal');
  // As dispatch-fence.ts turns a not_dispatched receipt (reason_code, reason_message) into feedback.
  return notDispatchedFeedback(d.code, d.message, 'wait', 'inv_refused_1', true, d.message);
}

describe('a tool card in Chinese', () => {
  it('task_paused: the Chinese sentence from the code; code and state stay; the Hub’s words only as the detail', () => {
    const f = hubRefusal({ state: 'paused', writes_used: 0, write_budget: 3 });
    expect(f.code).toBe('task_paused');
    useApp.setState({ lang: 'zh' });
    render(<ToolCallCard item={cardWith(f, 'not_dispatched', 'inv_refused_1')} sessionId="s1" />);
    const card = screen.getByTestId('tool-card');
    expect(within(card).getByTestId('tool-card-state').textContent).toBe('未派发');
    expect(within(card).getByTestId('feedback-text').textContent).toBe(
      '任务已暂停；在继续之前不会再派发任何调用。',
    );
    expect(within(card).getByTestId('feedback-detail').textContent).toBe(`原始信息：${f.detail}`);
  });

  it('budget_exhausted: the Chinese sentence, and the Hub’s message with the budget kept beside it', () => {
    const f = hubRefusal({ state: 'active', writes_used: 3, write_budget: 3 });
    expect(f.code).toBe('budget_exhausted');
    useApp.setState({ lang: 'zh' });
    render(<ToolCallCard item={cardWith(f, 'not_dispatched', 'inv_refused_1')} sessionId="s1" />);
    expect(screen.getByTestId('feedback-text').textContent).toBe(
      '此任务的写入预算已用完，后续写入将被拒绝。',
    );
    const detail = screen.getByTestId('feedback-detail');
    expect(detail.textContent).toBe(`原始信息：${f.detail}`);
    expect(f.detail).toContain('(3)');
    expect(detail.querySelector('[lang="en"]')?.textContent).toBe(f.detail);
  });

  it('in English the same cards are worded from the same codes, with the same details', () => {
    const paused = hubRefusal({ state: 'paused', writes_used: 0, write_budget: 3 });
    const budget = hubRefusal({ state: 'active', writes_used: 3, write_budget: 3 });
    render(<ToolCallCard item={cardWith(paused, 'not_dispatched', 'inv_a')} sessionId="s1" />);
    render(<ToolCallCard item={cardWith(budget, 'not_dispatched', 'inv_b')} sessionId="s1" />);
    expect(screen.getAllByTestId('feedback-text').map((e) => e.textContent)).toEqual([
      'The task is paused; no further calls are dispatched until it continues.',
      'The task’s write budget is spent; further writes are refused.',
    ]);
    expect(screen.getAllByTestId('feedback-detail').map((e) => e.textContent)).toEqual([
      `As reported: ${paused.detail}`,
      `As reported: ${budget.detail}`,
    ]);
    expect(screen.getAllByTestId('tool-card-state').map((e) => e.textContent)).toEqual([
      'Not dispatched',
      'Not dispatched',
    ]);
  });

  it('a call interrupted by a crash reads in Chinese without the code beside the sentence', () => {
    useApp.setState({ lang: 'zh' });
    render(<ToolCallCard item={cardWith(INTERRUPTED_FEEDBACK, 'unknown', 'inv_i1')} sessionId="s1" />);
    const feedback = screen.getByTestId('feedback');
    expect(feedback.textContent).toBe(zh['code.interrupted']);
    expect(feedback.textContent).not.toContain('interrupted');
    expect(feedback.dataset.code).toBe('interrupted');
  });

  it('a storage error keeps its OS detail next to the Chinese sentence', () => {
    const base = storageFeedback(new JournalError('invocation_store_unavailable', 'x'), 'inv_s1');
    const osDetail = "EACCES: permission denied, open '/home/u/.bailing/journal/s1.db'";
    const f = { ...base, detail: osDetail };
    useApp.setState({ lang: 'zh' });
    render(<ToolCallCard item={cardWith(f, 'unknown', 'inv_s1')} sessionId="s1" />);
    expect(screen.getByTestId('feedback-text').textContent).toBe(
      '本地调用日志无法保存或读取。请先恢复本地持久化（restore_invocations）。这并不能说明业务操作是否已执行。',
    );
    expect(screen.getByTestId('feedback-detail').textContent).toContain(osDetail);
    // Without a detail there is nothing beside the sentence.
    cleanup();
    render(<ToolCallCard item={cardWith(base, 'unknown', 'inv_s1')} sessionId="s1" />);
    expect(screen.queryByTestId('feedback-detail')).toBeNull();
  });

  it('an unknown code shows its original message as it came, in every language', () => {
    const f = notDispatchedFeedback(
      'warehouse_closed_for_inventory',
      'Warehouse 3 is closed for stocktaking until 14:00.',
      'none',
      'inv_u1',
    );
    for (const lang of ['zh', 'en'] as const) {
      useApp.setState({ lang });
      render(<ToolCallCard item={cardWith(f, 'not_dispatched', 'inv_u1')} sessionId="s1" />);
      expect(screen.getByTestId('feedback').textContent).toBe(`warehouse_closed_for_inventory: ${f.message}`);
      cleanup();
    }
    expect(feedbackWords(f, 'zh')).toEqual({ text: f.message, detail: null, known: false });
  });

  it('a Hub error with the Hub’s own words (read failed) keeps them', () => {
    const err = new HubClientError(
      'http',
      409,
      'run_ended',
      'run run_9 no longer accepts invocations',
      'POST',
      '/x',
    );
    const f = notDispatchedFeedback('run_ended', err.message, 'start_new_turn', 'inv_r1', false, err.message);
    const words = feedbackWords(f, 'zh');
    expect(words).toEqual({
      text: '该运行已结束，不再接受调用；请开始新一轮对话。',
      detail: err.message,
      known: true,
    });
    expect(feedbackWords(f, 'en')).toEqual({
      text: 'The run has ended and accepts no more calls; start a new turn.',
      detail: err.message,
      known: true,
    });
  });

  it('a code is looked up as it is: nothing is split off or pattern-matched', () => {
    expect(codeKey('authorization_revoked')).toBe('code.authorization_revoked');
    expect(codeKey('authorization_revoked:auth-shop-a')).toBeNull();
    expect(codeKey('http_404')).toBeNull();
    expect(codeKey('hub_http_error')).toBe('code.hub_http_error');
  });
});

// ---------- the idle panel ----------

const unresolved = (over: Partial<UnresolvedItem> = {}): UnresolvedItem => ({
  invocation_id: 'inv_lost_1',
  session_id: 's1',
  session_title: '演示',
  tool: 'update_product',
  authorization_ref: 'auth-shop-a',
  hub_state: 'unknown',
  journal_entry_state: 'unknown',
  journal_state: 'ready',
  archive_state: 'ready',
  unsaved: false,
  unsaved_reason: null,
  can_inspect: true,
  can_resume: true,
  can_attest: true,
  updated_at: T0,
  ...over,
});

describe('the idle panel in Chinese', () => {
  // jsdom has no layout: give the idle list's scroll box a size, as a browser would.
  const realRect = HTMLElement.prototype.getBoundingClientRect;
  const SIZE_PROPS = ['offsetHeight', 'clientHeight', 'offsetWidth', 'clientWidth'] as const;
  const realProps = SIZE_PROPS.map(
    (p) => [p, Object.getOwnPropertyDescriptor(HTMLElement.prototype, p)] as const,
  );
  const sized = (el: HTMLElement, px: number) => (el.dataset.testid === 'idle-list' ? px : 0);
  beforeAll(() => {
    HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
      if (this.dataset.testid === 'idle-list')
        return {
          x: 0,
          y: 0,
          top: 0,
          left: 0,
          right: 900,
          bottom: 640,
          width: 900,
          height: 640,
          toJSON: () => ({}),
        } as DOMRect;
      return realRect.call(this);
    };
    for (const prop of ['offsetHeight', 'clientHeight'] as const) {
      Object.defineProperty(HTMLElement.prototype, prop, {
        configurable: true,
        get(this: HTMLElement) {
          return sized(this, 640);
        },
      });
    }
    for (const prop of ['offsetWidth', 'clientWidth'] as const) {
      Object.defineProperty(HTMLElement.prototype, prop, {
        configurable: true,
        get(this: HTMLElement) {
          return sized(this, 900);
        },
      });
    }
  });
  afterAll(() => {
    HTMLElement.prototype.getBoundingClientRect = realRect;
    for (const [prop, desc] of realProps) {
      if (desc) Object.defineProperty(HTMLElement.prototype, prop, desc);
      else delete (HTMLElement.prototype as unknown as Record<string, unknown>)[prop];
    }
  });

  it('a row whose outcome is unknown, and its inspect result with the outcome-unknown feedback', () => {
    useApp.setState({ lang: 'zh' });
    useUnresolved.getState().set([unresolved()]);
    render(<IdlePanel />);
    const row = screen.getByTestId('idle-row');
    expect(row.textContent).toContain('结果待核查');
    expect(within(row).getByRole('button', { name: '查看' })).toBeTruthy();
    cleanup();

    // What the row shows after Inspect when the Hub still gives no confirmed answer.
    const result: InvocationActionView = {
      action: 'inspect',
      invocation_id: 'inv_lost_1',
      journal_state: 'ready',
      resume_dispatched: false,
      receipt: null,
      feedback: (({ category, code, message, next_action, detail }) => ({
        category,
        code,
        message,
        next_action,
        detail: detail ?? null,
      }))(
        outcomeUnknownFeedback(
          new HubClientError('network', null, null, 'socket hang up', 'GET', '/x'),
          'inv_lost_1',
        ),
      ),
      unsaved_records: 0,
    };
    render(<ActionResult result={result} />);
    const status = screen.getByRole('status');
    expect(screen.getByTestId('action-state').textContent).toBe('结果待核查');
    // a code the renderer has words for is not shown in the sentence (it stays on the element)
    expect(screen.getByTestId('feedback').textContent).toBe(
      '请求已发送，但没有收到确认的答复，它可能已经执行。请查看原始调用，不要再次发送。原因：与 Hub 的连接失败。',
    );
    expect(screen.getByTestId('feedback').dataset.code).toBe('hub_network');
    expect(screen.getByTestId('action-next').textContent).toBe('下一步: 查看原始调用');
    expect(status.textContent).not.toMatch(/[A-Za-z]{4,} [A-Za-z]{4,}/); // no English sentence left
  });

  it('the Hub unreachable on inspect: the Chinese sentence, and the reason kept', () => {
    const f = offlineFeedback('hub_timeout', 'inv_lost_1');
    const words = feedbackWords(f, 'zh');
    expect(words.text).toBe('无法连接 Hub，尚无任何结论。请在 Hub 恢复后重试。');
    expect(words.detail).toBe('hub_timeout');
  });
});

// ---------- notices ----------

describe('conversation notices', () => {
  const summary = {
    session_id: 's1',
    title: '演示',
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
    return screen.getAllByTestId('notice').map((e) => e.textContent);
  };
  afterEach(() => useSessions.setState({ sessions: [], currentId: null, conversations: {} }));

  it('a turn that ended with a code is worded from it; the model server’s words are kept beside it', () => {
    const items = conversationItems([
      ev({ kind: 'turn_ended', turnId: 't1', outcome: 'failed', error: 'step_limit_reached', detail: null }),
      ev({
        kind: 'turn_ended',
        turnId: 't2',
        outcome: 'failed',
        error: 'model_error',
        detail: 'connect ECONNREFUSED 127.0.0.1:11434',
      }),
      ev({
        kind: 'turn_ended',
        turnId: 't3',
        outcome: 'refused',
        error: 'archive_storage_error',
        detail: null,
      }),
      // An archive written before the detail was stored apart: `code: words` in one string.
      ev({
        kind: 'turn_ended',
        turnId: 't4',
        outcome: 'failed',
        error: 'model_error: connect ECONNREFUSED 127.0.0.1:11434',
      }),
    ]);
    useApp.setState({ lang: 'zh' });
    expect(show(items)).toEqual([
      '本轮已停止：已达到每轮模型请求次数上限。',
      '模型请求失败。原始信息：connect ECONNREFUSED 127.0.0.1:11434',
      '会话存档无法保存本轮内容，本轮已停止。未保存的内容会保留，并在存储恢复后保存。',
      '模型请求失败。原始信息：connect ECONNREFUSED 127.0.0.1:11434',
    ]);
  });

  it('each notice code in Chinese, with its invocation id and detail', () => {
    const items = conversationItems([
      ev({ kind: 'turn_ended', turnId: 't1', outcome: 'cancelled', error: null }),
      ev({ kind: 'turn_ended', turnId: 't2', outcome: 'failed', error: null }),
      ev({ kind: 'turn_ended', turnId: 't3', outcome: 'refused', error: null }),
      ev({ kind: 'control', action: 'inspect', detail: { invocation_id: 'inv_abc_123' } }),
      ev({ kind: 'control', action: 'resume', detail: { invocation_id: 'inv_abc_123' } }),
      ev({ kind: 'control', action: 'attest', detail: { invocation_id: 'inv_abc_123' } }),
      ev({ kind: 'control', action: 'restore', detail: {} }),
      ev({
        kind: 'turn_ended',
        turnId: 't4',
        outcome: 'failed',
        error: 'run_end_failed',
        detail: 'run_7: hub_timeout',
      }),
    ]);
    // Every notice code is produced here, so each one is checked in Chinese.
    expect(new Set(items.map((i) => (i.kind === 'notice' ? i.code : null)))).toEqual(
      new Set([...NOTICE_CODES, 'run_end_failed']),
    );
    useApp.setState({ lang: 'zh' });
    expect(show(items)).toEqual([
      '本轮已取消。',
      '本轮失败。',
      '本轮被拒绝。',
      '已查看调用 inv_abc_123。',
      '已请求继续执行调用 inv_abc_123。',
      '已记录您对调用 inv_abc_123 的核查结论；未发送任何内容。',
      '已请求恢复本地调用日志。',
      '本轮的某个运行无法在 Hub 上结束。原始信息：run_7: hub_timeout',
    ]);
    cleanup();
    // English shows the sentences the notices always had.
    useApp.setState({ lang: 'en' });
    expect(show(items).slice(0, 7)).toEqual([
      'Turn cancelled.',
      'Turn failed.',
      'Turn refused.',
      'Inspected inv_abc_123.',
      'Resume requested for inv_abc_123.',
      'Your check was recorded for inv_abc_123; nothing was sent.',
      'Journal restore requested.',
    ]);
  });

  it('a notice with an unknown code, or without one (an older archive or host), shows its English text', () => {
    const unknown = {
      kind: 'notice' as const,
      id: 'n1',
      at: T0,
      level: 'error' as const,
      text: 'quota_exhausted: the model plan is used up',
      code: 'quota_exhausted',
      invocation_id: null,
      detail: 'the model plan is used up',
    };
    const old = {
      kind: 'notice' as const,
      id: 'n2',
      at: T0,
      level: 'warning' as const,
      text: 'Turn cancelled.',
    };
    const nullCode = {
      kind: 'notice' as const,
      id: 'n3',
      at: T0,
      level: 'info' as const,
      text: 'Inspected inv_x.',
      code: null,
    };
    useApp.setState({ lang: 'zh' });
    expect(show([unknown, old, nullCode])).toEqual([
      'quota_exhausted: the model plan is used up',
      'Turn cancelled.',
      'Inspected inv_x.',
    ]);
    expect(noticeWords(unknown, 'zh')).toEqual({ text: unknown.text, detail: null, known: false });
    // A sentence naming an invocation without its id says what the text says.
    expect(
      noticeWords({ text: 'Inspected.', code: 'invocation_inspected', invocation_id: null }, 'zh').text,
    ).toBe('Inspected.');
  });
});

// ---------- reasons a store or a scope is not usable ----------

describe('storage and scope reasons in Chinese', () => {
  it('the storage bar words a journal code and keeps an archive gap’s own description', () => {
    useApp.setState({ lang: 'zh' });
    render(
      <StorageBar
        sessionId="s1"
        storage={{
          journal: { state: 'storage_error', unsaved_records: 1, reason: 'invocation_store_unavailable' },
          archive: { state: 'recovery_gap', unsaved_events: 0, reason: 'events 3..5 are missing' },
        }}
      />,
    );
    const [journal, archive] = screen.getAllByRole('alert').map((e) => e.textContent);
    expect(journal).toBe(
      '存储失败：本地调用日志无法保存或读取（invocation_store_unavailable）。在解决之前会一直显示。',
    );
    expect(archive).toBe('存储失败：events 3..5 are missing。在解决之前会一直显示。');
  });

  it('every journal code and archive store code has reason words', () => {
    const archiveCodes = [
      'archive_store_busy',
      'archive_store_full',
      'archive_store_unavailable',
      'archive_recovery_gap',
    ];
    const missing = [...JOURNAL_ERROR_CODES, ...archiveCodes].filter(
      (c) => reasonText(c, 'zh') === c || reasonText(c, 'en') === c,
    );
    expect(missing).toEqual([]);
  });

  it('a blocked conversation’s reason is a code: worded, the code after the words', () => {
    expect(reasonText('authorization_revoked', 'zh')).toBe(
      '此会话的一个授权已被撤销（authorization_revoked）',
    );
    expect(reasonText('authorization_revoked', 'en')).toBe(
      'an authorization of this conversation was revoked (authorization_revoked)',
    );
    expect(reasonText('something else', 'zh')).toBe('something else');
  });
});
