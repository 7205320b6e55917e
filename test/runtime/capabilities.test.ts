/**
 * The acceptance exercises (docs/acceptance.md) with the real Hub, demo systems, scripted model and SQLite files:
 * switch capabilities, follow-up reuse (and reuse off), "thanks", two systems' update_product.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveEvent, DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { lastToolJson, newDataDir, startRuntime, toolMessages } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
let sessionId: string;

beforeAll(async () => {
  env = await startRuntimeTestEnv();
  ({ runtime } = await startRuntime(env, newDataDir()));
  const s = await runtime.createSession({
    title: 'catalogue',
    authorizationRefs: [AUTH.shopA, AUTH.shopB, AUTH.inventory],
  });
  sessionId = s.sessionId;
});
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

const hubRoutes = () => env.proxy.requests();
const searches = (reqs: string[]) => reqs.filter((r) => r === 'POST /agent/v1/tools/search').length;

describe('capabilities across searches and turns', () => {
  it('edit a description, query inventory, return to editing: right target and current schema each time', async () => {
    env.model.setScript([
      {
        name: 'search-edit',
        match: { userIncludes: 'Edit the description' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product description', limit: 20 } }],
        },
      },
      {
        name: 'edit-desc',
        match: {
          afterToolResultFor: 'search_tools',
          turnUserIncludes: 'Edit the description',
          toolResultIncludes: 'auth_shop_a__update_product_content',
        },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'Hand-thrown stoneware mug.' },
            },
          ],
        },
      },
      {
        name: 'search-stock',
        match: {
          afterToolResultFor: 'auth_shop_a__update_product_content',
          toolResultIncludes: 'Hand-thrown',
        },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'find sku stock inventory', limit: 20 } }],
        },
      },
      {
        name: 'map-sku',
        match: { afterToolResultFor: 'search_tools', toolResultIncludes: 'auth_inventory__find_sku' },
        reply: {
          toolCalls: [{ name: 'auth_inventory__find_sku', arguments: { shop: 'shop-a', product_id: 42 } }],
        },
      },
      {
        name: 'stock',
        match: { afterToolResultFor: 'auth_inventory__find_sku' },
        reply: {
          toolCalls: [
            {
              name: 'auth_inventory__get_stock',
              argumentsFrom: (req) => ({ sku: (lastToolJson(req).result as { sku: string }).sku }),
            },
          ],
        },
      },
      {
        name: 'edit-title',
        match: { afterToolResultFor: 'auth_inventory__get_stock' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, title: 'Stoneware mug' },
            },
          ],
        },
      },
      {
        name: 'done',
        match: {
          afterToolResultFor: 'auth_shop_a__update_product_content',
          toolResultIncludes: 'Stoneware mug',
        },
        reply: { text: 'Description and title updated; stock checked.' },
      },
    ]);
    env.proxy.reset();
    const r = await runtime.sendMessage(
      sessionId,
      'Edit the description of product 42 in Shop A, check its stock, then fix the title.',
    );
    expect(r.outcome).toBe('completed');
    expect(r.text).toBe('Description and title updated; stock checked.');
    expect(env.model.unmatched()).toEqual([]);

    // The edits reached shop A's product 42 only.
    const ledgerA = env.demo.shopA.ledger();
    expect(ledgerA.map((l) => [l.operation, l.target, Object.keys(l.changes)])).toEqual([
      ['update_product_content', 'product:42', ['description']],
      ['update_product_content', 'product:42', ['title']],
    ]);
    expect(env.demo.shopB.ledger()).toEqual([]);
    expect(env.demo.inventory.ledger()).toEqual([]);

    // When returning to editing, the shop tool was still offered (cache survived the inventory search) with its full schema.
    const reqs = env.model.requests();
    const editTitleReq = reqs.find((q) => q.matchedStep === 'edit-title');
    const offered = editTitleReq?.tools.find(
      (t) => t.function.name === 'auth_shop_a__update_product_content',
    );
    const decl = (await runtime.cachedDeclarations(sessionId)).find(
      (d) => d.functionName === 'auth_shop_a__update_product_content',
    );
    expect(offered?.function.parameters).toEqual(decl?.input_schema);
    expect(editTitleReq?.toolNames).toContain('auth_inventory__get_stock');
    expect(searches(hubRoutes())).toBe(2);

    // Archive: every business call carries its target from the cache.
    const events = await runtime.archiveEvents(sessionId);
    const calls = events.filter(
      (e): e is Extract<ArchiveEvent, { kind: 'tool_call' }> => e.kind === 'tool_call' && e.target !== null,
    );
    expect(calls.map((c) => [c.target?.authorization_ref, c.target?.tool])).toEqual([
      [AUTH.shopA, 'update_product_content'],
      [AUTH.inventory, 'find_sku'],
      [AUTH.inventory, 'get_stock'],
      [AUTH.shopA, 'update_product_content'],
    ]);
    // One run per authorization for the turn, ended at the end of the turn.
    expect(hubRoutes().filter((x) => x === 'POST /agent/v1/runs')).toHaveLength(2);
    expect(hubRoutes().filter((x) => x.endsWith('/end'))).toHaveLength(2);
  });

  it('a follow-up reuses cached declarations with zero searches', async () => {
    env.model.setScript([
      {
        name: 'direct',
        match: { userIncludes: 'follow-up' },
        reply: { toolCalls: [{ name: 'auth_shop_a__get_product', arguments: { product_id: 42 } }] },
      },
      {
        name: 'answer',
        match: { afterToolResultFor: 'auth_shop_a__get_product' },
        reply: { text: 'It reads "Stoneware mug".' },
      },
    ]);
    env.proxy.reset();
    const r = await runtime.sendMessage(
      sessionId,
      'A follow-up: what is the title of product 42 in Shop A now?',
    );
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);
    const reqs = hubRoutes();
    expect(searches(reqs)).toBe(0);
    expect(reqs).toEqual([
      'POST /agent/v1/runs',
      'POST /agent/v1/invocations',
      expect.stringMatching(/^POST \/agent\/v1\/runs\/.+\/end$/),
    ]);
    const answerReq = env.model.requests().find((q) => q.matchedStep === 'answer');
    expect(toolMessages(answerReq!).at(-1)).toMatchObject({
      state: 'succeeded',
      authorization_ref: AUTH.shopA,
    });
  });

  it('with reuse off, the next turn must search again', async () => {
    await runtime.setReuseDeclarations(sessionId, false);
    env.model.setScript([
      {
        name: 'direct-reuse-off',
        match: { userIncludes: 'reuse off' },
        reply: { toolCalls: [{ name: 'auth_shop_a__get_product', arguments: { product_id: 42 } }] },
      },
      {
        name: 'search',
        match: { afterToolResultFor: 'auth_shop_a__get_product', toolResultIncludes: 'tool_not_loaded' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'get product' } }] },
      },
      {
        name: 'again',
        match: { afterToolResultFor: 'search_tools' },
        reply: { toolCalls: [{ name: 'auth_shop_a__get_product', arguments: { product_id: 42 } }] },
      },
      {
        name: 'answer-reuse-off',
        match: { afterToolResultFor: 'auth_shop_a__get_product', toolResultIncludes: 'succeeded' },
        reply: { text: 'Done.' },
      },
    ]);
    env.proxy.reset();
    const r = await runtime.sendMessage(sessionId, 'With reuse off: read product 42 of Shop A again.');
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);
    const first = env.model.requests().find((q) => q.matchedStep === 'direct-reuse-off');
    expect(first?.toolNames).toEqual([
      'search_tools',
      'inspect_governed_tool_invocation',
      'resume_governed_tool_invocation',
    ]);
    expect(searches(hubRoutes())).toBe(1);
    // the first (unloaded) call was never sent: exactly one invoke this turn
    expect(hubRoutes().filter((x) => x === 'POST /agent/v1/invocations')).toHaveLength(1);
    await runtime.setReuseDeclarations(sessionId, true);
  });

  it('"thanks" makes zero Hub requests of any kind', async () => {
    env.model.setScript([{ match: { userEquals: 'thanks' }, reply: { text: 'You are welcome.' } }]);
    env.proxy.reset();
    const before = await env.hubMetrics();
    const r = await runtime.sendMessage(sessionId, 'thanks');
    expect(r).toMatchObject({ outcome: 'completed', text: 'You are welcome.' });
    expect(env.proxy.requests()).toEqual([]);
    const after = await env.hubMetrics();
    expect(after.requests_total).toBe(before.requests_total);
  });

  it('two systems with update_product and two shops with product 42 each reach the right authorization', async () => {
    const beforeA = env.demo.shopA.ledger().length;
    const beforeB = env.demo.shopB.ledger().length;
    env.model.setScript([
      {
        name: 'search-both',
        match: { userIncludes: 'both shops' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product price', limit: 20 } }],
        },
      },
      {
        name: 'both',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            { name: 'auth_shop_a__update_product', arguments: { product_id: 42, price: 12.5 } },
            { name: 'auth_shop_b__update_product', arguments: { product_id: 42, price: 99 } },
          ],
        },
      },
      {
        name: 'done-both',
        match: { afterToolResultFor: 'auth_shop_b__update_product' },
        reply: { text: 'Both prices set.' },
      },
    ]);
    const r = await runtime.sendMessage(
      sessionId,
      'Set the price of product 42 in both shops: 12.5 in Shop A, 99 in Shop B.',
    );
    expect(r.outcome).toBe('completed');
    const a = env.demo.shopA.ledger().slice(beforeA);
    const b = env.demo.shopB.ledger().slice(beforeB);
    expect(a.map((l) => [l.operation, l.target, l.changes.price?.after])).toEqual([
      ['update_product', 'product:42', 12.5],
    ]);
    expect(b.map((l) => [l.operation, l.target, l.changes.price?.after])).toEqual([
      ['update_product', 'product:42', 99],
    ]);
    const done = env.model.requests().find((q) => q.matchedStep === 'done-both');
    const results = toolMessages(done!).slice(-2);
    expect(results.map((x) => [x.authorization_ref, x.tool, x.state])).toEqual([
      [AUTH.shopA, 'update_product', 'succeeded'],
      [AUTH.shopB, 'update_product', 'succeeded'],
    ]);
  });
});
