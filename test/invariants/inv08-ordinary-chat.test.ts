/**
 * Invariant 8 — ordinary chat makes zero Hub requests: in a session with a business scope (and a
 * task), with declarations cached, across several turns, and in a reopened host (a fresh runtime on
 * the same data directory) after its explicit open. Counted at a proxy in front of the Hub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { newDataDir, startRuntime } from '../runtime/fixtures/runtime.js';

let env: RuntimeTestEnv;
const runtimes: DeskRuntime[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
}, 30_000);
afterAll(async () => {
  for (const r of runtimes) await r.close().catch(() => undefined);
  await env?.close();
});

const chatScript = () =>
  env.model.setScript([
    { name: 'chat', match: { userIncludes: '' }, reply: { text: 'You are welcome.' }, repeat: true },
  ]);

describe('invariant 8: ordinary chat makes zero Hub requests', () => {
  it('scoped, task-bound session with cached tools; and the same session in a reopened host', async () => {
    const dataDir = newDataDir();
    const { runtime } = await startRuntime(env, dataDir);
    runtimes.push(runtime);
    const hub = createHubClient({ baseUrl: env.hub.url, token: env.clientToken });
    const task = await hub.createTask({
      title: 'chat only',
      authorizations: [
        { authorization_ref: AUTH.shopA, tools: ['update_product_content'] },
        { authorization_ref: AUTH.inventory, tools: ['get_stock'] },
      ],
      write_budget: 1,
      in_flight_limit: 1,
    });
    const s = await runtime.createSession({
      authorizationRefs: [AUTH.shopA, AUTH.inventory],
      taskId: task.task_id,
    });
    await runtime.searchTools(s.sessionId, 'update product content');
    await runtime.setReuseDeclarations(s.sessionId, true);
    chatScript();
    env.proxy.reset();
    for (const text of ['thanks', 'what can you do?', 'ok, bye']) {
      const r = await runtime.sendMessage(s.sessionId, text);
      expect(r.outcome).toBe('completed');
    }
    expect(env.proxy.requests()).toEqual([]);
    await runtime.close();

    const second = (await startRuntime(env, dataDir)).runtime;
    runtimes.push(second);
    await second.openSession(s.sessionId); // revalidation is part of opening, not of chatting
    env.proxy.reset();
    await second.sendMessage(s.sessionId, 'thanks again');
    expect(env.proxy.requests()).toEqual([]);
  });

  it('a session without business scope never talks to the Hub, even unopened after a restart', async () => {
    const dataDir = newDataDir();
    const { runtime } = await startRuntime(env, dataDir);
    runtimes.push(runtime);
    env.proxy.reset();
    const s = await runtime.createSession({ authorizationRefs: [] });
    chatScript();
    await runtime.sendMessage(s.sessionId, 'thanks');
    await runtime.close();
    const second = (await startRuntime(env, dataDir)).runtime;
    runtimes.push(second);
    await second.sendMessage(s.sessionId, 'thanks');
    expect(await second.journalStatus(s.sessionId)).toMatchObject({ state: 'inactive' });
    expect(env.proxy.requests()).toEqual([]);
  });
});
