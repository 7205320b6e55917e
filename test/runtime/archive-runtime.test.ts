/**
 * The archive inside the runtime: an event that cannot be saved is never shown nor sent to the
 * model; the archive's storage_error stays visible independently of the journal; no secret is
 * ever written to the host's data files. Also: revocation during a living session drops the
 * authorization's declarations and blocks the whole scope.
 */
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskRuntime, RuntimeEvent } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { MODEL_KEY, newDataDir, startRuntime, toolMessages } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
let events: RuntimeEvent[];
let dataDir: string;

beforeAll(async () => {
  env = await startRuntimeTestEnv();
  dataDir = newDataDir();
  ({ runtime, events } = await startRuntime(env, dataDir));
});
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

describe('archive failures in a turn', () => {
  it('a user message the archive cannot save is not shown and not sent; storage_error is its own, visible until flushed', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    const modelBefore = env.model.requests().length;
    const lock = new Database(join(dataDir, 'archive.sqlite'));
    lock.exec('BEGIN EXCLUSIVE');
    const shownBefore = events.filter((e) => e.type === 'archive.event').length;
    let r;
    try {
      r = await runtime.sendMessage(s.sessionId, 'hello while the disk is locked');
    } finally {
      // status while still locked
      const st = await runtime.archiveStatus(s.sessionId);
      expect(st.state).toBe('storage_error');
      expect(st.unsavedEvents.map((u) => u.kind)).toContain('user_message');
      lock.exec('COMMIT');
      lock.close();
    }
    expect(r).toMatchObject({ outcome: 'refused', error: 'archive_storage_error' });
    expect(env.model.requests().length).toBe(modelBefore); // not sent to the model
    expect(events.filter((e) => e.type === 'archive.event').length).toBe(shownBefore); // not shown as saved
    expect(events.some((e) => e.type === 'archive.state' && e.archive.state === 'storage_error')).toBe(true);
    const journal = await runtime.journalStatus(s.sessionId);
    expect(journal.state).not.toBe('storage_error'); // independent states
    // Once the store is writable again the unsaved event is saved (nothing lost), and the state clears.
    const after = await runtime.archiveStatus(s.sessionId);
    expect(after).toMatchObject({ state: 'ready', unsavedEvents: [] });
    const stored = await runtime.archiveEvents(s.sessionId);
    expect(stored.filter((e) => e.kind === 'user_message').map((e) => (e as { text: string }).text)).toEqual([
      'hello while the disk is locked',
    ]);
  });

  it('no secret (model key, Hub token) reaches any file in the host data directory', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 'sec-search',
        match: { userIncludes: 'secret' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
      },
      {
        name: 'sec-edit',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: `key ${MODEL_KEY}` },
            },
          ],
        },
      },
      {
        name: 'sec-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: `done (token ${env.clientToken})` },
      },
    ]);
    await runtime.sendMessage(s.sessionId, `my secret key is ${MODEL_KEY}`);
    const bytes = readdirSync(dataDir)
      .map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
      .join('\n');
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes).not.toContain(MODEL_KEY);
    expect(bytes).not.toContain(env.clientToken);
    expect(bytes).not.toContain(env.clientToken.split('.')[1]!);
    const shown = JSON.stringify(events);
    expect(shown).not.toContain(MODEL_KEY);
    expect(shown).not.toContain(env.clientToken);
  });
});

describe('revocation during a living session', () => {
  it("drops the authorization's declarations, blocks the whole scope and sends nothing more", async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopB, AUTH.inventory] });
    env.model.setScript([
      {
        name: 'rv-load',
        match: { userIncludes: 'load' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'stock product', limit: 20 } }] },
      },
      { name: 'rv-loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'ok' } },
    ]);
    await runtime.sendMessage(s.sessionId, 'load');
    expect(
      (await runtime.cachedDeclarations(s.sessionId)).some(
        (d) => d.target.authorization_ref === AUTH.inventory,
      ),
    ).toBe(true);
    await env.admin.revokeAuthorization(AUTH.inventory);
    env.model.setScript([
      {
        name: 'rv-call',
        match: { userIncludes: 'stock' },
        reply: { toolCalls: [{ name: 'auth_inventory__get_stock', arguments: { sku: 'SKU-B-0042' } }] },
      },
      {
        name: 'rv-after',
        match: { afterToolResultFor: 'auth_inventory__get_stock' },
        reply: { toolCalls: [{ name: 'auth_shop_b__get_product', arguments: { product_id: 42 } }] },
      },
      {
        name: 'rv-end',
        match: { afterToolResultFor: 'auth_shop_b__get_product' },
        reply: { text: 'blocked' },
      },
    ]);
    const invokesBefore = (await env.hubMetrics()).invokes;
    const r = await runtime.sendMessage(s.sessionId, 'check stock');
    expect(r.outcome).toBe('completed');
    const first = toolMessages(env.model.requests().find((q) => q.matchedStep === 'rv-after')!).at(-1) as {
      feedback: { code: string };
    };
    expect(first.feedback.code).toBe('authorization_revoked');
    // the surviving member (shop B) is not used either: the whole group is blocked
    const reqEnd = env.model.requests().find((q) => q.matchedStep === 'rv-end');
    expect(reqEnd?.toolNames).toEqual([]);
    expect((toolMessages(reqEnd!).at(-1) as { feedback: { category: string } }).feedback.category).toBe(
      'blocked',
    );
    expect(await runtime.cachedDeclarations(s.sessionId)).toEqual([]);
    expect((await env.hubMetrics()).invokes).toBe(invokesBefore);
    const summary = (await runtime.listSessions()).find((x) => x.sessionId === s.sessionId);
    expect(summary).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'authorization_revoked',
      availabilityRef: AUTH.inventory,
    });
  });
  it('an authorization.changed event (fed by the app) drops the declarations and blocks the group without any Hub request', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    await runtime.searchTools(s.sessionId, 'get product');
    expect((await runtime.cachedDeclarations(s.sessionId)).length).toBeGreaterThan(0);
    const rebound = await env.admin.rebindAuthorization(AUTH.shopB, { account: 'shop-b-other' });
    env.proxy.reset();
    await runtime.authorizationChanged(rebound);
    expect(await runtime.cachedDeclarations(s.sessionId)).toEqual([]);
    const summary = (await runtime.listSessions()).find((x) => x.sessionId === s.sessionId);
    expect(summary).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'authorization_rebound',
      availabilityRef: AUTH.shopB,
    });
    expect(env.proxy.requests()).toEqual([]);
  });
});
