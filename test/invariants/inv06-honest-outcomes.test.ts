/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
/**
 * Invariant 6 — honest outcomes (Hub side). Missing evidence is `unknown` / `unverified`, never
 * success and never "did not happen": a 5xx answer is unknown (the shop may have committed), a
 * look-up that finds nothing or is unavailable gives `unverified` with dispatch still `attempted`,
 * and later evidence can still resolve it. (The host side — a missing local record — is in
 * inv06-missing-record.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchesOf, newInvocationId, receipt, startHubEnv, type HubEnv } from './support.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startHubEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

const edit = (description: string, id = newInvocationId()) =>
  env.invoke({
    authRef: 'auth-shop-a',
    tool: 'update_product_content',
    args: { product_id: 42, description },
    id,
  });

describe('invariant 6: honest outcomes', () => {
  it('a 5xx with nothing committed is unknown, then unverified on a not-found look-up: never not_dispatched, never failed', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'fail_before_commit' });
    const id = newInvocationId();
    const r = await edit('server error', id);
    expect(r.body).toMatchObject({ state: 'unknown', dispatch: 'attempted' });
    const resumed = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(resumed.body.action).toBe('reconciled');
    expect(resumed.body.receipt).toMatchObject({
      state: 'unverified',
      dispatch: 'attempted',
      reason_code: 'lookup_not_found',
    });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });

  it('a lost answer with the look-up unavailable stays unverified, and later evidence resolves it to succeeded', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'lookup_unavailable' });
    const id = newInvocationId();
    expect((await edit('committed, answer lost', id)).body.state).toBe('unknown');
    const first = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(first.body.receipt).toMatchObject({ state: 'unverified', reason_code: 'lookup_unavailable' });
    expect(first.body.receipt.state).not.toBe('succeeded');
    const again = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(again.body.receipt.state).toBe('succeeded');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });

  it('a commit answered with 500 is unknown, never failed; the look-up proves success', async () => {
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'fail_after_commit' });
    const id = newInvocationId();
    const r = await edit('committed then 500', id);
    expect(r.body.state).toBe('unknown');
    const resumed = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(resumed.body.receipt.state).toBe('succeeded');
    expect((await receipt(env, id)).reconciliation.map((e: any) => e.source)).toEqual([
      'dispatch_response',
      'operations_lookup',
    ]);
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
  });
});
