/**
 * Invariant 6 — honest outcomes (host side). The host saved its fence, then the invoke never
 * reached the Hub (connection destroyed in front of it). The call is `unknown`, never "not
 * dispatched"; the Hub's authoritative 404 on inspect/resume yields `invocation_not_found` with
 * original_outcome `unverified`, keeps the journal untouched, and sends no replacement invoke and
 * no resume. A missing record is never read as proof that nothing ran.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { MODEL_KEY, newDataDir } from '../runtime/fixtures/runtime.js';
import { startDroppingProxy } from './support.js';

let env: RuntimeTestEnv;
let proxy: Awaited<ReturnType<typeof startDroppingProxy>>;
let runtime: DeskRuntime;
beforeAll(async () => {
  env = await startRuntimeTestEnv();
  proxy = await startDroppingProxy(env.hub.url);
  ({ runtime } = await createDeskRuntimeFromDataDir({
    dataDir: newDataDir(),
    hubUrl: proxy.url,
    hubToken: env.clientToken,
    hubId: env.hub.hubId,
    clientId: env.clientId,
    modelSettings: { get: async () => ({ baseUrl: env.model.url, model: 'scripted', apiKey: MODEL_KEY }) },
  }));
}, 30_000);
afterAll(async () => {
  await runtime?.close();
  await proxy?.close();
  await env?.close();
});

describe('invariant 6: a missing record is not proof', () => {
  it('fence saved, invoke lost before the Hub: unknown, then invocation_not_found / unverified, no replacement', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    await runtime.searchTools(s.sessionId, 'update product content');
    proxy.drop((m, p) => m === 'POST' && p === '/agent/v1/invocations');
    const run = await runtime.runToolManually(s.sessionId, 'auth_shop_a__update_product_content', {
      product_id: 42,
      description: 'lost on the way',
    });
    proxy.drop(null);
    const id = run.card.invocation_id!;
    expect(id).toBeTruthy();
    expect(run.card.state).toBe('unknown');
    expect(run.card.state).not.toBe('not_dispatched');

    const before = await runtime.journalStatus(s.sessionId);
    expect(before.entries.find((e) => e.invocation_id === id)?.last_known_state).toBe('unknown');

    const mark = proxy.seen().length;
    const inspected = await runtime.inspectInvocation(s.sessionId, id);
    expect(inspected.feedback).toMatchObject({
      code: 'invocation_not_found',
      original_outcome: 'unverified',
      next_action: 'inspect_original',
      retryable: false,
    });
    const resumed = await runtime.resumeInvocation(s.sessionId, id);
    expect(resumed.feedback).toMatchObject({ code: 'invocation_not_found', original_outcome: 'unverified' });
    const sent = proxy.seen().slice(mark);
    expect(sent.filter((r) => r === 'POST /agent/v1/invocations' || r.endsWith('/resume'))).toEqual([]);

    const after = await runtime.journalStatus(s.sessionId);
    expect(after.revision).toBe(before.revision);
    const entry = after.entries.find((e) => e.invocation_id === id);
    expect(entry?.last_known_state).toBe('unknown');
    expect(entry?.result_verified).toBe(false);
    expect(env.demo.shopA.requests().filter((r) => r.idempotency_key === id)).toEqual([]);
  });
});
