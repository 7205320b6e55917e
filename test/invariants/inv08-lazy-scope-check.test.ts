/**
 * Invariant 8 to the letter, for a session whose last scope check found the Hub unreachable: the
 * scope is re-checked lazily, only when a tool call is about to need the Hub, never because the
 * operator typed something. Real Hub, real demo systems, real HTTP; every request the host makes is
 * counted at the proxy in front of the Hub (which, "offline", destroys each connection unanswered).
 *
 * Setup of each test: a scoped session is created, the host is closed and started again on the
 * same data directory, and the session is opened while the Hub is unreachable (-> `offline`).
 */
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { DeskRuntime, SessionAvailability } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { newDataDir, startRuntime, toolMessages } from '../runtime/fixtures/runtime.js';

let env: RuntimeTestEnv;
const runtimes: DeskRuntime[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
}, 30_000);
afterEach(async () => {
  env.proxy.setOffline(false);
  for (const r of runtimes.splice(0)) await r.close();
});
afterAll(async () => {
  await env?.close();
});

const SCOPE_CHECK = 'GET /agent/v1/authorizations';

/**
 * A scoped session, reopened in a fresh host while the Hub is unreachable: its scope is `offline`.
 * `attemptsPerCheck`: the HTTP attempts one scope check makes against the unreachable Hub (the Hub
 * client sends a read once more when its connection is reset before any answer: one check, two
 * attempts), measured on that open.
 */
async function offlineSession(): Promise<{
  runtime: DeskRuntime;
  sessionId: string;
  attemptsPerCheck: number;
}> {
  const dataDir = newDataDir();
  const first = (await startRuntime(env, dataDir)).runtime;
  const s = await first.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
  await first.close();
  const runtime = (await startRuntime(env, dataDir)).runtime;
  runtimes.push(runtime);
  env.proxy.setOffline(true);
  env.proxy.reset();
  const opened = await runtime.openSession(s.sessionId);
  expect(opened.session.availability).toBe('offline');
  const attempts = env.proxy.requests();
  expect(attempts.length).toBeGreaterThanOrEqual(1);
  expect(attempts.every((x) => x === SCOPE_CHECK)).toBe(true);
  return { runtime, sessionId: s.sessionId, attemptsPerCheck: attempts.length };
}

async function availabilityOf(
  runtime: DeskRuntime,
  sessionId: string,
): Promise<SessionAvailability | undefined> {
  return (await runtime.listSessions()).find((x) => x.sessionId === sessionId)?.availability;
}

const EDIT = 'auth_shop_a__update_product_content';

