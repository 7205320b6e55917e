// A rebuilt card follows the last live receipt only forward in the call's life (INVOCATION_TRANSITIONS):
// an approval seen live moves "awaiting approval" on; a receipt behind what the archive holds (a
// stream event still in flight) never moves a card back; a host refusal is final.
import { describe, expect, it } from 'vitest';
import type { Receipt } from '../../src-shared/hub-api.js';
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import { withLaterReceipt } from '../../src-shared/card-receipt.js';
import { isLaterInvocationState } from '../../src-shared/states.js';

type Card = Extract<ConversationItem, { kind: 'tool_call' }>;

const card = (state: string): Card =>
  ({
    kind: 'tool_call',
    id: 'call-1',
    at: '2026-12-01T17:00:00.000Z',
    invocation_id: 'inv-1',
    function_name: 'shop_a__update_product',
    tool: 'update_product',
    system_id: 'shop-a',
    system_name: 'Shop A (homeware)',
    account: 'shop-a-operator',
    authorization_ref: 'auth-shop-a',
    effect: 'write',
    state,
    late: false,
    feedback: null,
    can_inspect: true,
    can_resume: false,
    can_attest: false,
    arguments_json: '{"product_id":42,"price":2500}',
    key_arguments: [],
    result_json: null,
    result_truncated: false,
    reason: null,
    settlement: null,
  }) as unknown as Card;

const receipt = (state: Receipt['state'], invocation_id = 'inv-1'): Receipt =>
  ({
    schema: 'bailing.receipt.v1',
    invocation_id,
    state,
    dispatch: 'none',
    reason_code: null,
    reason_message: null,
    retry_after_ms: null,
    result: null,
    result_truncated: false,
    business_status: null,
    receipt_digest: 'x',
    run_id: 'run-1',
    agent_session_id: 's-1',
    turn_id: 't-1',
    authorization_ref: 'auth-shop-a',
    authorization_revision: 1,
    tool: 'update_product',
    declaration_revision: 'r1',
    parameter_digest: 'p',
    host_call_id: 'call-1',
    task_id: null,
    effect: 'write',
  }) as unknown as Receipt;

describe('a rebuilt card and the last live receipt', () => {
  it('moves forward in the call’s life only', () => {
    expect(isLaterInvocationState('awaiting_approval', 'approved')).toBe(true);
    expect(isLaterInvocationState('awaiting_approval', 'succeeded')).toBe(true);
    expect(isLaterInvocationState('pending_dispatch', 'unknown')).toBe(true);
    expect(isLaterInvocationState('unknown', 'unverified')).toBe(true);
    expect(isLaterInvocationState('succeeded', 'approved')).toBe(false);
    expect(isLaterInvocationState('unverified', 'unknown')).toBe(false);
    expect(isLaterInvocationState('approved', 'approved')).toBe(false);
    expect(isLaterInvocationState('refused', 'dispatching')).toBe(false);
  });

  it('an approval seen live: the card says approved and offers Resume; an older receipt changes nothing', () => {
    const approved = withLaterReceipt(card('awaiting_approval'), receipt('approved'));
    expect(approved).toMatchObject({ state: 'approved', can_resume: true });
    const done = card('succeeded');
    expect(withLaterReceipt(done, receipt('approved'))).toBe(done);
    const waiting = card('awaiting_approval');
    expect(withLaterReceipt(waiting, receipt('approved', 'inv-other'))).toBe(waiting);
    expect(withLaterReceipt(waiting, null)).toBe(waiting);
  });
});
