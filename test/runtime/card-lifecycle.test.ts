/**
 * A governed call's card through its life and across a restart (real Hub, demo systems, scripted
 * model, SQLite files; the crash case uses a SIGKILLed host process):
 * - `pending_dispatch` only until the fence is saved; "Running" (`dispatching`) while the request is
 *   at the business system; then the receipt's state;
 * - a reopened conversation shows every card in the state it ended in (not "Checking");
 * - a saved fence whose request never reached the Hub is offered for an explicit Resume, which
 *   yields the authoritative `invocation_not_found` (unverified, inspect original) and re-sends nothing.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { INVOCATION_ID_PATTERN } from '../../src-shared/invocation-id.js';
import { conversationItems } from '../../src-main/handlers/conversation.js';
import { listUnresolved } from '../../src-main/handlers/unresolved.js';
import type {
  DeskRuntime,
  RuntimeEvent,
  SessionSummary,
  ToolCallCard,
} from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { spawnHost, type HostHandle } from './fixtures/host-handle.js';
import { newDataDir, startRuntime } from './fixtures/runtime.js';

let env: RuntimeTestEnv | null = null;
const runtimes: DeskRuntime[] = [];
const hosts: HostHandle[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const r of runtimes.splice(0)) await r.close();
  for (const h of hosts.splice(0)) await h.stop().catch(() => undefined);
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await env?.close();
  env = null;
});

async function until<T>(
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
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

const cardsOf = (events: RuntimeEvent[], functionName: string): ToolCallCard[] =>
  events
    .filter((e): e is Extract<RuntimeEvent, { type: 'tool.card' }> => e.type === 'tool.card')
    .map((e) => e.card)
    .filter((c) => c.functionName === functionName);

/** Consecutive duplicates removed. */
const phases = (cards: ToolCallCard[]) =>
  cards.map((c) => c.state).filter((s, i, all) => i === 0 || all[i - 1] !== s);

const loadScript = (fn: string) => [
  {
    name: `${fn}-load`,
    match: { userIncludes: 'load' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: fn, limit: 20 } }] },
  },
  { name: `${fn}-loaded`, match: { afterToolResultFor: 'search_tools' }, reply: { text: 'loaded' } },
];

describe('call card lifecycle', () => {
  it('reads pending_dispatch only until the fence is saved, "Running" while the request is at the shop, then the receipt state', async () => {
    env = await startRuntimeTestEnv();
    const { runtime, events } = await fresh();
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript(loadScript('update product content'));
    await runtime.sendMessage(s.sessionId, 'load');
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 1_500 });
    env.model.setScript([
      {
        name: 'edit',
        match: { userIncludes: 'slow edit' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 7, description: 'slow edit' },
            },
          ],
        },
      },
      {
        name: 'done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'Done.' },
      },
    ]);
    const pending = runtime.sendMessage(s.sessionId, 'Make a slow edit');
    // The request is at the shop (held there by the delay): the card must say so.
    await until(() => env!.demo.shopA.requests().some((q) => q.operation === 'update_product_content'));
    const atShop = cardsOf(events, 'auth_shop_a__update_product_content').at(-1);
    expect(atShop?.state).toBe('dispatching');
    // the desk's own id (time, then 128 random bits), and the business system got it as the key
    expect(atShop?.invocation_id).toMatch(INVOCATION_ID_PATTERN);
    expect(
      env!.demo.shopA
        .requests()
        .filter((q) => q.operation === 'update_product_content')
        .map((q) => q.idempotency_key),
    ).toEqual([atShop?.invocation_id]);
    // The fence was saved before the card left pending_dispatch.
    const journal = await runtime.journalStatus(s.sessionId);
    expect(journal.entries.map((e) => e.invocation_id)).toContain(atShop?.invocation_id);
    expect((await pending).outcome).toBe('completed');
    expect(phases(cardsOf(events, 'auth_shop_a__update_product_content'))).toEqual([
      'validating',
      'pending_dispatch',
      'dispatching',
      'succeeded',
    ]);
  }, 60_000);

  it('a call refused before dispatch never reads "Running"', async () => {
    env = await startRuntimeTestEnv();
    const { runtime, events } = await fresh();
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript(loadScript('update product content'));
    await runtime.sendMessage(s.sessionId, 'load');
    env.model.setScript([
      {
        name: 'bad',
        match: { userIncludes: 'bad edit' },
        reply: {
          toolCalls: [{ name: 'auth_shop_a__update_product_content', arguments: { product_id: 'x' } }],
        },
      },
      {
        name: 'done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'Refused.' },
      },
    ]);
    await runtime.sendMessage(s.sessionId, 'a bad edit');
    expect(phases(cardsOf(events, 'auth_shop_a__update_product_content'))).toEqual(['validating', 'refused']);
  }, 60_000);
});

