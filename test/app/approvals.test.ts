// Approval is not execution, through the handler table and the real Hub and shop: a call that
// needs approval waits, approving it does not run it (the shop's ledger is unchanged and the card
// says "Approved, not yet run"), and only an explicit Resume runs it, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, EventPayload } from '../../src-shared/ipc/contract.js';
import { createHubAdminClient } from '../../src-main/hub-client/admin-client.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let desk: TestDesk;
const ctx = { transport: 'browser' as const };
const events: Array<{ name: string; payload: unknown }> = [];

beforeAll(async () => {
  desk = await startTestDesk();
  desk.root.bus.subscribe((name, payload) => events.push({ name, payload }));
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

const call = async <T>(name: string, input: unknown): Promise<T> => {
  const r = (await desk.root.router.call(name, input, ctx)) as CallResult<never>;
  if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
};

describe('approvals in the app', () => {
  it('shows approval and execution as separate facts; only Resume runs the call', async () => {
    const sessionId = desk.root.defaultSessionId ?? '';
    const { tools } = await call<{
      tools: Array<{ tool: string; authorization_ref: string; function_name: string }>;
    }>('searchTools', { session_id: sessionId, query: 'update product price' });
    const tool = tools.find((t) => t.tool === 'update_product' && t.authorization_ref === 'auth-shop-a');
    expect(tool).toBeDefined();
    const shopA = desk.root.local?.demo.shopA;
    const ledger0 = shopA?.ledger().length ?? -1;

    const run = await call<{
      item: { kind: string; state: string; invocation_id: string | null; can_resume: boolean };
    }>('runToolManually', {
      session_id: sessionId,
      function_name: tool?.function_name ?? '',
      arguments: { product_id: 42, price: 2500 },
    });
    expect(run.item).toMatchObject({ kind: 'tool_call', state: 'awaiting_approval', can_resume: false });
    const invocationId = run.item.invocation_id ?? '';
    expect(shopA?.ledger().length).toBe(ledger0);

    const { can_approve, approvals } = await call<{
      can_approve: boolean;
      approvals: Array<{ approval_id: string; invocation_id: string; state: string }>;
    }>('listApprovals', {});
    expect(can_approve).toBe(true);
    const pending = approvals.find((a) => a.invocation_id === invocationId);
    expect(pending?.state).toBe('pending');

    expect(approvals.find((a) => a.invocation_id === invocationId)).toMatchObject({
      execution_state: 'awaiting_approval',
    });
    const decided = await call<{ state: string; execution_state: string | null }>('decideApproval', {
      approval_id: pending?.approval_id ?? '',
      decision: 'approve',
    });
    expect(decided.state).toBe('approved');
    expect(decided.execution_state).not.toBe('succeeded');
    // Approval is not execution: nothing reached the shop, and the invocation is "approved".
    await waitFor(
      () =>
        events.some(
          (e) =>
            e.name === 'invocationChanged' &&
            (e.payload as EventPayload<'invocationChanged'>).invocation_id === invocationId &&
            (e.payload as EventPayload<'invocationChanged'>).state === 'approved',
        ),
      10_000,
      'approved receipt on the live stream',
    );
    expect(shopA?.ledger().length).toBe(ledger0);
    // The conversation read again (opened from the Approvals view's link, a reload) shows the card
    // as approved, as the live stream said — not the archive's "awaiting approval".
    const reread = await call<{
      items: Array<{ kind: string; invocation_id?: string | null; state?: string; can_resume?: boolean }>;
    }>('getConversation', { session_id: sessionId });
    expect(
      reread.items.find((i) => i.kind === 'tool_call' && i.invocation_id === invocationId),
    ).toMatchObject({
      state: 'approved',
      can_resume: true,
    });
    const idle = await call<{
      items: Array<{ invocation_id: string; hub_state: string | null; can_resume: boolean }>;
    }>('listUnresolved', {});
    expect(idle.items.find((i) => i.invocation_id === invocationId)).toMatchObject({
      hub_state: 'approved',
      can_resume: true,
    });

    const resumed = await call<{ resume_dispatched: boolean; receipt: { state: string } | null }>(
      'resumeInvocation',
      { session_id: sessionId, invocation_id: invocationId },
    );
    expect(resumed.resume_dispatched).toBe(true);
    expect(resumed.receipt?.state).toBe('succeeded');
    expect(shopA?.ledger().filter((l) => l.idempotency_key === invocationId).length).toBe(1);

    const after = await call<{
      approvals: Array<{ invocation_id: string; state: string; execution_state: string | null }>;
    }>('listApprovals', {});
    expect(after.approvals.find((a) => a.invocation_id === invocationId)).toMatchObject({
      state: 'approved',
      execution_state: 'succeeded',
    });

    // A second resume observes; it never sends again.
    await call('resumeInvocation', { session_id: sessionId, invocation_id: invocationId });
    expect(shopA?.ledger().filter((l) => l.idempotency_key === invocationId).length).toBe(1);
  });
});

describe('task timeline', () => {
  it('draws permits, dispatches, refusals and outcomes of a task from the Hub audit', async () => {
    const task = await call<{ task_id: string }>('createTask', {
      title: 'Timeline',
      authorizations: [
        { authorization_ref: 'auth-shop-a', tools: ['update_product_content', 'get_product'] },
      ],
      write_budget: 1,
      in_flight_limit: 1,
    });
    const session = await call<{ session_id: string }>('createSession', {
      title: 'Under the task',
      authorization_refs: ['auth-shop-a'],
      task_id: task.task_id,
    });
    const { tools } = await call<{ tools: Array<{ tool: string; function_name: string }> }>('searchTools', {
      session_id: session.session_id,
      query: 'product content description',
    });
    const edit = tools.find((t) => t.tool === 'update_product_content');
    expect(edit).toBeDefined();
    await call('runToolManually', {
      session_id: session.session_id,
      function_name: edit?.function_name ?? '',
      arguments: { product_id: 42, description: 'First edit' },
    });
    await call('pauseTask', { task_id: task.task_id });
    await call('runToolManually', {
      session_id: session.session_id,
      function_name: edit?.function_name ?? '',
      arguments: { product_id: 42, description: 'While paused' },
    });
    const { entries } = await call<{ entries: Array<{ kind: string; label: string; tool: string | null }> }>(
      'getTaskTimeline',
      { task_id: task.task_id },
    );
    const kinds = entries.map((e) => `${e.kind}:${e.label}`);
    expect(kinds).toContain('permit:Permit granted');
    expect(kinds).toContain('dispatch:Request sent');
    expect(kinds).toContain('outcome:Completed');
    expect(kinds).toContain('control:Task paused');
    expect(kinds.some((k) => k.startsWith('refusal:Not dispatched (task_paused)'))).toBe(true);
    expect(entries.find((e) => e.kind === 'dispatch')?.tool).toBe('update_product_content');
  });
});

// Last: it retires shop-a, which the tests above use.
describe('approvals of a retired system', () => {
  it('still name the system: the Hub names it, where the agent list no longer carries it', async () => {
    const local = desk.root.local;
    expect(local).not.toBeNull();
    const admin = createHubAdminClient({ baseUrl: local?.url ?? '', token: local?.adminToken ?? '' });
    const before = await call<{
      approvals: Array<{ authorization_ref: string; system_name: string | null }>;
    }>('listApprovals', {});
    const ofShopA = before.approvals.filter((a) => a.authorization_ref === 'auth-shop-a');
    expect(ofShopA.length).toBeGreaterThan(0);
    expect(ofShopA.every((a) => a.system_name === 'Shop A (homeware)')).toBe(true);

    expect((await admin.retireSystem('shop-a')).retired_at).not.toBeNull();
    expect((await desk.root.gateway.listAuthorizations()).map((a) => a.authorization_ref)).not.toContain(
      'auth-shop-a',
    );
    const after = await call<{ approvals: Array<{ authorization_ref: string; system_name: string | null }> }>(
      'listApprovals',
      {},
    );
    expect(after.approvals.filter((a) => a.authorization_ref === 'auth-shop-a')).toEqual(
      ofShopA.map(() =>
        expect.objectContaining({ authorization_ref: 'auth-shop-a', system_name: 'Shop A (homeware)' }),
      ),
    );
  });
});
