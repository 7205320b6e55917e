/**
 * The host shows a call whose request never left the Hub as not sent: its card is "Not dispatched"
 * with the Hub's not-sent reason code (worded by the renderer), the journal records
 * `not_dispatched`, nothing is listed as needing attention, and the shop saw nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationItems } from '../../src-main/handlers/conversation.js';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { closedPort } from '../hub/dispatch/servers.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime, toolMessages } from './fixtures/runtime.js';

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

describe('a call the Hub could not send', () => {
  it('is a Not dispatched card with its reason code; the journal says not_dispatched; nothing reached the shop', async () => {
    const sys = await env.hub.store.getSystem('shop-a');
    if (!sys) throw new Error('shop-a missing');
    await env.hub.store.upsertSystem({ ...sys, base_url: await closedPort() }, new Date().toISOString(), {
      actor: 'test',
      kind: 'system.moved',
      detail: {},
    });
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 'ns-search',
        match: { userIncludes: 'edit it' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
      },
      {
        name: 'ns-edit',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'never left' },
            },
          ],
        },
      },
      {
        name: 'ns-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'It was not sent.' },
      },
    ]);
    await runtime.sendMessage(s.sessionId, 'Please edit it');
    const result = toolMessages(env.model.requests().find((q) => q.matchedStep === 'ns-done')!).at(-1) as {
      feedback: { category: string; code: string };
    };
    expect(result.feedback).toMatchObject({ category: 'not_dispatched', code: 'not_sent_connect_refused' });

    const journal = await runtime.journalStatus(s.sessionId);
    expect(journal.entries.map((e) => e.last_known_state)).toEqual(['not_dispatched']);
    const cards = conversationItems(await runtime.archiveEvents(s.sessionId), journal.entries).flatMap((i) =>
      i.kind === 'tool_call' && i.tool === 'update_product_content' ? [i] : [],
    );
    expect(cards.map((c) => c.state)).toEqual(['not_dispatched']);
    expect(cards[0]?.feedback?.code).toBe('not_sent_connect_refused');
    expect(env.demo.shopA.requests().filter((r) => r.kind === 'operation')).toHaveLength(0);
    expect((await env.hubMetrics()).dispatches).toBe(0);
  });
});