describe('reopened conversation', () => {
  it('shows each card in the state it ended in before the restart (completed, refused, awaiting approval, result needs checking)', async () => {
    env = await startRuntimeTestEnv();
    const dataDir = newDataDir();
    const first = await fresh(dataDir);
    const s = await first.runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 'load-a',
        match: { userIncludes: 'load' },
        reply: {
          toolCalls: [
            {
              name: 'search_tools',
              arguments: { query: 'update product content publish listing', limit: 20 },
            },
          ],
        },
      },
      { name: 'loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'loaded' } },
    ]);
    await first.runtime.sendMessage(s.sessionId, 'load');
    env.model.setScript([
      {
        name: 'work',
        match: { userIncludes: 'work' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 7, description: 'fine' },
            },
            { name: 'auth_shop_a__update_product_content', arguments: { product_id: 'not a number' } },
            { name: 'auth_shop_a__publish_listing', arguments: { product_id: 13, channel: 'web' } },
          ],
        },
      },
      {
        name: 'worked',
        match: { afterToolResultFor: 'auth_shop_a__publish_listing' },
        reply: { text: 'Worked.' },
      },
    ]);
    await first.runtime.sendMessage(s.sessionId, 'work');
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    env.model.setScript([
      {
        name: 'lost',
        match: { userIncludes: 'lost' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'lost ack' },
            },
          ],
        },
      },
      {
        name: 'lost-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'Needs checking.' },
      },
    ]);
    await first.runtime.sendMessage(s.sessionId, 'lost ack');
    const liveFinal = new Map<string, string>();
    for (const e of first.events)
      if (e.type === 'tool.card' && e.card.functionName !== 'search_tools')
        liveFinal.set(e.card.callId, e.card.state);
    expect([...liveFinal.values()]).toEqual(['succeeded', 'refused', 'awaiting_approval', 'unknown']);
    await first.runtime.close();
    runtimes.splice(runtimes.indexOf(first.runtime), 1);

    const second = await fresh(dataDir);
    const opened = await second.runtime.openSession(s.sessionId);
    const items = conversationItems(opened.events, opened.journal.entries).filter(
      (i): i is Extract<typeof i, { kind: 'tool_call' }> =>
        i.kind === 'tool_call' && i.function_name !== 'search_tools',
    );
    expect(items.map((i) => [i.id, i.state])).toEqual([...liveFinal.entries()]);
    expect(items.map((i) => i.effect)).toEqual(['write', 'write', 'write', 'write']);
    // Only the unknown one can be resumed; nothing reads "Checking".
    expect(items.map((i) => i.can_resume)).toEqual([false, false, false, true]);
  }, 90_000);
});

/** A proxy in front of the Hub that, while `holding`, holds (never forwards, never answers) every invoke. */
async function holdingProxy(target: string): Promise<{ url: string; held: () => string[]; release(): void }> {
  const held: string[] = [];
  let holding = true;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (holding && req.method === 'POST' && req.url === '/agent/v1/invocations') {
        held.push(body.toString());
        return; // held: the request never reaches the Hub
      }
      const up = httpRequest(
        new URL(req.url ?? '/', target),
        { method: req.method, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => [...held],
    release: () => void (holding = false),
  };
}

describe('saved fence, host killed before the request reached the Hub', () => {
  it('is listed with an explicit Resume; resume yields invocation_not_found (unverified, inspect original) and sends nothing', async () => {
    env = await startRuntimeTestEnv();
    const dataDir = newDataDir();
    const hold = await holdingProxy(env.proxy.url);
    const h1 = await spawnHost({ ...env, proxy: { ...env.proxy, url: hold.url } }, dataDir);
    hosts.push(h1);
    const s = await h1.call<SessionSummary>('createSession', {
      title: 'fence',
      authorizationRefs: [AUTH.shopA],
    });
    env.model.setScript([
      {
        name: 'f-search',
        match: { userIncludes: 'fence' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
        },
      },
      {
        name: 'f-edit',
        match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'fence' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 7, description: 'held' },
            },
          ],
        },
      },
      {
        name: 'f-never',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'unreachable' },
      },
    ]);
    h1.fire('sendMessage', s.sessionId, 'fence edit of product 7');
    await until(() => hold.held().length === 1);
    const id = (JSON.parse(hold.held()[0]!) as { invocation_id: string }).invocation_id;
    await h1.kill();
    hosts.splice(hosts.indexOf(h1), 1);
    hold.release();
    env.proxy.reset();

    // Same Hub URL as before (the connection is part of the session's identity).
    const made = await startRuntime({ ...env, proxy: { ...env.proxy, url: hold.url } }, dataDir);
    runtimes.push(made.runtime);
    const { runtime } = made;
    await runtime.openSession(s.sessionId);
    const rows = await listUnresolved({ runtime, hub: { lastReceipt: () => null } });
    const row = rows.find((r) => r.invocation_id === id);
    expect(row).toMatchObject({
      journal_entry_state: 'pending_dispatch',
      hub_state: null,
      can_inspect: true,
      can_resume: true,
      unsaved: false,
    });

    const env2 = await runtime.resumeInvocation(s.sessionId, id);
    expect(env2.receipt).toBeNull();
    expect(env2.feedback).toMatchObject({
      code: 'invocation_not_found',
      next_action: 'inspect_original',
      original_outcome: 'unverified',
    });
    // No automatic retry: no invoke, nothing at the shop, the record is kept.
    await new Promise((r) => setTimeout(r, 500));
    expect(env.proxy.requests()).not.toContain('POST /agent/v1/invocations');
    expect(env.demo.shopA.requests().some((q) => q.idempotency_key === id)).toBe(false);
    expect(env.demo.shopA.ledger()).toEqual([]);
    expect((await runtime.journalStatus(s.sessionId)).entries.map((e) => e.invocation_id)).toContain(id);
  }, 90_000);
});
