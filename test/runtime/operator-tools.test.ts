/** Operator tools without a model: search into the cache, run a cached tool by hand, journal passthrough. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
beforeAll(async () => {
  env = await startRuntimeTestEnv();
  ({ runtime } = await startRuntime(env, newDataDir()));
});
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

describe('operator tools', () => {
  it('search loads declarations; a manual run goes to the cached target with its own run; bad input sends nothing', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    const found = await runtime.searchTools(s.sessionId, 'get product');
    const view = found.find((d) => d.functionName === 'auth_shop_b__get_product');
    expect(view?.target).toMatchObject({
      authorization_ref: AUTH.shopB,
      system_id: 'shop-b',
      tool: 'get_product',
    });
    expect(view?.input_schema).toMatchObject({ required: ['product_id'] });
    expect((await runtime.cachedDeclarations(s.sessionId)).length).toBe(found.length);

    env.proxy.reset();
    const ok = await runtime.runToolManually(s.sessionId, 'auth_shop_b__get_product', { product_id: 42 });
    expect(ok.card).toMatchObject({ state: 'succeeded', target: { authorization_ref: AUTH.shopB } });
    expect(ok.card.receipt?.authorization_ref).toBe(AUTH.shopB);
    expect(env.proxy.requests()).toEqual([
      'POST /agent/v1/runs',
      'POST /agent/v1/invocations',
      expect.stringMatching(/\/end$/),
    ]);

    env.proxy.reset();
    const bad = await runtime.runToolManually(s.sessionId, 'auth_shop_b__get_product', { product_id: 'x' });
    expect(bad.card).toMatchObject({ state: 'refused', feedback: { category: 'arguments_invalid' } });
    const missing = await runtime.runToolManually(s.sessionId, 'auth_shop_c__get_product', { product_id: 1 });
    expect(missing.card.feedback?.code).toBe('tool_not_loaded');
    expect(env.proxy.requests()).toEqual([]);

    const journal = await runtime.journalStatus(s.sessionId);
    expect(journal.entries.map((e) => [e.invocation_id, e.authorization_ref, e.last_known_state])).toEqual([
      [ok.card.invocation_id, AUTH.shopB, 'succeeded'],
    ]);
    const restored = await runtime.restoreJournal(s.sessionId);
    expect(restored.state).toBe('ready');
    // manual runs are in the archive but not in the model's history
    const events = await runtime.archiveEvents(s.sessionId);
    expect(events.filter((e) => e.kind === 'control').map((e) => (e as { action: string }).action)).toEqual([
      'manual_tool_run',
      'manual_tool_run',
      'manual_tool_run',
    ]);
  });
});
