/**
 * A session bound to a Hub task: every governed call carries the task_id; the Hub's budget holds
 * across calls and turns (a new message never replenishes it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../src-main/hub-client/index.js';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
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

describe('task-bound session', () => {
  it('carries task_id on every call; the write budget is not replenished by a new message', async () => {
    const hub = createHubClient({ baseUrl: env.hub.url, token: env.clientToken });
    const task = await hub.createTask({
      title: 'one description edit',
      authorizations: [{ authorization_ref: AUTH.shopA, tools: ['update_product_content', 'get_product'] }],
      write_budget: 1,
      in_flight_limit: 2,
    });
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA], taskId: task.task_id });
    expect(s.taskId).toBe(task.task_id);
    env.model.setScript([
      {
        name: 'tb-search',
        match: { userIncludes: 'two edits' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content' } }] },
      },
      {
        name: 'tb-edits',
        match: { afterToolResultFor: 'search_tools' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'first' },
            },
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'second' },
            },
          ],
        },
      },
      {
        name: 'tb-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'One done, one refused.' },
      },
      {
        name: 'tb-next',
        match: { userIncludes: 'once more' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'third' },
            },
          ],
        },
      },
      {
        name: 'tb-next-done',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'Refused again.' },
      },
    ]);
    await runtime.sendMessage(s.sessionId, 'Make two edits');
    const results = toolMessages(env.model.requests().find((q) => q.matchedStep === 'tb-done')!).slice(
      -2,
    ) as Record<string, unknown>[];
    expect(results[0]).toMatchObject({ state: 'succeeded' });
    expect((results[1] as { feedback: { code: string } }).feedback.code).toBe('budget_exhausted');
    await runtime.sendMessage(s.sessionId, 'Try once more');
    const again = toolMessages(env.model.requests().find((q) => q.matchedStep === 'tb-next-done')!).at(
      -1,
    ) as { feedback: { code: string } };
    expect(again.feedback.code).toBe('budget_exhausted');
    expect(env.demo.shopA.ledger().map((l) => l.changes.description?.after)).toEqual(['first']);
    const view = await hub.getTask(task.task_id);
    expect(view.writes_used).toBe(1);
    const events = await runtime.archiveEvents(s.sessionId);
    const firstResult = events.find(
      (e) => e.kind === 'tool_result' && e.invocation_id !== null && e.feedback === null,
    );
    const inv = firstResult && 'invocation_id' in firstResult ? firstResult.invocation_id : null;
    const receipt = await runtime.inspectInvocation(s.sessionId, inv!);
    expect(receipt.receipt?.task_id).toBe(task.task_id);
  });
});
