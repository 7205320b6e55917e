// Rebuilding call cards from archived events: the recorded state wins; archives written before
// results carried their state use the journal's last known state; without either, only the
// feedback can say more, and a sent call without evidence is unknown (never success). Notices carry
// a code (and the invocation id / the free text after a code) next to their English text.
import { describe, expect, it } from 'vitest';
import {
  controlNotice,
  conversationItems,
  legacyResultState,
  NOTICE_CODES,
  turnEndedNotice,
} from '../../src-main/handlers/conversation.js';
import { ConversationItemSchema } from '../../src-shared/ipc/views.js';
import type { InvocationStatusEntry } from '../../src-main/runtime/invocation-ports.js';
import type { ArchiveEvent } from '../../src-main/runtime/desk-runtime.js';

const target = {
  hub_id: 'hub',
  authorization_ref: 'auth-shop-a',
  system_id: 'shop-a',
  system_name: 'Shop A',
  account: 'acct',
  tool: 'update_product_content',
  declaration_revision: 'r1',
};
let seq = 0;
const base = () => ({
  seq: ++seq,
  eventId: `e${seq}`,
  sessionId: 's1',
  turnId: 't1',
  at: `2026-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
});
const call = (callId: string): ArchiveEvent => ({
  ...base(),
  kind: 'tool_call',
  callId,
  functionName: 'auth_shop_a__update_product_content',
  argumentsText: '{}',
  target,
});
const result = (
  callId: string,
  invocation_id: string | null,
  extra: Partial<Extract<ArchiveEvent, { kind: 'tool_result' }>> = {},
): ArchiveEvent => ({
  ...base(),
  kind: 'tool_result',
  callId,
  functionName: 'auth_shop_a__update_product_content',
  content: '{}',
  feedback: null,
  invocation_id,
  ...extra,
});
const entry = (
  invocation_id: string,
  last_known_state: InvocationStatusEntry['last_known_state'],
): InvocationStatusEntry => ({
  invocation_id,
  authorization_ref: 'auth-shop-a',
  tool: 'update_product_content',
  original_run_id: 'run1',
  last_known_state,
  retry_at: null,
  result_verified: false,
});
const states = (items: ReturnType<typeof conversationItems>) =>
  items.flatMap((i) => (i.kind === 'tool_call' ? [i.state] : []));

describe('conversation rebuild', () => {
  it('uses the state recorded with the result, then later receipts for the same id', () => {
    const items = conversationItems([
      call('c1'),
      result('c1', 'inv_1', { state: 'succeeded', effect: 'write' }),
      call('c2'),
      result('c2', 'inv_2', { state: 'unknown', effect: 'write' }),
      // a resume by the model names inv_2 too; the later receipt belongs to the original call
      {
        ...base(),
        kind: 'tool_call',
        callId: 'c3',
        functionName: 'resume_governed_tool_invocation',
        argumentsText: '{}',
        target: null,
      },
      result('c3', 'inv_2', { state: 'unverified', effect: null }),
      {
        ...base(),
        kind: 'receipt',
        callId: null,
        invocation_id: 'inv_2',
        state: 'unverified',
        receipt: { state: 'unverified', effect: 'write' } as never,
        late: false,
      },
    ]);
    expect(states(items)).toEqual(['succeeded', 'unverified', 'unverified']);
    expect(items.flatMap((i) => (i.kind === 'tool_call' ? [i.effect] : []))).toEqual([
      'write',
      'write',
      null,
    ]);
  });

  it('older archives: the journal state, else the feedback; never success for a sent call', () => {
    const journal = [
      entry('inv_ok', 'succeeded'),
      entry('inv_nd', 'not_dispatched'),
      entry('inv_fence', 'pending_dispatch'),
    ];
    const items = conversationItems(
      [
        call('a'),
        result('a', 'inv_ok'),
        call('b'),
        result('b', 'inv_nd', {
          feedback: {
            category: 'not_dispatched',
            code: 'task_budget_exhausted',
            message: 'spent',
            next_action: 'none',
            retryable: false,
          },
        }),
        call('c'),
        result('c', 'inv_fence'),
        call('d'),
        result('d', 'inv_missing'),
        call('e'),
        result('e', null, {
          feedback: {
            category: 'arguments_invalid',
            code: 'arguments_invalid',
            message: 'bad',
            next_action: 'fix_arguments',
            retryable: false,
          },
        }),
        call('f'),
      ],
      journal,
    );
    // 'f' has no result and its turn is not running: interrupted, so unknown (not "Checking", not "did not happen").
    expect(states(items)).toEqual([
      'succeeded',
      'not_dispatched',
      'unknown',
      'unknown',
      'refused',
      'unknown',
    ]);
    expect(items.flatMap((i) => (i.kind === 'tool_call' ? [i.can_resume] : []))).toEqual([
      false,
      false,
      true,
      true,
      false,
      false,
    ]);
  });

  it('a call of the running turn without a result yet stays in its host-side phase; an interrupted one is unknown', () => {
    const events = [call('live'), { ...call('old'), turnId: 't0' }];
    const items = conversationItems(events, [], { activeTurnId: 't1' });
    expect(states(items)).toEqual(['validating', 'unknown']);
    const old = items.find((i) => i.kind === 'tool_call' && i.id === 'old');
    expect(old).toMatchObject({
      feedback: { code: 'interrupted', next_action: 'inspect_original' },
      can_resume: false,
    });
  });

  it('derives from feedback without a journal entry', () => {
    const empty = new Map<string, InvocationStatusEntry['last_known_state']>();
    const fb = (
      category: 'not_dispatched' | 'invocation_outcome_unknown',
      original_outcome?: 'unverified' | 'unknown',
    ) => ({
      category,
      code: 'x',
      message: 'm',
      next_action: 'none',
      retryable: false,
      ...(original_outcome ? { original_outcome } : {}),
    });
    expect(legacyResultState({ invocation_id: 'inv', feedback: fb('not_dispatched') }, empty)).toBe(
      'not_dispatched',
    );
    expect(
      legacyResultState(
        { invocation_id: 'inv', feedback: fb('invocation_outcome_unknown', 'unverified') },
        empty,
      ),
    ).toBe('unverified');
    expect(
      legacyResultState({ invocation_id: null, feedback: fb('invocation_outcome_unknown') }, empty),
    ).toBe('unknown');
    expect(legacyResultState({ invocation_id: null, feedback: null }, empty)).toBe('succeeded'); // a built-in (search) that answered
    expect(legacyResultState({ invocation_id: 'inv', feedback: null }, empty)).toBe('unknown');
  });
});

describe('conversation notices', () => {
  const ended = (
    outcome: 'completed' | 'cancelled' | 'failed' | 'refused',
    error: string | null,
  ): ArchiveEvent => ({ ...base(), kind: 'turn_ended', turnId: 't1', outcome, error });
  const control = (
    action: Extract<ArchiveEvent, { kind: 'control' }>['action'],
    detail: Record<string, unknown>,
  ): ArchiveEvent => ({ ...base(), kind: 'control', action, detail });
  const notices = (events: ArchiveEvent[]) =>
    conversationItems(events).flatMap((i) =>
      i.kind === 'notice'
        ? [{ level: i.level, code: i.code, invocation_id: i.invocation_id, detail: i.detail, text: i.text }]
        : [],
    );

  it('a turn that did not complete: its error code (the words after the colon as the detail), else the outcome', () => {
    expect(
      notices([
        ended('completed', null),
        ended('cancelled', null),
        ended('failed', 'run_end_failed: run_1: hub_timeout'),
        ended('refused', 'archive_storage_error'),
        ended('failed', null),
        ended('refused', null),
        ended('failed', 'Something odd happened'),
      ]),
    ).toEqual([
      {
        level: 'warning',
        code: 'turn_cancelled',
        invocation_id: null,
        detail: null,
        text: 'Turn cancelled.',
      },
      {
        level: 'error',
        code: 'run_end_failed',
        invocation_id: null,
        detail: 'run_1: hub_timeout',
        text: 'run_end_failed: run_1: hub_timeout',
      },
      {
        level: 'error',
        code: 'archive_storage_error',
        invocation_id: null,
        detail: null,
        text: 'archive_storage_error',
      },
      { level: 'error', code: 'turn_failed', invocation_id: null, detail: null, text: 'Turn failed.' },
      { level: 'error', code: 'turn_refused', invocation_id: null, detail: null, text: 'Turn refused.' },
      // An error that is not a code keeps the outcome's code; its words are the detail.
      {
        level: 'error',
        code: 'turn_failed',
        invocation_id: null,
        detail: 'Something odd happened',
        text: 'Something odd happened',
      },
    ]);
  });

  it('inspect, resume and restore asked by the operator; other controls show nothing', () => {
    expect(
      notices([
        control('inspect', { invocation_id: 'inv_a' }),
        control('resume', { invocation_id: 'inv_a' }),
        control('restore', {}),
        control('cancel_turn', { turnId: 't1' }),
        control('open_session', {}),
        // An archive row without a usable id: no id, and the sentence as older builds wrote it.
        control('inspect', { invocation_id: 'x'.repeat(300) }),
        control('resume', {}),
      ]),
    ).toEqual([
      {
        level: 'info',
        code: 'invocation_inspected',
        invocation_id: 'inv_a',
        detail: null,
        text: 'Inspected inv_a.',
      },
      {
        level: 'info',
        code: 'resume_requested',
        invocation_id: 'inv_a',
        detail: null,
        text: 'Resume requested for inv_a.',
      },
      {
        level: 'info',
        code: 'journal_restore_requested',
        invocation_id: null,
        detail: null,
        text: 'Journal restore requested.',
      },
      { level: 'info', code: 'invocation_inspected', invocation_id: null, detail: null, text: 'Inspected.' },
      {
        level: 'info',
        code: 'resume_requested',
        invocation_id: null,
        detail: null,
        text: 'Resume requested for.',
      },
    ]);
  });

  it('every notice passes the contract, including a long model error (the detail is bounded)', () => {
    const long = `model_error: ${'x'.repeat(2000)}`;
    const items = conversationItems([
      ended('failed', long),
      control('inspect', { invocation_id: 'inv_b' }),
      ended('cancelled', null),
    ]);
    for (const i of items) expect(ConversationItemSchema.safeParse(i).success).toBe(true);
    const codes = items.flatMap((i) => (i.kind === 'notice' && i.code ? [i.code] : []));
    expect(
      codes.filter((c) => c !== 'model_error').every((c) => (NOTICE_CODES as readonly string[]).includes(c)),
    ).toBe(true);
  });

  it('the relay and the rebuild build the same notice', () => {
    const e = ended('failed', 'model_error: 500 overloaded');
    if (e.kind !== 'turn_ended') throw new Error('not a turn_ended event');
    expect(conversationItems([e])).toEqual([turnEndedNotice(e)]);
    const c = control('resume', { invocation_id: 'inv_c' });
    if (c.kind !== 'control') throw new Error('not a control event');
    expect(conversationItems([c])).toEqual([controlNotice(c)]);
  });
});

describe('cards rebuilt from the archive show what the call was and what came back', () => {
  const callWith = (callId: string, argumentsText: string | null, sensitive?: boolean): ArchiveEvent => ({
    ...base(),
    kind: 'tool_call',
    callId,
    functionName: 'auth_shop_a__get_product',
    argumentsText,
    target,
    ...(sensitive ? { sensitive } : {}),
  });
  const receiptOf = (over: Record<string, unknown>) =>
    ({
      state: 'succeeded',
      effect: 'read',
      reason_code: null,
      reason_message: null,
      result: { title: 'Walnut cutting board' },
      result_truncated: false,
      reconciliation: [],
      ...over,
    }) as never;

  it('arguments, key arguments and the result, with no Hub request', () => {
    const items = conversationItems([
      callWith('r1', '{"product_id":42,"channel":"web","note":"x"}'),
      result('r1', 'inv_r1', { state: 'succeeded', effect: 'read', receipt: receiptOf({}) }),
    ]);
    const card = items.find((i) => i.kind === 'tool_call');
    expect(ConversationItemSchema.parse(card)).toMatchObject({
      arguments_json: JSON.stringify({ product_id: 42, channel: 'web', note: 'x' }, null, 2),
      key_arguments: [
        { name: 'product_id', value: '42' },
        { name: 'channel', value: 'web' },
        { name: 'note', value: 'x' },
      ],
      result_json: JSON.stringify({ title: 'Walnut cutting board' }, null, 2),
      masked: false,
    });
  });

  it('an audit-sensitive call shows neither its arguments nor its result', () => {
    const items = conversationItems([
      callWith('m1', null, true),
      result('m1', 'inv_m1', { state: 'succeeded', effect: 'write', receipt: receiptOf({ result: null }) }),
    ]);
    const card = items.find((i) => i.kind === 'tool_call');
    expect(card).toMatchObject({ masked: true, arguments_json: null, result_json: null, key_arguments: [] });
  });

  it('a call the host stopped during keeps its invocation id (call_sent) and offers Inspect and Resume', () => {
    const items = conversationItems(
      [
        call('k1'),
        { ...base(), kind: 'call_sent', callId: 'k1', invocation_id: 'inv_k1' },
        { ...base(), turnId: 't2', kind: 'turn_started' },
      ],
      [entry('inv_k1', 'pending_dispatch')],
      { activeTurnId: null },
    );
    const card = items.find((i) => i.kind === 'tool_call');
    expect(card).toMatchObject({
      invocation_id: 'inv_k1',
      state: 'unknown',
      can_inspect: true,
      can_resume: true,
      can_attest: true,
    });
  });

  it('a call settled by a person says so, with their note', () => {
    const items = conversationItems([
      call('p1'),
      result('p1', 'inv_p1', { state: 'unknown', effect: 'write' }),
      {
        ...base(),
        kind: 'receipt',
        callId: null,
        invocation_id: 'inv_p1',
        state: 'succeeded',
        late: false,
        receipt: receiptOf({
          effect: 'write',
          result: null,
          reason_code: 'operator_attested',
          reconciliation: [
            {
              source: 'operator_attested',
              outcome: 'succeeded',
              detail: 'Seen in the shop.',
              checked_at: '2026-01-01T01:00:00Z',
            },
          ],
        }),
      },
    ]);
    const card = items.find((i) => i.kind === 'tool_call');
    expect(card).toMatchObject({
      state: 'succeeded',
      can_attest: false,
      settlement: { outcome: 'succeeded', note: 'Seen in the shop.', at: '2026-01-01T01:00:00Z' },
      reason: null,
    });
  });
});
