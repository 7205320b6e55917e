// Approval is not execution: awaiting_approval -> approved sends nothing; resume sends exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApprovalListSchema,
  ApprovalSchema,
  AuditEntrySchema,
  ReceiptSchema,
  ResumeResponseSchema,
} from '../../src-shared/hub-api.js';
import { opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env.close();
});

let next = 0;
const LISTINGS: Array<[number, string]> = [
  [42, 'web'],
  [13, 'web'],
  [13, 'marketplace'],
  [42, 'marketplace'],
  [7, 'marketplace'],
];
/** Publishing a product twice on one channel is a business rejection, so each call publishes another listing. */
const publish = () => {
  const [product_id, channel] = LISTINGS[next++ % LISTINGS.length]!;
  return env.invoke({ authRef: 'auth-shop-a', tool: 'publish_listing', args: { product_id, channel } });
};
const decide = (
  approvalId: string,
  decision: 'approve' | 'deny',
  decisionId = `d-${approvalId}-${decision}`,
) => env.admin('POST', `/admin/v1/approvals/${approvalId}/decision`, { decision_id: decisionId, decision });

describe('approvals', () => {
  it('awaiting_approval -> approve (nothing sent) -> resume sends exactly once -> second resume sends nothing', async () => {
    const before = opRequests(env.demo.shopA);
    const r = await publish();
    const receipt = ReceiptSchema.parse(r.body);
    expect(receipt.state).toBe('awaiting_approval');
    expect(receipt.dispatch).toBe('none');
    expect(receipt.approval?.state).toBe('pending');
    expect(receipt.approval?.prompt).toBe('Publish product 42 on web? Customers will see it immediately.');
    expect(opRequests(env.demo.shopA)).toBe(before);

    const pending = await env.admin('GET', '/admin/v1/approvals?state=pending');
    const list = ApprovalListSchema.parse(pending.body).approvals;
    const approval = list.find((a) => a.invocation_id === receipt.invocation_id);
    expect(approval?.parameter_digest).toBe(receipt.parameter_digest);
    expect(approval?.arguments_preview).toEqual(receipt.approval && { product_id: 42, channel: 'web' });

    // resume before the decision changes nothing
    const early = await env.agent('POST', `/agent/v1/invocations/${receipt.invocation_id}/resume`);
    expect(early.body.action).toBe('unchanged');
    expect(early.body.receipt.state).toBe('awaiting_approval');

    const d = await decide(approval!.approval_id, 'approve');
    expect(d.status).toBe(200);
    expect(ApprovalSchema.parse(d.body).state).toBe('approved');
    const again = await decide(approval!.approval_id, 'approve');
    expect(again.body).toEqual(d.body);
    const conflicting = await decide(approval!.approval_id, 'deny');
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error).toBe('decision_conflict');

    const after = await env.agent('GET', `/agent/v1/invocations/${receipt.invocation_id}`);
    expect(after.body.state).toBe('approved');
    expect(opRequests(env.demo.shopA)).toBe(before);
    expect(env.demo.shopA.ledger()).toHaveLength(0);

    const res = await env.agent('POST', `/agent/v1/invocations/${receipt.invocation_id}/resume`);
    const rr = ResumeResponseSchema.parse(res.body);
    expect(rr.action).toBe('dispatched');
    expect(rr.receipt.state).toBe('succeeded');
    expect(env.demo.shopA.ledger()).toHaveLength(1);
    expect(env.demo.shopA.ledger()[0]?.idempotency_key).toBe(receipt.invocation_id);
    // the original arguments and run, never replacements
    expect(env.demo.shopA.ledger()[0]?.job_id).toBe(receipt.run_id);

    const second = await env.agent('POST', `/agent/v1/invocations/${receipt.invocation_id}/resume`);
    expect(second.body.action).toBe('unchanged');
    expect(opRequests(env.demo.shopA)).toBe(before + 1);
  });

  it('deny gives denied, nothing sent, resume changes nothing', async () => {
    const before = opRequests(env.demo.shopA);
    const r = await publish();
    const d = await decide(r.body.approval.approval_id, 'deny');
    expect(d.body.state).toBe('denied');
    const res = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(res.body.action).toBe('unchanged');
    expect(res.body.receipt.state).toBe('denied');
    expect(opRequests(env.demo.shopA)).toBe(before);
  });

  it('a concurrent double resume of an approved call sends at most once', async () => {
    const before = env.demo.shopA.ledger().length;
    const r = await publish();
    await decide(r.body.approval.approval_id, 'approve');
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`),
      ),
    );
    expect(results.filter((x) => x.body.action === 'dispatched')).toHaveLength(1);
    expect(env.demo.shopA.ledger().length).toBe(before + 1);
  });

  it('high risk requires approval; a when rule (price > 1000) requires approval only when it matches', async () => {
    const adj = await env.invoke({
      authRef: 'auth-inventory',
      tool: 'adjust_stock',
      args: { sku: 'SKU-A-0042', delta: 1, reason: 'recount' },
    });
    expect(adj.body.state).toBe('awaiting_approval');
    const cheap = await env.invoke({
      authRef: 'auth-shop-b',
      tool: 'update_product',
      args: { product_id: 42, price: 10 },
    });
    expect(cheap.body.state).toBe('succeeded');
    const dear = await env.invoke({
      authRef: 'auth-shop-b',
      tool: 'update_product',
      args: { product_id: 42, price: 5000 },
    });
    expect(dear.body.state).toBe('awaiting_approval');
  });

  it('a revoked authorization blocks the approved call on resume (it stays approved, nothing sent)', async () => {
    await env.admin('POST', '/admin/v1/authorizations', {
      system_id: 'shop-b',
      account: 'x',
      on_behalf_of: 'y',
      authorization_ref: 'auth-b2',
    });
    await env.admin('POST', '/admin/v1/authorizations/auth-b2/grants', { client_id: 'desk' });
    const r = await env.invoke({
      authRef: 'auth-b2',
      tool: 'publish_listing',
      args: { product_id: 42, channel: 'web' },
    });
    await decide(r.body.approval.approval_id, 'approve');
    const revoked = await env.admin('POST', '/admin/v1/authorizations/auth-b2/revoke');
    expect(revoked.body.state).toBe('revoked');
    const before = opRequests(env.demo.shopB);
    const res = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(res.body.action).toBe('refused');
    expect(res.body.receipt.state).toBe('approved');
    expect(res.body.receipt.reason_code).toBe('authorization_revoked');
    expect(opRequests(env.demo.shopB)).toBe(before);
    const runRefused = await env.agent('POST', '/agent/v1/runs', {
      agent_session_id: 's',
      turn_id: 't',
      authorization_ref: 'auth-b2',
    });
    expect(runRefused.status).toBe(409);
    expect(runRefused.body.error).toBe('authorization_revoked');
    const d = await env.agent('POST', '/agent/v1/tools/search', {
      query: 'product',
      authorization_refs: ['auth-b2'],
    });
    expect(d.body.declarations).toEqual([]);
  });

  it('a rebound authorization refuses the approved call made under the old revision, and stale revisions on invoke', async () => {
    await env.admin('POST', '/admin/v1/authorizations', {
      system_id: 'shop-b',
      account: 'x',
      on_behalf_of: 'y',
      authorization_ref: 'auth-b3',
    });
    await env.admin('POST', '/admin/v1/authorizations/auth-b3/grants', { client_id: 'desk' });
    const r = await env.invoke({
      authRef: 'auth-b3',
      tool: 'publish_listing',
      args: { product_id: 13, channel: 'web' },
    });
    await decide(r.body.approval.approval_id, 'approve');
    const rebound = await env.admin('POST', '/admin/v1/authorizations/auth-b3/rebind');
    expect(rebound.status).toBe(200);
    expect(rebound.body).toMatchObject({ state: 'rebound', revision: 2, account: 'x' });
    const before = opRequests(env.demo.shopB);
    const res = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(res.body.action).toBe('refused');
    expect(res.body.receipt.reason_code).toBe('authorization_rebound');
    expect(res.body.receipt.state).toBe('approved');
    const stale = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: `inv_${Date.now()}_stale`,
      run_id: await env.run('auth-b3'),
      authorization_ref: 'auth-b3',
      authorization_revision: 1,
      tool: 'get_product',
      declaration_revision: (await env.declaration('auth-b3', 'get_product')).declaration_revision,
      arguments: { product_id: 13 },
      host_call_id: 'h',
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toBe('authorization_rebound');
    expect(opRequests(env.demo.shopB)).toBe(before);
    const kinds = await env.admin('GET', '/admin/v1/audit?kind=authorization.rebound');
    expect(kinds.body.entries.map((e: { kind: string }) => e.kind)).toEqual(['authorization.rebound']);
  });

  it('unknown approval id: approval_not_found', async () => {
    const r = await decide('apr_nope', 'approve');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('approval_not_found');
  });

  it('the audit trail records the state change with its arguments (operation not audit-sensitive) and no secret', async () => {
    const r = await publish();
    const a = await env.admin('GET', `/admin/v1/audit?invocation_id=${r.body.invocation_id}`);
    const entries = a.body.entries.map((e: unknown) => AuditEntrySchema.parse(e));
    expect(entries.map((e: { to_state: string | null }) => e.to_state)).toEqual(['awaiting_approval']);
    expect(entries[0].detail.arguments).toEqual({
      product_id: expect.any(Number),
      channel: expect.any(String),
    });
    expect(JSON.stringify(a.body)).not.toContain(env.demo.shopA.secret);
  });
});
