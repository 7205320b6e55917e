/**
 * All-member revalidation (revoked member blocks the group; Hub offline then back in the same
 * runtime), turn cancellation (model stream and in-flight call with a late receipt) and
 * declaration_changed eviction — real Hub, demo systems, scripted model, SQLite files.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ArchiveEvent, DeskRuntime, RuntimeEvent } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime, toolMessages } from './fixtures/runtime.js';

let env: RuntimeTestEnv | null = null;
const runtimes: DeskRuntime[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.close();
  await env?.close();
  env = null;
});

async function until<T>(fn: () => T | undefined | null | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function fresh(dataDir = newDataDir()) {
  const made = await startRuntime(env!, dataDir);
  runtimes.push(made.runtime);
  return made;
}

describe('whole-scope revalidation on reopen', () => {
  it('one revoked member blocks the whole group: no tools offered, nothing sent, nothing replayed', async () => {
    env = await startRuntimeTestEnv();
    const dataDir = newDataDir();
    const first = await fresh(dataDir);
    const s = await first.runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    await first.runtime.close();
    runtimes.length = 0;

    await env.admin.revokeAuthorization(AUTH.inventory);
    const second = await fresh(dataDir);
    env.proxy.reset();
    const opened = await second.runtime.openSession(s.sessionId);
    expect(opened.session.availability).toBe('blocked');
    expect(opened.session.availabilityReason).toBe('authorization_revoked');
    expect(opened.session.availabilityRef).toBe(AUTH.inventory);
    // Reopening only read the authorizations: no run, no search, no invoke, no resume.
    expect(env.proxy.requests()).toEqual(['GET /agent/v1/authorizations']);

    env.model.setScript([
      {
        name: 'blocked-try',
        match: { userIncludes: 'shop A' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product' } }] },
      },
      { name: 'blocked-answer', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'Blocked.' } },
    ]);
    env.proxy.reset();
    const r = await second.runtime.sendMessage(
      s.sessionId,
      'Edit product 42 in shop A (the surviving member).',
    );
    expect(r.outcome).toBe('completed');
    const req = env.model.requests().find((q) => q.matchedStep === 'blocked-try');
    expect(req?.toolNames).toEqual([]);
    const sys = req?.messages[0]?.content;
    expect(String(sys)).toContain('blocked');
    const fb = toolMessages(env.model.requests().find((q) => q.matchedStep === 'blocked-answer')!).at(-1) as {
      feedback: { category: string };
    };
    expect(fb.feedback.category).toBe('blocked');
    expect(env.proxy.requests()).toEqual([]);
    expect(env.demo.shopA.ledger()).toEqual([]);
  });

  it('a Hub that is offline keeps the session closed (chat asks nothing); when it returns the same runtime recovers', async () => {
    env = await startRuntimeTestEnv();
    const dataDir = newDataDir();
    const first = await fresh(dataDir);
    const s = await first.runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    await first.runtime.close();
    runtimes.length = 0;

    const second = await fresh(dataDir);
    env.proxy.setOffline(true);
    const opened = await second.runtime.openSession(s.sessionId);
    expect(opened.session.availability).toBe('offline');
    env.model.setScript([
      { name: 'offline-chat', match: { userIncludes: 'status' }, reply: { text: 'The Hub is unreachable.' } },
    ]);
    env.proxy.reset();
    const r = await second.runtime.sendMessage(s.sessionId, 'status?');
    expect(r.outcome).toBe('completed');
    // Offline is not blocked: the tools stay offered (a call re-checks the scope before it needs the
    // Hub, see test/invariants/inv08-lazy-scope-check), but a text-only turn asks the Hub nothing.
    const offlineReq = env.model.requests().find((q) => q.matchedStep === 'offline-chat');
    expect(offlineReq?.toolNames).toContain('search_tools');
    expect(String(offlineReq?.messages[0]?.content)).toContain('could not be reached');
    expect(env.proxy.requests()).toEqual([]);

    env.proxy.setOffline(false);
    const again = await second.runtime.openSession(s.sessionId);
    expect(again.session.availability).toBe('open');
    env.model.setScript([
      {
        name: 'back-search',
        match: { userIncludes: 'back' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'get product' } }] },
      },
      {
        name: 'back-read',
        match: { afterToolResultFor: 'search_tools' },
        reply: { toolCalls: [{ name: 'auth_shop_b__get_product', arguments: { product_id: 42 } }] },
      },
      {
        name: 'back-done',
        match: { afterToolResultFor: 'auth_shop_b__get_product' },
        reply: { text: 'Read it.' },
      },
    ]);
    const back = await second.runtime.sendMessage(s.sessionId, 'The Hub is back: read product 42 of shop B.');
    expect(back.outcome).toBe('completed');
    const res = toolMessages(env.model.requests().find((q) => q.matchedStep === 'back-done')!).at(-1);
    expect(res).toMatchObject({ state: 'succeeded', authorization_ref: AUTH.shopB });
  });
});

describe('turn cancellation', () => {
  it('stops the model stream', async () => {
    env = await startRuntimeTestEnv();
    const { runtime, events } = await fresh();
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 'slow',
        match: { userIncludes: 'long story' },
        reply: { text: 'Once upon a time, in a very long story...', stallAfterFirstChunkMs: 20_000 },
      },
    ]);
    env.proxy.reset();
    const pending = runtime.sendMessage(s.sessionId, 'Tell me a long story');
    await until(() => events.some((e) => e.type === 'message.delta'));
    await runtime.cancelTurn(s.sessionId);
    const r = await pending;
    expect(r.outcome).toBe('cancelled');
    await until(() => env!.model.requests()[0]?.clientClosedEarly);
    const stored = await runtime.archiveEvents(s.sessionId);
    expect(stored.map((e) => e.kind)).toEqual([
      'session_created',
      'turn_started',
      'user_message',
      'control',
      'assistant_message',
      'turn_ended',
    ]);
    const partial = stored.find(
      (e): e is Extract<ArchiveEvent, { kind: 'assistant_message' }> => e.kind === 'assistant_message',
    );
    expect(partial).toMatchObject({ finish: 'cancelled' });
    expect(partial!.text.length).toBeLessThan('Once upon a time, in a very long story...'.length); // the stream was stopped, not awaited
    expect(env.proxy.requests()).toEqual([]);
  });

  it("refuses the turn's further calls; a call already sent keeps its late receipt without re-enabling the turn", async () => {
    env = await startRuntimeTestEnv();
    const { runtime, events } = await fresh();
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    env.model.setScript([
      {
        name: 'c-load',
        match: { userIncludes: 'load' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
        },
      },
      { name: 'c-loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'ok' } },
    ]);
    await runtime.sendMessage(s.sessionId, 'load');
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 1_500 });
    env.model.setScript([
      {
        name: 'two-edits',
        match: { userIncludes: 'two edits' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'slow edit' },
            },
            {
              name: 'auth_shop_b__update_product_content',
              arguments: { product_id: 42, description: 'never sent' },
            },
          ],
        },
      },
      { name: 'must-not-happen', reply: { text: 'continued after cancel' } },
    ]);
    const requestsBefore = env.model.requests().length;
    env.proxy.reset();
    const pending = runtime.sendMessage(s.sessionId, 'Make two edits');
    await until(() => env!.demo.shopA.requests().some((q) => q.operation === 'update_product_content'));
    await runtime.cancelTurn(s.sessionId);
    const r = await pending;
    expect(r.outcome).toBe('cancelled');

    // The late receipt of the call already sent is recorded and shown as late.
    const late = await until(() =>
      events.find(
        (e): e is Extract<RuntimeEvent, { type: 'archive.event' }> =>
          e.type === 'archive.event' && e.event.kind === 'receipt',
      ),
    );
    expect(late.event).toMatchObject({ kind: 'receipt', late: true, state: 'succeeded' });
    const lateCard = events
      .filter((e): e is Extract<RuntimeEvent, { type: 'tool.card' }> => e.type === 'tool.card')
      .at(-1);
    expect(lateCard?.card).toMatchObject({
      late: true,
      state: 'succeeded',
      functionName: 'auth_shop_a__update_product_content',
    });

    expect(env.demo.shopA.ledger()).toHaveLength(1);
    expect(env.demo.shopB.ledger()).toEqual([]);
    expect(env.proxy.requests().filter((x) => x === 'POST /agent/v1/invocations')).toHaveLength(1);
    // The model was not asked again in the cancelled turn.
    expect(env.model.requests().length).toBe(requestsBefore + 1);
    const stored = await runtime.archiveEvents(s.sessionId);
    const refused = stored.find(
      (e): e is Extract<ArchiveEvent, { kind: 'tool_result' }> =>
        e.kind === 'tool_result' && e.functionName === 'auth_shop_b__update_product_content',
    );
    expect(refused?.feedback?.code).toBe('turn_cancelled');
    const ends = stored.filter((e) => e.kind === 'turn_ended');
    expect(ends.at(-1)).toMatchObject({ outcome: 'cancelled' });
    // the late receipt comes after the turn ended
    expect(stored.findIndex((e) => e.kind === 'receipt')).toBeGreaterThan(stored.lastIndexOf(ends.at(-1)!));
  });
});

describe('declaration_changed', () => {
  it('evicts the cached declaration and tells the model to search again; nothing sent with the old revision', async () => {
    env = await startRuntimeTestEnv();
    const { runtime } = await fresh();
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 'dc-load',
        match: { userIncludes: 'load' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
        },
      },
      { name: 'dc-loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'ok' } },
    ]);
    await runtime.sendMessage(s.sessionId, 'load');
    const oldSchema = (await runtime.cachedDeclarations(s.sessionId)).find(
      (d) => d.functionName === 'auth_shop_a__update_product_content',
    )?.input_schema;

    env.demo.shopA.setSpecVariant('v2');
    await env.admin.refreshSystem('shop-a');
    env.model.setScript([
      {
        name: 'dc-stale',
        match: { userIncludes: 'edit' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'v2 text' },
            },
          ],
        },
      },
      {
        name: 'dc-research',
        match: {
          afterToolResultFor: 'auth_shop_a__update_product_content',
          toolResultIncludes: 'declaration_changed',
        },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
        },
      },
      {
        name: 'dc-retry',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'v2 text' },
            },
          ],
        },
      },
      {
        name: 'dc-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content', toolResultIncludes: 'succeeded' },
        reply: { text: 'Edited.' },
      },
    ]);
    const r = await runtime.sendMessage(s.sessionId, 'edit product 42');
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);
    const stale = toolMessages(env.model.requests().find((q) => q.matchedStep === 'dc-research')!).at(-1) as {
      feedback: { code: string; next_action: string };
    };
    expect(stale.feedback).toMatchObject({ code: 'declaration_changed', next_action: 'search_tools' });
    const retryReq = env.model.requests().find((q) => q.matchedStep === 'dc-retry');
    const newSchema = retryReq?.tools.find((t) => t.function.name === 'auth_shop_a__update_product_content')
      ?.function.parameters;
    expect(newSchema).not.toEqual(oldSchema);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });
});
