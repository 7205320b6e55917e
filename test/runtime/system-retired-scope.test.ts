/**
 * A business system retired on the Hub while a conversation uses it: the next call of its
 * authorization is refused with system_retired (its run or its invoke), which blocks the whole
 * scope at once (never a surviving subset), nothing is sent; reopened in a new runtime, the
 * scope check finds the authorization's system retired (GET /agent/v1/authorizations?include=retired;
 * agents are not offered it) and the conversation stays blocked, saying why, until the system is revived: its notice
 * has the scope checked again. A notice of another member in service lifts nothing. Real Hub, demo systems, scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime, toolMessages } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
let dataDir: string;

beforeAll(async () => {
  env = await startRuntimeTestEnv();
  dataDir = newDataDir();
  ({ runtime } = await startRuntime(env, dataDir));
});
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

describe('a system retired during a living conversation', () => {
  it('its next call is refused system_retired and blocks the whole scope; reopened, the scope stays blocked', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopB, AUTH.inventory] });
    env.model.setScript([
      {
        name: 'sr-load',
        match: { userIncludes: 'load' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'stock product', limit: 20 } }] },
      },
      { name: 'sr-loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'ok' } },
    ]);
    await runtime.sendMessage(s.sessionId, 'load');
    expect(
      (await runtime.cachedDeclarations(s.sessionId)).some(
        (d) => d.target.authorization_ref === AUTH.inventory,
      ),
    ).toBe(true);

    const retired = await env.admin.retireSystem('inventory');
    expect(retired.retired_at).not.toBeNull();
    env.model.setScript([
      {
        name: 'sr-call',
        match: { userIncludes: 'stock' },
        reply: { toolCalls: [{ name: 'auth_inventory__get_stock', arguments: { sku: 'SKU-B-0042' } }] },
      },
      {
        name: 'sr-after',
        match: { afterToolResultFor: 'auth_inventory__get_stock' },
        reply: { toolCalls: [{ name: 'auth_shop_b__get_product', arguments: { product_id: 42 } }] },
      },
      {
        name: 'sr-end',
        match: { afterToolResultFor: 'auth_shop_b__get_product' },
        reply: { text: 'blocked' },
      },
    ]);
    const invokesBefore = (await env.hubMetrics()).invokes;
    const r = await runtime.sendMessage(s.sessionId, 'check stock');
    expect(r.outcome).toBe('completed');
    const first = toolMessages(env.model.requests().find((q) => q.matchedStep === 'sr-after')!).at(-1) as {
      feedback: { code: string; category: string };
    };
    expect(first.feedback.code).toBe('system_retired');
    expect(first.feedback.category).toBe('blocked');
    // the surviving member (shop B) is not used either
    const reqEnd = env.model.requests().find((q) => q.matchedStep === 'sr-end');
    expect(reqEnd?.toolNames).toEqual([]);
    expect(await runtime.cachedDeclarations(s.sessionId)).toEqual([]);
    expect((await env.hubMetrics()).invokes).toBe(invokesBefore);
    const summary = (await runtime.listSessions()).find((x) => x.sessionId === s.sessionId);
    expect(summary).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'system_retired',
      availabilityRef: AUTH.inventory,
    });

    // a new runtime on the same data: the scope check (the list with retired systems' authorizations,
    // which agents are not offered) finds the authorization's system retired, and says so
    await runtime.close();
    ({ runtime } = await startRuntime(env, dataDir));
    const opened = await runtime.openSession(s.sessionId);
    expect(opened.session.availability).toBe('blocked');
    expect(opened.session.availabilityReason).toBe('system_retired');
    expect(opened.session.availabilityRef).toBe(AUTH.inventory);

    // revived: its notice (fed by the app) has the scope checked again, and it opens
    const inv = env.demo.inventory;
    await env.admin.registerSystem({
      system_id: inv.systemId,
      name: inv.name,
      base_url: inv.url,
      signing_secret: inv.secret,
    });
    const notice = (await env.admin.listAllAuthorizations()).find(
      (a) => a.authorization_ref === AUTH.inventory,
    )!;
    expect(notice.system_retired_at).toBeNull();
    await runtime.authorizationChanged(notice);
    const back = (await runtime.listSessions()).find((x) => x.sessionId === s.sessionId);
    expect(back).toMatchObject({ availability: 'open', availabilityReason: null, availabilityRef: null });
  });

  it("the Hub's authorization.changed notice of a retire (fed by the app) blocks the group without any Hub request", async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    await runtime.searchTools(s.sessionId, 'get product');
    expect((await runtime.cachedDeclarations(s.sessionId)).length).toBeGreaterThan(0);
    await env.admin.retireSystem('shop-b');
    const notice = (await env.admin.listAllAuthorizations()).find((a) => a.authorization_ref === AUTH.shopB)!;
    expect(notice.system_retired_at).toEqual(expect.any(String));
    env.proxy.reset();
    await runtime.authorizationChanged(notice);
    expect(await runtime.cachedDeclarations(s.sessionId)).toEqual([]);
    const summary = (await runtime.listSessions()).find((x) => x.sessionId === s.sessionId);
    expect(summary).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'system_retired',
      availabilityRef: AUTH.shopB,
    });
    expect(env.proxy.requests()).toEqual([]);

    // a notice of the other member, whose system is in service, lifts nothing and asks nothing
    const other = (await env.admin.listAllAuthorizations()).find((a) => a.authorization_ref === AUTH.shopA)!;
    env.proxy.reset();
    await runtime.authorizationChanged(other);
    expect((await runtime.listSessions()).find((x) => x.sessionId === s.sessionId)).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'system_retired',
      availabilityRef: AUTH.shopB,
    });
    expect(env.proxy.requests()).toEqual([]);
  });
});