describe('invariant 8: an offline scope is re-checked only when a tool call needs the Hub', () => {
  it('(a) the Hub is back, "thanks" makes zero Hub requests and the session stays offline', async () => {
    const { runtime, sessionId } = await offlineSession();
    env.proxy.setOffline(false);
    env.proxy.reset();
    env.model.setScript([
      { name: 'lazy-thanks', match: { userIncludes: 'thanks' }, reply: { text: 'You are welcome.' } },
    ]);
    const r = await runtime.sendMessage(sessionId, 'thanks');
    expect(r).toMatchObject({ outcome: 'completed', text: 'You are welcome.' });
    expect(env.proxy.requests()).toEqual([]);
    expect(await availabilityOf(runtime, sessionId)).toBe('offline');
    // The tools stay offered (a call would re-check first), and the model is told the truth.
    const req = env.model.requests().find((q) => q.matchedStep === 'lazy-thanks');
    expect(req?.toolNames).toContain('search_tools');
    expect(String(req?.messages[0]?.content)).toContain('re-checks the scope');
    // Reading the conversation's status, cached tools and journal is local too.
    await runtime.cachedDeclarations(sessionId);
    await runtime.journalStatus(sessionId);
    expect(env.proxy.requests()).toEqual([]);
  });

  it('(b) the Hub is back, a reply that calls a governed tool: exactly one scope check, then the call goes through once', async () => {
    const { runtime, sessionId } = await offlineSession();
    env.proxy.setOffline(false);
    env.proxy.reset();
    const before = env.demo.shopA.ledger().length;
    env.model.setScript([
      {
        name: 'lazy-edit',
        match: { userIncludes: 'Rewrite' },
        // Two calls in ONE model response: the search loads the tool the second call uses.
        reply: {
          toolCalls: [
            { name: 'search_tools', arguments: { query: 'update product content', limit: 20 } },
            { name: EDIT, arguments: { product_id: 42, description: 'Lazily re-checked description' } },
          ],
        },
      },
      { name: 'lazy-edit-done', match: { afterToolResultFor: EDIT }, reply: { text: 'Done.' } },
    ]);
    const r = await runtime.sendMessage(sessionId, 'Rewrite the description of product 42 in shop A.');
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);

    const seen = env.proxy.requests();
    expect(seen.filter((x) => x === SCOPE_CHECK)).toHaveLength(1);
    expect(seen[0]).toBe(SCOPE_CHECK); // before anything else reached the Hub
    expect(seen.filter((x) => x === 'POST /agent/v1/invocations')).toHaveLength(1);
    expect(await availabilityOf(runtime, sessionId)).toBe('open');

    const results = toolMessages(env.model.requests().find((q) => q.matchedStep === 'lazy-edit-done')!);
    expect(results.at(-1)).toMatchObject({ state: 'succeeded', authorization_ref: AUTH.shopA });
    const ledger = env.demo.shopA.ledger().slice(before);
    expect(ledger).toHaveLength(1);
    const journal = await runtime.journalStatus(sessionId);
    expect(journal.entries).toHaveLength(1);
    expect(journal.entries[0]).toMatchObject({
      authorization_ref: AUTH.shopA,
      tool: 'update_product_content',
      last_known_state: 'succeeded',
    });

    // The scope is open now: a later message needs no further check.
    env.proxy.reset();
    env.model.setScript([{ name: 'after', match: { userIncludes: 'thanks' }, reply: { text: 'Any time.' } }]);
    await runtime.sendMessage(sessionId, 'thanks');
    expect(env.proxy.requests()).toEqual([]);
  });

  it('(c) the Hub is still unreachable when the tool call comes: refused as offline, nothing sent, one check per turn', async () => {
    const { runtime, sessionId, attemptsPerCheck } = await offlineSession();
    env.proxy.reset();
    const before = env.demo.shopA.ledger().length;
    env.model.setScript([
      {
        name: 'down-try',
        match: { userIncludes: 'Rewrite' },
        reply: {
          toolCalls: [
            { name: 'search_tools', arguments: { query: 'update product content' } },
            { name: EDIT, arguments: { product_id: 42, description: 'never sent' } },
          ],
        },
      },
      // The model tries once more in the same turn: the turn already asked, so no second request.
      {
        name: 'down-retry',
        match: { afterToolResultFor: EDIT },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product' } }] },
      },
      {
        name: 'down-answer',
        match: { afterToolResultFor: 'search_tools' },
        reply: { text: 'The Hub is unreachable; nothing was changed.' },
      },
    ]);
    const r = await runtime.sendMessage(sessionId, 'Rewrite the description of product 42 in shop A.');
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);

    // One lazy scope check (unanswered), nothing else: no search, no run, no invoke.
    expect(env.proxy.requests()).toEqual(Array<string>(attemptsPerCheck).fill(SCOPE_CHECK));
    expect(await availabilityOf(runtime, sessionId)).toBe('offline');

    const first = toolMessages(env.model.requests().find((q) => q.matchedStep === 'down-retry')!);
    expect(first[0]).toMatchObject({ ok: false, feedback: { category: 'blocked', next_action: 'wait' } });
    expect(String((first[0] as { feedback: { message: string } }).feedback.message)).toContain('offline');
    // The edit's tool was never loaded (its search was refused): refused locally, nothing sent.
    expect(first[1]).toMatchObject({ ok: false, feedback: { code: 'tool_not_loaded' } });
    const last = toolMessages(env.model.requests().find((q) => q.matchedStep === 'down-answer')!).at(-1);
    expect(last).toMatchObject({ ok: false, feedback: { category: 'blocked' } });

    expect(env.demo.shopA.ledger().slice(before)).toEqual([]);
    expect((await runtime.journalStatus(sessionId)).entries).toEqual([]);

    // A later turn may check again (the Hub may be back by then): exactly once more.
    env.proxy.setOffline(false);
    env.proxy.reset();
    env.model.setScript([
      {
        name: 'up-search',
        match: { userIncludes: 'again' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
      },
      { name: 'up-answer', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'Loaded.' } },
    ]);
    await runtime.sendMessage(sessionId, 'Try again.');
    expect(env.proxy.requests()).toEqual([SCOPE_CHECK, 'POST /agent/v1/tools/search']);
    expect(await availabilityOf(runtime, sessionId)).toBe('open');
  });

  it('the model inspecting an earlier call re-checks the scope once, then reads the original receipt (no write)', async () => {
    const dataDir = newDataDir();
    const first = (await startRuntime(env, dataDir)).runtime;
    runtimes.push(first);
    const s = await first.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    await first.searchTools(s.sessionId, 'update product content');
    const { card } = await first.runToolManually(s.sessionId, EDIT, {
      product_id: 42,
      description: 'Before the Hub went away',
    });
    expect(card.state).toBe('succeeded');
    const id = card.invocation_id!;
    await first.close();
    const writes = env.demo.shopA.ledger().length;

    const runtime = (await startRuntime(env, dataDir)).runtime;
    runtimes.push(runtime);
    env.proxy.setOffline(true);
    expect((await runtime.openSession(s.sessionId)).session.availability).toBe('offline');
    env.proxy.setOffline(false);
    env.proxy.reset();
    env.model.setScript([
      {
        name: 'inspect-it',
        match: { userIncludes: 'happened' },
        reply: {
          toolCalls: [{ name: 'inspect_governed_tool_invocation', arguments: { invocation_id: id } }],
        },
      },
      {
        name: 'inspected',
        match: { afterToolResultFor: 'inspect_governed_tool_invocation' },
        reply: { text: 'It completed.' },
      },
    ]);
    await runtime.sendMessage(s.sessionId, 'What happened to the edit?');
    expect(env.proxy.requests()).toEqual([SCOPE_CHECK, `GET /agent/v1/invocations/${id}`]);
    const result = toolMessages(env.model.requests().find((q) => q.matchedStep === 'inspected')!).at(-1);
    expect(result).toMatchObject({ invocation_id: id, state: 'succeeded', action: 'inspect' });
    expect(env.demo.shopA.ledger()).toHaveLength(writes);
  });

  it('a call that fails its local checks needs no Hub, so it makes no scope check', async () => {
    const { runtime, sessionId } = await offlineSession();
    env.proxy.setOffline(false);
    env.proxy.reset();
    env.model.setScript([
      {
        name: 'local-only',
        match: { userIncludes: 'local' },
        reply: {
          toolCalls: [
            { name: 'search_tools', arguments: { query: '' } }, // invalid: minLength 1
            { name: 'inspect_governed_tool_invocation', arguments: { invocation_id: 'x', extra: true } }, // invalid
            { name: EDIT, arguments: { product_id: 42, description: 'not loaded' } }, // not loaded
            { name: 'search_tools', arguments: '{not json' },
          ],
        },
      },
      {
        name: 'local-answer',
        match: { afterToolResultFor: 'search_tools' },
        reply: { text: 'Nothing to do.' },
      },
    ]);
    const r = await runtime.sendMessage(sessionId, 'local mistakes');
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);
    const codes = toolMessages(env.model.requests().find((q) => q.matchedStep === 'local-answer')!).map(
      (m) => (m as { feedback: { code: string } }).feedback.code,
    );
    expect(codes).toEqual([
      'arguments_invalid',
      'arguments_invalid',
      'tool_not_loaded',
      'malformed_arguments',
    ]);
    expect(env.proxy.requests()).toEqual([]);
    expect(await availabilityOf(runtime, sessionId)).toBe('offline');
  });

  it('needs of the Hub that arrive together share one scope check', async () => {
    const { runtime, sessionId } = await offlineSession();
    env.proxy.setOffline(false);
    env.proxy.reset();
    const [a, found, b] = await Promise.all([
      runtime.openSession(sessionId),
      runtime.searchTools(sessionId, 'update product content'),
      runtime.openSession(sessionId),
    ]);
    expect(env.proxy.requests().filter((x) => x === SCOPE_CHECK)).toHaveLength(1);
    expect(a.session.availability).toBe('open');
    expect(b.session.availability).toBe('open');
    expect(found.some((d) => d.functionName === EDIT)).toBe(true);
  });
});

