/**
 * Invariant 2 — one id, one dispatch. An invocation_id reaches the business system at most once,
 * whatever the path: concurrent resumes of one approved call, resume of an `unknown` write
 * (reconciled, never re-sent), the same id invoked again (also after a Hub restart), concurrent
 * invokes of one new id, and a dispatch racing a Hub shutdown. Counted on the business system's
 * own request log (a replayed key would not show in the ledger).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  dispatchesOf,
  newInvocationId,
  receipt,
  startHubEnv,
  waitUntil,
  type HubEnv,
} from './support.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startHubEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

describe('invariant 2: one id, one dispatch', () => {
  it('six concurrent resumes of one approved call dispatch it exactly once', async () => {
    const id = newInvocationId();
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'publish_listing',
      args: { product_id: 42, channel: 'marketplace' },
      id,
    });
    expect(r.body.state).toBe('awaiting_approval');
    await decide(env, id, 'approve');
    expect((await receipt(env, id)).state).toBe('approved');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0); // approval is not execution

    const answers = await Promise.all(
      Array.from({ length: 6 }, () => env.agent('POST', `/agent/v1/invocations/${id}/resume`)),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.action === 'dispatched')).toHaveLength(1);
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
    expect((await receipt(env, id)).state).toBe('succeeded');
    // and a later resume only observes
    const later = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(later.body.action).toBe('unchanged');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });

  it('resume of an unknown write reconciles from evidence and never re-sends', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const id = newInvocationId();
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 7, description: 'dropped ack' },
      id,
    });
    expect(r.body.state).toBe('unknown');
    const first = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(first.body).toMatchObject({ action: 'reconciled', receipt: { state: 'succeeded' } });
    const second = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(second.body.receipt.state).toBe('succeeded');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
    expect(env.demo.shopA.ledger().filter((l) => l.idempotency_key === id)).toHaveLength(1);
  });

  it('the same id invoked again (before and after a Hub restart) answers the stored receipt without sending', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const id = newInvocationId();
    const d = await env.declaration('auth-shop-a', 'update_product_content');
    const runId = await env.run('auth-shop-a');
    const body = {
      invocation_id: id,
      run_id: runId,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: d.declaration_revision,
      arguments: { product_id: 13, description: 'once only' },
      host_call_id: 'call-replay',
    };
    const a = await env.agent('POST', '/agent/v1/invocations', body);
    expect(a.status).toBe(201);
    expect(a.body.state).toBe('unknown');
    const b = await env.agent('POST', '/agent/v1/invocations', body);
    expect(b.status).toBe(200);
    expect(b.body.state).toBe('unknown');
    await env.restart();
    const c = await env.agent('POST', '/agent/v1/invocations', body);
    expect(c.status).toBe(200);
    expect(c.body.state).toBe('unknown');
    // a different payload under the same id is a conflict, never a second write
    const conflicting = await env.agent('POST', '/agent/v1/invocations', {
      ...body,
      arguments: { product_id: 13, description: 'other' },
    });
    expect(conflicting.status).toBe(409);
    expect(conflicting.body.error).toBe('invocation_conflict');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });

  it('concurrent invokes of one new id: one creates, the rest replay, one dispatch', async () => {
    const id = newInvocationId();
    const d = await env.declaration('auth-shop-a', 'update_product_content');
    const runId = await env.run('auth-shop-a');
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 200 });
    const body = {
      invocation_id: id,
      run_id: runId,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: d.declaration_revision,
      arguments: { product_id: 13, description: 'raced' },
      host_call_id: 'call-race',
    };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => env.agent('POST', '/agent/v1/invocations', body)),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(4);
    await waitUntil(async () => (await receipt(env, id)).state === 'succeeded', 'the raced call to finish');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });

  it('a dispatch racing a Hub shutdown is unknown after restart and reconciled without a second send', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const id = newInvocationId();
    const pending = env
      .invoke({
        authRef: 'auth-shop-a',
        tool: 'update_product_content',
        args: { product_id: 42, description: 'hung' },
        id,
      })
      .catch((e: unknown) => e);
    await waitUntil(() => dispatchesOf(env.demo.shopA, id) === 1, 'the shop to receive the call');
    await env.restart();
    await pending;
    const after = await receipt(env, id);
    expect(after.state).toBe('unknown');
    const resumed = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(resumed.body).toMatchObject({ action: 'reconciled', receipt: { state: 'succeeded' } });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });
});
