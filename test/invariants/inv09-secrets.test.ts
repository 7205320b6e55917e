/**
 * Invariant 9 — secrets never land in the journal, the archive, the scope store, anything emitted
 * toward the renderer, or the model's input; the Hub stores client tokens hashed. A full flow (a
 * user message that pastes the secrets, a tool search, a governed write, a lost answer and its
 * inspection, a reopen) runs on the real runtime; then every byte of every file in the host's data
 * directory (incl. SQLite WAL/journal files) and of the Hub's data directory is scanned.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeEvent } from '../../src-main/runtime/desk-runtime.js';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { MODEL_KEY, newDataDir, startRuntime } from '../runtime/fixtures/runtime.js';

let env: RuntimeTestEnv;
beforeAll(async () => {
  env = await startRuntimeTestEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

function leaks(haystack: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, v]) => haystack.includes(v))
    .map(([k]) => k);
}

describe('invariant 9: secrets stay out of host data, renderer payloads and the model', () => {
  it('after a full flow, no file, event, archive entry, journal status or model request holds a secret', async () => {
    const secrets = {
      hubClientToken: env.clientToken,
      modelKey: MODEL_KEY,
      shopASecret: env.demo.shopA.secret,
      inventorySecret: env.demo.inventory.secret,
    };
    const dataDir = newDataDir();
    const { runtime, events } = await startRuntime(env, dataDir);
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    env.model.setScript([
      {
        name: 'sec-search',
        match: { userIncludes: 'my key' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
      },
      {
        name: 'sec-edit',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            // a model that echoes a token into business data: refused by the host, nothing sent
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 13, description: `token ${env.clientToken}` },
            },
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'plain text' },
            },
          ],
        },
      },
      {
        name: 'sec-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: `Noted your key ${MODEL_KEY}.` },
      },
    ]);
    await runtime.sendMessage(
      s.sessionId,
      `my key is ${MODEL_KEY} and the hub token is ${env.clientToken}; edit product 42`,
    );
    const archived = await runtime.archiveEvents(s.sessionId);
    const refused = archived.find(
      (e) => e.kind === 'tool_result' && e.feedback?.code === 'secret_in_arguments',
    );
    expect(refused).toBeTruthy();
    expect(env.demo.shopA.requests().filter((r) => r.url.includes('/products/13'))).toEqual([]);
    const call = archived.find((e) => e.kind === 'tool_result' && e.invocation_id);
    const id = call && 'invocation_id' in call ? call.invocation_id : null;
    expect(id).toBeTruthy();
    const inspected = await runtime.inspectInvocation(s.sessionId, id!);
    const reconciled = await runtime.resumeInvocation(s.sessionId, id!);
    expect(reconciled.receipt?.state).toBe('succeeded');
    expect(JSON.stringify(reconciled.receipt?.result)).toContain('Walnut cutting board');
    const status = await runtime.journalStatus(s.sessionId);
    await runtime.close();

    const second = await startRuntime(env, dataDir);
    const opened = await second.runtime.openSession(s.sessionId);
    await second.runtime.close();

    const emitted: RuntimeEvent[] = [...events, ...second.events];
    expect(leaks(JSON.stringify(emitted), secrets)).toEqual([]);
    expect(leaks(JSON.stringify({ archived, inspected, reconciled, status, opened }), secrets)).toEqual([]);
    // the model never sees the Hub token (the user's own pasted key is the user's business; the token is masked)
    expect(leaks(JSON.stringify(env.model.requests()), { hubClientToken: env.clientToken })).toEqual([]);

    for (const f of filesUnder(dataDir)) {
      const bytes = readFileSync(f).toString('latin1');
      expect({ file: f, leaks: leaks(bytes, secrets) }).toEqual({ file: f, leaks: [] });
    }
    // the journal is metadata only: no raw arguments, no conversation text, no receipt bodies
    const journalFiles = filesUnder(dataDir).filter((f) => f.includes('invocations.sqlite'));
    expect(journalFiles.length).toBeGreaterThan(0);
    for (const f of journalFiles) {
      const bytes = readFileSync(f).toString('latin1');
      for (const text of ['plain text', 'edit product 42', 'Walnut cutting board'])
        expect({ file: f, text, found: bytes.includes(text) }).toEqual({ file: f, text, found: false });
    }
    // the Hub keeps business credentials sealed (its credential store), tokens only hashed
    for (const f of filesUnder(env.hubDataDir)) {
      const bytes = readFileSync(f).toString('latin1');
      expect({ file: f, leaks: leaks(bytes, secrets) }).toEqual({ file: f, leaks: [] });
    }
  });

  it('a model key the caller forgot to list as a secret (e.g. kept in the keychain) is still masked', async () => {
    const key = 'sk-from-the-keychain-9f8e7d6c5b4a';
    const dataDir = newDataDir();
    const emitted: RuntimeEvent[] = [];
    const { runtime } = await createDeskRuntimeFromDataDir({
      dataDir,
      hubUrl: env.proxy.url,
      hubToken: env.clientToken,
      hubId: env.hub.hubId,
      clientId: env.clientId,
      modelSettings: { get: async () => ({ baseUrl: env.model.url, model: 'scripted', apiKey: key }) },
      // no `secrets`: the wiring must still know the model key
    });
    runtime.subscribe((e) => emitted.push(e));
    const s = await runtime.createSession({ authorizationRefs: [] });
    env.model.setScript([
      { name: 'kc', match: { userIncludes: 'key' }, reply: { text: `Your key is ${key}` } },
    ]);
    await runtime.sendMessage(s.sessionId, `here is my key ${key}`);
    const archived = await runtime.archiveEvents(s.sessionId);
    await runtime.close();
    expect(JSON.stringify(archived)).not.toContain(key);
    expect(JSON.stringify(emitted)).not.toContain(key);
    for (const f of filesUnder(dataDir))
      expect({ file: f, leak: readFileSync(f).toString('latin1').includes(key) }).toEqual({
        file: f,
        leak: false,
      });
  });
});
