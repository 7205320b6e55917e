// The Hub's governed invocations against the real demo systems: lost acknowledgements,
// idempotent replays, conflicts, declaration changes, product 42 isolation, inspect.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReceiptSchema, ResumeResponseSchema, SystemSchema } from '../../src-shared/hub-api.js';
import { newInvocationId, opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv();
});
afterEach(async () => {
  await env.close();
});

const content = (title: string) => ({ product_id: 42, description: `desc ${title}`, title });

describe('invoke', () => {
  it('succeeds, records dispatch confirmed, and the receipt parses with the wire schema', async () => {
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('A'),
    });
    expect(r.status).toBe(201);
    const receipt = ReceiptSchema.parse(r.body);
    expect(receipt.state).toBe('succeeded');
    expect(receipt.dispatch).toBe('confirmed');
    expect(receipt.business_status).toBe(200);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
    expect(env.demo.shopA.ledger()[0]?.idempotency_key).toBe(receipt.invocation_id);
    expect(env.demo.shopA.ledger()[0]?.job_id).toBe(receipt.run_id);
  });

  it('lost acknowledgement: unknown, resume reconciles to succeeded with evidence, exactly one write, a repeated invoke sends nothing', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const d = await env.declaration('auth-shop-a', 'update_product_content');
    const runId = await env.run('auth-shop-a');
    const body = {
      invocation_id: newInvocationId(),
      run_id: runId,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: d.declaration_revision,
      arguments: content('lost'),
      host_call_id: 'call-1',
    };
    const first = await env.agent('POST', '/agent/v1/invocations', body);
    expect(first.status).toBe(201);
    expect(ReceiptSchema.parse(first.body).state).toBe('unknown');
    expect(first.body.dispatch).toBe('attempted');
    expect(env.demo.shopA.ledger()).toHaveLength(1);

    const sentBefore = opRequests(env.demo.shopA);
    const again = await env.agent('POST', '/agent/v1/invocations', body);
    expect(again.status).toBe(200);
    expect(again.body.state).toBe('unknown');
    expect(opRequests(env.demo.shopA)).toBe(sentBefore);

    const resumed = await env.agent('POST', `/agent/v1/invocations/${body.invocation_id}/resume`);
    expect(resumed.status).toBe(200);
    const rr = ResumeResponseSchema.parse(resumed.body);
    expect(rr.action).toBe('reconciled');
    expect(rr.receipt.state).toBe('succeeded');
    const ev = rr.receipt.reconciliation.find((e) => e.source === 'operations_lookup');
    expect(ev?.outcome).toBe('succeeded');
    expect(ev?.evidence_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
    expect(opRequests(env.demo.shopA)).toBe(sentBefore);

    const third = await env.agent('POST', '/agent/v1/invocations', body);
    expect(third.body.state).toBe('succeeded');
    expect(opRequests(env.demo.shopA)).toBe(sentBefore);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('same id with other arguments: 409 invocation_conflict, nothing sent', async () => {
    const id = newInvocationId();
    const runId = await env.run('auth-shop-a');
    const ok = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('one'),
      id,
      runId,
    });
    expect(ok.body.state).toBe('succeeded');
    const sent = opRequests(env.demo.shopA);
    const bad = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('two'),
      id,
      runId,
    });
    expect(bad.status).toBe(409);
    expect(bad.body).toEqual({ error: 'invocation_conflict', message: expect.any(String) });
    expect(opRequests(env.demo.shopA)).toBe(sent);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
    // another client using the same id is a conflict too, never a replay of someone else's receipt
    const foreign = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('one'),
      id,
      tok: env.other,
    });
    expect(foreign.status).toBe(409);
    expect(opRequests(env.demo.shopA)).toBe(sent);
  });

  it('product 42 through shop A never reaches shop B', async () => {
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('only A'),
    });
    expect(r.body.state).toBe('succeeded');
    expect(env.demo.shopA.ledger().map((e) => e.target)).toEqual(['product:42']);
    expect(env.demo.shopB.ledger()).toHaveLength(0);
    expect(opRequests(env.demo.shopB)).toBe(0);
    const read = await env.invoke({ authRef: 'auth-shop-b', tool: 'get_product', args: { product_id: 42 } });
    expect(read.body.state).toBe('succeeded');
    expect(JSON.stringify(read.body.result)).not.toContain('desc only A');
  });

  it('a changed spec: the old declaration_revision gives declaration_changed and nothing is sent', async () => {
    const old = await env.declaration('auth-shop-a', 'update_product_content');
    const runId = await env.run('auth-shop-a');
    env.demo.shopA.setSpecVariant('v2');
    const refreshed = await env.admin('POST', '/admin/v1/systems/shop-a/refresh');
    expect(refreshed.status).toBe(200);
    SystemSchema.parse(refreshed.body);
    const now = await env.declaration('auth-shop-a', 'update_product_content');
    expect(now.declaration_revision).not.toBe(old.declaration_revision);
    const sent = opRequests(env.demo.shopA);
    const r = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: newInvocationId(),
      run_id: runId,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: old.declaration_revision,
      arguments: content('stale'),
      host_call_id: 'c',
    });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('declaration_changed');
    expect(opRequests(env.demo.shopA)).toBe(sent);
    expect(env.sql('SELECT * FROM invocations')).toHaveLength(0);
  });

  it('invalid arguments are stored not_dispatched (arguments_invalid) and nothing is sent', async () => {
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 'forty-two' },
    });
    expect(r.status).toBe(201);
    expect(r.body.state).toBe('not_dispatched');
    expect(r.body.reason_code).toBe('arguments_invalid');
    expect(opRequests(env.demo.shopA)).toBe(0);
  });

  it('a business rejection is failed; a 500 after commit is unknown and reconciles to succeeded', async () => {
    env.demo.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'reject',
      status: 422,
      code: 'not_allowed',
    });
    const rej = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('x'),
    });
    expect(rej.body.state).toBe('failed');
    expect(rej.body.dispatch).toBe('confirmed');
    expect(rej.body.business_status).toBe(422);
    expect(env.demo.shopA.ledger()).toHaveLength(0);

    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'fail_after_commit' });
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('y'),
    });
    expect(r.body.state).toBe('unknown');
    expect(r.body.reason_code).toBe('business_server_error');
    const res = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(res.body.receipt.state).toBe('succeeded');
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('a 500 before commit ends unverified after reconciliation (not_found is not proof)', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'fail_before_commit' });
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('z'),
    });
    expect(r.body.state).toBe('unknown');
    const res = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(res.body.action).toBe('reconciled');
    expect(res.body.receipt.state).toBe('unverified');
    expect(res.body.receipt.reconciliation.at(-1).outcome).toBe('not_found');
    expect(env.demo.shopA.ledger()).toHaveLength(0);
    expect(opRequests(env.demo.shopA)).toBe(1);
  });

  it('lookup unavailable leaves the call unverified; a later resume with evidence resolves it', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    env.demo.shopA.faults.set({ operation: '*', kind: 'lookup_unavailable' });
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('w'),
    });
    expect(r.body.state).toBe('unknown');
    const first = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(first.body.receipt.state).toBe('unverified');
    expect(first.body.receipt.reconciliation.at(-1).outcome).toBe('unavailable');
    const second = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(second.body.receipt.state).toBe('succeeded');
    expect(env.demo.shopA.ledger()).toHaveLength(1);
    expect(opRequests(env.demo.shopA)).toBe(1);
  });
});

