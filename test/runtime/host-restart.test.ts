/**
 * Full host reconstruction: the host runtime runs as a separate process, is SIGKILLed and started
 * again on the same data directory (docs/design.md#the-recovery-contract). Real Hub, demo systems, scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvocationStatus } from '../../src-main/runtime/invocation-ports.js';
import type {
  ArchiveEvent,
  OpenedSession,
  SessionSummary,
  TurnResult,
} from '../../src-main/runtime/desk-runtime.js';
import type { InvocationActionEnvelope } from '../../src-main/runtime/invocation-ports.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { spawnHost, type HostHandle } from './fixtures/host-handle.js';
import { newDataDir, toolMessages } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
const hosts: HostHandle[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
});
afterAll(async () => {
  for (const h of hosts) await h.stop().catch(() => undefined);
  await env?.close();
});

async function host(dataDir: string) {
  const h = await spawnHost(env, dataDir);
  hosts.push(h);
  return h;
}

async function until<T>(
  fn: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('host killed and restarted on the same data directory', () => {
  it('pending approval: same invocation, authorization and run; no start-up resume; explicit resume runs it once', async () => {
    const dataDir = newDataDir();
    const h1 = await host(dataDir);
    const s = await h1.call<SessionSummary>('createSession', {
      title: 'publish',
      authorizationRefs: [AUTH.shopA, AUTH.shopB],
    });
    env.model.setScript([
      {
        name: 'pa-search',
        match: { userIncludes: 'Publish product 42' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'publish listing', limit: 20 } }] },
      },
      {
        name: 'pa-publish',
        match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'Publish product 42' },
        reply: {
          toolCalls: [
            { name: 'auth_shop_a__publish_listing', arguments: { product_id: 42, channel: 'web' } },
          ],
        },
      },
      {
        name: 'pa-wait',
        match: { afterToolResultFor: 'auth_shop_a__publish_listing' },
        reply: { text: 'It is waiting for approval.' },
      },
    ]);
    const turn = await h1.call<TurnResult>(
      'sendMessage',
      s.sessionId,
      'Publish product 42 of Shop A on the web.',
    );
    expect(turn.outcome).toBe('completed');
    const waitReq = env.model.requests().find((q) => q.matchedStep === 'pa-wait');
    const receipt = toolMessages(waitReq!).at(-1) as {
      invocation_id: string;
      state: string;
      authorization_ref: string;
    };
    expect(receipt.state).toBe('awaiting_approval');
    const invocationId = receipt.invocation_id;
    const before = await h1.call<ArchiveEvent[]>('archiveEvents', s.sessionId);
    const journalBefore = await h1.call<InvocationStatus>('journalStatus', s.sessionId);
    const originalRun = journalBefore.entries.find((e) => e.invocation_id === invocationId)?.original_run_id;
    expect(originalRun).toBeTruthy();

    await h1.kill();
    const metricsAtKill = await env.hubMetrics();
    const modelRequestsAtKill = env.model.requests().length;
    env.proxy.reset();

    const h2 = await host(dataDir);
    const opened = await h2.call<OpenedSession>('openSession', s.sessionId);
    expect(opened.session.sessionId).toBe(s.sessionId);
    expect((await h2.call<SessionSummary[]>('listSessions')).map((x) => x.sessionId)).toEqual([s.sessionId]); // no replacement session
    expect(opened.session.availability).toBe('open');
    expect(opened.events).toEqual(before); // the archive shows the conversation as it was
    expect(opened.archive.state).toBe('ready');
    const entry = opened.journal.entries.find((e) => e.invocation_id === invocationId);
    expect(entry).toMatchObject({
      authorization_ref: AUTH.shopA,
      tool: 'publish_listing',
      original_run_id: originalRun,
      last_known_state: 'awaiting_approval',
    });
    expect(await h2.call('cachedDeclarations', s.sessionId)).toEqual([]); // restart requires discovery again
    // Start-up: no run, no invoke, no resume, no search, no model request (no replay of the user's message).
    expect(env.proxy.requests()).toEqual(['GET /agent/v1/authorizations']);
    expect(await env.hubMetrics()).toMatchObject({
      invokes: metricsAtKill.invokes,
      resumes: metricsAtKill.resumes,
    });
    expect(env.model.requests().length).toBe(modelRequestsAtKill);
    expect(env.demo.shopA.ledger()).toEqual([]);

    // Approval is not execution: approve, then the user explicitly asks to continue.
    const approval = (await env.admin.listApprovals({ state: 'pending' })).find(
      (a) => a.invocation_id === invocationId,
    );
    expect(approval).toBeTruthy();
    await env.admin.decideApproval(approval!.approval_id, { decision_id: 'dec-1', decision: 'approve' });
    expect(env.demo.shopA.ledger()).toEqual([]);

    env.model.setScript([
      {
        name: 'pa-resume',
        match: { userIncludes: 'continue the approved' },
        reply: {
          toolCalls: [
            { name: 'resume_governed_tool_invocation', arguments: { invocation_id: invocationId } },
          ],
        },
      },
      {
        name: 'pa-resumed',
        match: { afterToolResultFor: 'resume_governed_tool_invocation' },
        reply: { text: 'Published.' },
      },
    ]);
    env.proxy.reset();
    const recovery = await h2.call<TurnResult>(
      'sendMessage',
      s.sessionId,
      'Please continue the approved publication.',
    );
    expect(recovery.outcome).toBe('completed');
    const resumed = toolMessages(env.model.requests().find((q) => q.matchedStep === 'pa-resumed')!).at(
      -1,
    ) as Record<string, unknown>;
    expect(resumed).toMatchObject({
      invocation_id: invocationId,
      state: 'succeeded',
      authorization_ref: AUTH.shopA,
      action: 'resume',
      resume_dispatched: true,
    });
    const ledger = env.demo.shopA.ledger();
    expect(ledger.map((l) => [l.operation, l.target, l.idempotency_key])).toEqual([
      ['publish_listing', 'product:42', invocationId],
    ]);
    const metrics = await env.hubMetrics();
    expect(metrics.invokes).toBe(metricsAtKill.invokes); // zero duplicate invokes
    expect(metrics.resumes).toBe(metricsAtKill.resumes + 1);
    expect(env.proxy.requests()).not.toContain('POST /agent/v1/invocations');
    const inspected = await h2.call<InvocationActionEnvelope>('inspectInvocation', s.sessionId, invocationId);
    expect(inspected.receipt).toMatchObject({
      run_id: originalRun,
      authorization_ref: AUTH.shopA,
      state: 'succeeded',
    });
    await h2.stop();
  }, 180_000);

  it('lost response (host killed while the edit was in flight): reopen, inspect the original; no replacement write', async () => {
    const dataDir = newDataDir();
    const h1 = await host(dataDir);
    const s = await h1.call<SessionSummary>('createSession', {
      title: 'edit',
      authorizationRefs: [AUTH.shopB],
    });
    env.model.setScript([
      {
        name: 'lr-search',
        match: { userIncludes: 'Rewrite' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
        },
      },
      {
        name: 'lr-edit',
        match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'Rewrite' },
        reply: {
          toolCalls: [
            {
              name: 'auth_shop_b__update_product_content',
              arguments: { product_id: 42, description: 'Burr grinder, 40 settings.' },
            },
          ],
        },
      },
      {
        name: 'lr-never',
        match: { afterToolResultFor: 'auth_shop_b__update_product_content' },
        reply: { text: 'unreachable' },
      },
    ]);
    env.demo.shopB.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 1_500 });
    const ledgerBefore = env.demo.shopB.ledger().length;
    h1.fire('sendMessage', s.sessionId, 'Rewrite the description of product 42 in Shop B.');
    await until(() => env.demo.shopB.requests().some((q) => q.operation === 'update_product_content'));
    const before = await h1.call<ArchiveEvent[]>('archiveEvents', s.sessionId);
    await h1.kill(); // the response never reaches the host
    await until(() => env.demo.shopB.ledger().length === ledgerBefore + 1); // the shop committed it
    const metricsAtKill = await env.hubMetrics();
    env.proxy.reset();

    const h2 = await host(dataDir);
    const opened = await h2.call<OpenedSession>('openSession', s.sessionId);
    expect(opened.events).toEqual(before);
    expect(opened.events.map((e) => e.kind)).toEqual([
      'session_created',
      'turn_started',
      'user_message',
      'assistant_message',
      'tool_call',
      'tool_result',
      'assistant_message',
      'tool_call',
      // The fence was saved and the request was on its way: the archive knows the call's id.
      'call_sent',
    ]);
    const entry = opened.journal.entries[0]!;
    const sent = opened.events.at(-1);
    expect(sent?.kind === 'call_sent' && sent.invocation_id).toBe(entry.invocation_id);
    expect(opened.journal.entries).toHaveLength(1);
    expect(entry).toMatchObject({
      authorization_ref: AUTH.shopB,
      tool: 'update_product_content',
      last_known_state: 'pending_dispatch',
      result_verified: false,
    });
    expect(env.proxy.requests()).toEqual(['GET /agent/v1/authorizations']); // no automatic inspect/resume
    expect(await env.hubMetrics()).toMatchObject({
      invokes: metricsAtKill.invokes,
      resumes: metricsAtKill.resumes,
    });

    const env2 = await h2.call<InvocationActionEnvelope>(
      'inspectInvocation',
      s.sessionId,
      entry.invocation_id,
    );
    expect(env2.receipt).toMatchObject({
      invocation_id: entry.invocation_id,
      run_id: entry.original_run_id,
      authorization_ref: AUTH.shopB,
      state: 'succeeded',
    });
    const ledger = env.demo.shopB.ledger().slice(ledgerBefore);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]?.idempotency_key).toBe(entry.invocation_id); // the same id reached the shop, once
    expect((await env.hubMetrics()).invokes).toBe(metricsAtKill.invokes); // zero duplicate invokes
    // The recovery is recorded in the archive (control + receipt), after the original conversation.
    const after = await h2.call<ArchiveEvent[]>('archiveEvents', s.sessionId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((e) => e.kind)).toEqual(['control', 'receipt']);
    await h2.stop();
  }, 180_000);
  it('lost acknowledgement (the shop commits, then drops the response): unknown survives the restart; explicit resume reconciles the original', async () => {
    const dataDir = newDataDir();
    const h1 = await host(dataDir);
    const s = await h1.call<SessionSummary>('createSession', {
      title: 'ack',
      authorizationRefs: [AUTH.shopA, AUTH.inventory],
    });
    env.model.setScript([
      {
        name: 'la-search',
        match: { userIncludes: 'Shorten' },
        reply: {
          toolCalls: [{ name: 'search_tools', arguments: { query: 'update product content', limit: 20 } }],
        },
      },
      {
        name: 'la-edit',
        match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'Shorten' },
        reply: {
          toolCalls: [
            { name: 'auth_shop_a__update_product_content', arguments: { product_id: 42, title: 'Board' } },
          ],
        },
      },
      {
        name: 'la-unknown',
        match: { afterToolResultFor: 'auth_shop_a__update_product_content' },
        reply: { text: 'The result needs checking.' },
      },
    ]);
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const ledgerBefore = env.demo.shopA.ledger().length;
    const turn = await h1.call<TurnResult>(
      'sendMessage',
      s.sessionId,
      'Shorten the title of product 42 in Shop A.',
    );
    expect(turn.outcome).toBe('completed');
    const told = toolMessages(env.model.requests().find((q) => q.matchedStep === 'la-unknown')!).at(-1) as {
      invocation_id: string;
      state: string;
    };
    expect(told.state).toBe('unknown');
    const journal1 = await h1.call<InvocationStatus>('journalStatus', s.sessionId);
    const entry1 = journal1.entries.find((e) => e.invocation_id === told.invocation_id)!;
    expect(entry1.last_known_state).toBe('unknown');
    const before = await h1.call<ArchiveEvent[]>('archiveEvents', s.sessionId);
    await h1.kill();
    const metricsAtKill = await env.hubMetrics();
    env.proxy.reset();

    const h2 = await host(dataDir);
    const opened = await h2.call<OpenedSession>('openSession', s.sessionId);
    expect(opened.events).toEqual(before);
    expect(opened.journal.entries.find((e) => e.invocation_id === told.invocation_id)).toMatchObject({
      last_known_state: 'unknown',
      original_run_id: entry1.original_run_id,
    });
    expect(env.proxy.requests()).toEqual(['GET /agent/v1/authorizations']);

    const resumed = await h2.call<InvocationActionEnvelope>(
      'resumeInvocation',
      s.sessionId,
      told.invocation_id,
    );
    expect(resumed.receipt).toMatchObject({
      invocation_id: told.invocation_id,
      run_id: entry1.original_run_id,
      authorization_ref: AUTH.shopA,
    });
    expect(['succeeded', 'unverified']).toContain(resumed.receipt?.state);
    const ledger = env.demo.shopA.ledger().slice(ledgerBefore);
    expect(ledger.map((l) => l.idempotency_key)).toEqual([told.invocation_id]); // one write, the original id
    expect((await env.hubMetrics()).invokes).toBe(metricsAtKill.invokes); // no replacement invoke
    expect(env.proxy.requests()).not.toContain('POST /agent/v1/invocations');
    await h2.stop();
  }, 180_000);
});
