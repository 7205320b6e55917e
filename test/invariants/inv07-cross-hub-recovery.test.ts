/**
 * Invariant 7 (targets come from the original scope) and 6 (a missing record is not proof) across
 * Hubs: a session created against Hub 1, reopened by a host now connected to Hub 2 (the operator
 * switched Hub in settings). The session is blocked (connection binding conflict); inspect and
 * resume of its original calls must not ask Hub 2 about them — Hub 2's 404 would be read as an
 * authoritative "invocation_not_found" for a call that lives on Hub 1.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CONFIG } from '../../demo/index.js';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import { createHub, type Hub, type HubConfig } from '../../src-hub/index.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { MODEL_KEY, newDataDir, startRuntime } from '../runtime/fixtures/runtime.js';
import { startDroppingProxy } from './support.js';

let env: RuntimeTestEnv;
let hub2: Hub;
let proxy2: Awaited<ReturnType<typeof startDroppingProxy>>;
beforeAll(async () => {
  env = await startRuntimeTestEnv();
  const handles = {
    'shop-a': env.demo.shopA,
    'shop-b': env.demo.shopB,
    inventory: env.demo.inventory,
  } as const;
  const config: HubConfig = {
    systems: DEMO_CONFIG.systems.map((s) => ({
      system_id: s.system_id,
      name: s.name,
      base_url: handles[s.system_id as keyof typeof handles].url,
      signing_secret: handles[s.system_id as keyof typeof handles].secret,
    })),
    clients: [{ client_id: env.clientId, name: env.clientId, token: env.clientToken }],
    authorizations: DEMO_CONFIG.systems.map((s) => ({
      authorization_ref: s.authorization_ref,
      system_id: s.system_id,
      account: s.account,
      on_behalf_of: DEMO_CONFIG.on_behalf_of,
      grant_to: [env.clientId],
    })),
  };
  hub2 = await createHub({ dataDir: mkdtempSync(join(tmpdir(), 'inv-hub2-')), config });
  proxy2 = await startDroppingProxy(hub2.url);
}, 30_000);
afterAll(async () => {
  await proxy2?.close();
  await hub2?.close();
  await env?.close();
});

describe('recovery never crosses Hubs', () => {
  it('inspect and resume of a Hub 1 call from a host connected to Hub 2 are blocked without asking Hub 2', async () => {
    const dataDir = newDataDir();
    const first = await startRuntime(env, dataDir);
    const s = await first.runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    await first.runtime.searchTools(s.sessionId, 'publish listing');
    const run = await first.runtime.runToolManually(s.sessionId, 'auth_shop_a__publish_listing', {
      product_id: 42,
      channel: 'web',
    });
    expect(run.card.receipt?.state).toBe('awaiting_approval');
    const id = run.card.invocation_id!;
    await first.runtime.close();

    const { runtime } = await createDeskRuntimeFromDataDir({
      dataDir,
      hubUrl: proxy2.url,
      hubToken: env.clientToken,
      hubId: hub2.hubId,
      clientId: env.clientId,
      modelSettings: { get: async () => ({ baseUrl: env.model.url, model: 'scripted', apiKey: MODEL_KEY }) },
    });
    try {
      const opened = await runtime.openSession(s.sessionId);
      expect(opened.session.availability).toBe('blocked');
      const mark = proxy2.seen().length;
      const inspected = await runtime.inspectInvocation(s.sessionId, id);
      const resumed = await runtime.resumeInvocation(s.sessionId, id);
      for (const r of [inspected, resumed]) {
        expect(r.state).toBe('blocked');
        expect(r.feedback?.code).not.toBe('invocation_not_found');
        expect(r.resume_dispatched).toBe(false);
      }
      expect(
        proxy2
          .seen()
          .slice(mark)
          .filter((p) => p.includes('/invocations')),
      ).toEqual([]);
      // the journal keeps the original record as it was
      const status = await runtime.journalStatus(s.sessionId);
      expect(status.entries.find((e) => e.invocation_id === id)?.last_known_state).toBe('awaiting_approval');
    } finally {
      await runtime.close();
    }
  });
});