describe('inspect', () => {
  it('never sends, never creates a run, never changes state; other clients get invocation_not_found', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('i'),
    });
    const id = r.body.invocation_id as string;
    const runs = env.sql('SELECT * FROM runs').length;
    const ledgers = env.demo.all().map((h) => h.requests().length);
    for (let i = 0; i < 3; i++) {
      const g = await env.agent('GET', `/agent/v1/invocations/${id}`);
      expect(g.status).toBe(200);
      expect(ReceiptSchema.parse(g.body).state).toBe('unknown');
      expect(g.body.receipt_digest).toBe(r.body.receipt_digest);
    }
    expect(env.sql('SELECT * FROM runs')).toHaveLength(runs);
    expect(env.demo.all().map((h) => h.requests().length)).toEqual(ledgers);
    const foreign = await env.agent('GET', `/agent/v1/invocations/${id}`, undefined, env.other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('invocation_not_found');
    const missing = await env.agent('GET', `/agent/v1/invocations/${newInvocationId()}`);
    expect(missing.body.error).toBe('invocation_not_found');
    const resumeForeign = await env.agent('POST', `/agent/v1/invocations/${id}/resume`, undefined, env.other);
    expect(resumeForeign.status).toBe(404);
    expect(resumeForeign.body.error).toBe('invocation_not_found');
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('an ended run accepts no new invocation but its invocations stay inspectable', async () => {
    const runId = await env.run('auth-shop-a');
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'get_product',
      args: { product_id: 42 },
      runId,
    });
    const ended = await env.agent('POST', `/agent/v1/runs/${runId}/end`);
    expect(ended.body.state).toBe('ended');
    const refused = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'get_product',
      args: { product_id: 42 },
      runId,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('run_ended');
    const g = await env.agent('GET', `/agent/v1/invocations/${r.body.invocation_id}`);
    expect(g.body.state).toBe('succeeded');
  });
});
