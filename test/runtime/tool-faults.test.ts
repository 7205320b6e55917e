/**
 * Malformed tool calls, unknown functions, schema-failing and target-naming arguments: the model
 * gets clear feedback and nothing reaches the Hub's invoke route or a business system.
 * Also: empty scope makes zero Hub requests, before and after a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime, toolMessages } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
let sessionId: string;

beforeAll(async () => {
  env = await startRuntimeTestEnv();
  ({ runtime } = await startRuntime(env, newDataDir()));
  sessionId = (await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] })).sessionId;
  env.model.setScript([
    {
      name: 'load',
      match: { userIncludes: 'load tools' },
      reply: {
        toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
      },
    },
    { name: 'loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'Loaded.' } },
  ]);
  await runtime.sendMessage(sessionId, 'load tools');
});
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

describe('bad tool calls from the model', () => {
  it('malformed JSON, an unknown function, schema failures and target overrides get feedback and send nothing', async () => {
    env.model.setScript([
      {
        name: 'bad-calls',
        match: { userIncludes: 'bad calls' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_a__update_product_content',
              arguments: '{"product_id": 42, "description": "unterminated',
            },
            { name: 'auth_shop_c__update_product', arguments: { product_id: 42, price: 1 } },
            { name: 'update_product', arguments: { product_id: 42, price: 1 } },
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 'forty-two', description: 'x' },
            },
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'x', price: 5 },
            },
            {
              name: 'auth_shop_a__update_product_content',
              arguments: { product_id: 42, description: 'x', authorization_ref: AUTH.shopB },
            },
            {
              name: 'resume_governed_tool_invocation',
              arguments: { invocation_id: 'inv_12345678', tool: 'update_product', arguments: {} },
            },
          ],
        },
      },
      {
        name: 'after-bad',
        match: { afterToolResultFor: 'resume_governed_tool_invocation' },
        reply: { text: 'I could not do that.' },
      },
    ]);
    env.proxy.reset();
    const ledgerBefore = env.demo.shopA.ledger().length + env.demo.shopB.ledger().length;
    const metricsBefore = await env.hubMetrics();
    const r = await runtime.sendMessage(sessionId, 'Make these bad calls please');
    expect(r.outcome).toBe('completed');
    expect(env.model.unmatched()).toEqual([]);

    const after = env.model.requests().find((q) => q.matchedStep === 'after-bad');
    const results = toolMessages(after!).slice(-7) as {
      feedback: { category: string; code: string; message: string; next_action: string };
    }[];
    expect(results.map((x) => [x.feedback.category, x.feedback.code])).toEqual([
      ['arguments_invalid', 'malformed_arguments'],
      ['tool_not_loaded', 'tool_not_loaded'],
      ['tool_not_loaded', 'tool_not_loaded'],
      ['arguments_invalid', 'arguments_invalid'],
      ['arguments_invalid', 'arguments_invalid'],
      ['arguments_invalid', 'arguments_invalid'],
      ['arguments_invalid', 'arguments_invalid'],
    ]);
    expect(results[1]?.feedback.message).toContain('search_tools');
    expect(results[1]?.feedback.next_action).toBe('search_tools');
    expect(results[3]?.feedback.message).toContain('/product_id must be integer');
    expect(results[4]?.feedback.message).toContain('price');
    expect(results[5]?.feedback.message).toContain('authorization_ref');

    // Nothing was sent: no run, no invoke, no business write; ordinary text answer makes no Hub request.
    expect(env.proxy.requests()).toEqual([]);
    expect((await env.hubMetrics()).invokes).toBe(metricsBefore.invokes);
    expect(env.demo.shopA.ledger().length + env.demo.shopB.ledger().length).toBe(ledgerBefore);

    // The cards say refused; the archive kept every call and its feedback.
    const events = await runtime.archiveEvents(sessionId);
    const lastTurn = events.filter((e) => e.turnId === r.turnId);
    expect(lastTurn.filter((e) => e.kind === 'tool_call')).toHaveLength(7);
    expect(lastTurn.filter((e) => e.kind === 'tool_result')).toHaveLength(7);
  });

  it('the loop stops at the step limit instead of looping forever', async () => {
    env.model.setScript([
      {
        name: 'forever',
        repeat: true,
        match: { turnUserIncludes: 'loop' },
        reply: { toolCalls: [{ name: 'nope', arguments: {} }] },
      },
    ]);
    const r = await runtime.sendMessage(sessionId, 'loop forever');
    expect(r).toMatchObject({ outcome: 'failed', error: 'step_limit_reached' });
  });
});

describe('empty scope', () => {
  it('makes zero Hub requests: create, chat, a model asking for tools, and reopening after a restart', async () => {
    const dataDir = newDataDir();
    env.proxy.reset();
    const first = await startRuntime(env, dataDir);
    const s = await first.runtime.createSession({ title: 'just chat', authorizationRefs: [] });
    env.model.setScript([
      { name: 'hello', match: { userEquals: 'hello' }, reply: { text: 'Hi!' } },
      {
        name: 'try-tools',
        match: { userIncludes: 'stock' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'stock' } }] },
      },
      {
        name: 'no-tools',
        match: { afterToolResultFor: 'search_tools' },
        reply: { text: 'No business systems are selected here.' },
      },
    ]);
    expect((await first.runtime.sendMessage(s.sessionId, 'hello')).text).toBe('Hi!');
    expect((await first.runtime.sendMessage(s.sessionId, 'what is the stock of SKU-A-0042?')).outcome).toBe(
      'completed',
    );
    const offered = env.model
      .requests()
      .filter((q) => q.matchedStep === 'hello' || q.matchedStep === 'try-tools');
    expect(offered.every((q) => q.toolNames.length === 0)).toBe(true);
    const fb = toolMessages(env.model.requests().find((q) => q.matchedStep === 'no-tools')!).at(-1) as {
      feedback: { code: string };
    };
    expect(fb.feedback.code).toBe('no_business_scope');
    expect((await first.runtime.journalStatus(s.sessionId)).state).toBe('inactive');
    await first.runtime.close();

    const second = await startRuntime(env, dataDir);
    const opened = await second.runtime.openSession(s.sessionId);
    expect(opened.session.availability).toBe('open');
    expect(opened.events.filter((e) => e.kind === 'user_message')).toHaveLength(2);
    env.model.setScript([{ match: { userEquals: 'thanks' }, reply: { text: 'Any time.' } }]);
    expect((await second.runtime.sendMessage(s.sessionId, 'thanks')).text).toBe('Any time.');
    await second.runtime.close();
    expect(env.proxy.requests()).toEqual([]);
  });
});
