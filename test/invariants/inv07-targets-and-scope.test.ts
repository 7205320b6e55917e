/**
 * Invariant 7 — targets come from declarations and the session's fixed scope, never from
 * model-supplied text; scope revalidation covers every member and one revoked or rebound member
 * blocks the whole group (also for the explicit resume of an approved call on a surviving member).
 * Real runtime (data dir), real Hub, demo systems, scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { newDataDir, startRuntime, toolMessages } from '../runtime/fixtures/runtime.js';
import { dispatchesOf } from './support.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
beforeAll(async () => {
  env = await startRuntimeTestEnv();
  ({ runtime } = await startRuntime(env, newDataDir()));
}, 30_000);
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

const invokes = () =>
  env.proxy.requests().filter((r) => r === 'POST /agent/v1/invocations' || r.endsWith('/resume'));

async function approvedPublish(sessionId: string): Promise<string> {
  await runtime.searchTools(sessionId, 'publish listing');
  const run = await runtime.runToolManually(sessionId, 'auth_shop_a__publish_listing', {
    product_id: 7,
    channel: 'marketplace',
  });
  expect(run.card.receipt?.state).toBe('awaiting_approval');
  const id = run.card.invocation_id!;
  const approval = (await env.admin.listApprovals({ state: 'pending' })).find((a) => a.invocation_id === id);
  await env.admin.decideApproval(approval!.approval_id, { decision_id: `d-${id}`, decision: 'approve' });
  return id;
}

describe('invariant 7: targets from declarations and scope', () => {
  it('the model cannot reach a system outside the scope, nor retarget a call through its arguments', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 't-search',
        match: { userIncludes: 'retarget' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
      },
      {
        name: 't-calls',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            // a function of another shop (shop B is not in this session's scope)
            {
              name: 'auth_shop_b__update_product_content',
              arguments: { product_id: 42, description: 'shop B via name' },
            },
            // the right function, with a target smuggled into the arguments
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'x', authorization_ref: AUTH.shopB },
            },
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'x', system_id: 'shop-b', hub: 'http://elsewhere' },
            },
          ],
        },
      },
      {
        name: 't-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'Refused.' },
      },
    ]);
    const ledgerB = env.demo.shopB.ledger().length;
    const ledgerA = env.demo.shopA.ledger().length;
    env.proxy.reset();
    await runtime.sendMessage(s.sessionId, 'retarget this edit');
    const results = toolMessages(env.model.requests().find((q) => q.matchedStep === 't-done')!).slice(
      -3,
    ) as Array<{ feedback?: { code?: string; category?: string } }>;
    expect(results[0]?.feedback?.code).toBe('tool_not_loaded');
    expect(results[1]?.feedback?.category).toBe('arguments_invalid');
    expect(results[2]?.feedback?.category).toBe('arguments_invalid');
    expect(invokes()).toEqual([]);
    expect(env.demo.shopB.ledger().length).toBe(ledgerB);
    expect(env.demo.shopA.ledger().length).toBe(ledgerA);
  });

  it("another session's invocation id is refused before any Hub request (no binding guessed)", async () => {
    const a = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    const id = await approvedPublish(a.sessionId);
    const b = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.proxy.reset();
    const inspected = await runtime.inspectInvocation(b.sessionId, id);
    const resumed = await runtime.resumeInvocation(b.sessionId, id);
    for (const r of [inspected, resumed]) {
      expect(r.state).toBe('blocked');
      expect(r.feedback?.code).toBe('invocation_binding_unavailable');
      expect(r.resume_dispatched).toBe(false);
    }
    expect(env.proxy.requests()).toEqual([]);
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
  });

  it('a rebound or a revoked member blocks the resume of an approved call on a surviving member', async () => {
    const rebound = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    const id1 = await approvedPublish(rebound.sessionId);
    const group = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    const id2 = await approvedPublish(group.sessionId);

    await env.admin.rebindAuthorization(AUTH.inventory, {});
    env.proxy.reset();
    const r1 = await runtime.resumeInvocation(rebound.sessionId, id1);
    expect(r1.state).toBe('blocked');
    expect(r1.resume_dispatched).toBe(false);

    await env.admin.revokeAuthorization(AUTH.shopB);
    const r2 = await runtime.resumeInvocation(group.sessionId, id2);
    expect(r2.state).toBe('blocked');
    expect(r2.resume_dispatched).toBe(false);

    expect(invokes()).toEqual([]);
    expect(dispatchesOf(env.demo.shopA, id1)).toBe(0);
    expect(dispatchesOf(env.demo.shopA, id2)).toBe(0);
    // the surviving member is not used as a subset either
    const status = await runtime.journalStatus(group.sessionId);
    expect(status.scope_state ?? status.state).toBe('blocked');
  });
});