describe('a scoped session a restarted host has not opened yet (not_opened)', () => {
  it('chat asks the Hub nothing; the first tool call checks the whole scope, and a revoked member blocks it with nothing sent', async () => {
    const own = await startRuntimeTestEnv();
    const local: DeskRuntime[] = [];
    try {
      const dataDir = newDataDir();
      const first = (await startRuntime(own, dataDir)).runtime;
      local.push(first);
      const s = await first.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
      await first.close();
      const runtime = (await startRuntime(own, dataDir)).runtime;
      local.push(runtime);

      own.proxy.reset();
      own.model.setScript([
        { name: 'no-open-thanks', match: { userIncludes: 'thanks' }, reply: { text: 'You are welcome.' } },
      ]);
      expect((await runtime.sendMessage(s.sessionId, 'thanks')).outcome).toBe('completed');
      expect(own.proxy.requests()).toEqual([]);
      expect(await availabilityOf(runtime, s.sessionId)).toBe('not_opened');

      await own.admin.revokeAuthorization(AUTH.inventory);
      own.proxy.reset();
      const before = own.demo.shopA.ledger().length;
      own.model.setScript([
        {
          name: 'no-open-search',
          match: { userIncludes: 'shop A' },
          reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
        },
        {
          name: 'no-open-answer',
          match: { afterToolResultFor: 'search_tools' },
          reply: { text: 'Blocked.' },
        },
      ]);
      await runtime.sendMessage(s.sessionId, 'Edit product 42 in shop A (the surviving member).');
      expect(own.proxy.requests()).toEqual([SCOPE_CHECK]); // the check, and no search
      const summary = (await runtime.listSessions()).find((x) => x.sessionId === s.sessionId);
      expect(summary).toMatchObject({
        availability: 'blocked',
        availabilityReason: 'authorization_revoked',
        availabilityRef: AUTH.inventory,
      });
      const answer = own.model.requests().find((q) => q.matchedStep === 'no-open-answer')!;
      expect(toolMessages(answer).at(-1)).toMatchObject({
        ok: false,
        feedback: { category: 'blocked', code: 'authorization_revoked', detail: AUTH.inventory },
      });
      expect(answer.toolNames).toEqual([]); // blocked: no tools offered any more
      expect(own.demo.shopA.ledger().length).toBe(before);
    } finally {
      for (const r of local) await r.close();
      await own.close();
    }
  });
});
