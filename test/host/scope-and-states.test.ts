// Journal states other than the happy path, against the real Hub: inactive (zero Hub requests),
// offline Hub (closed, recoverable in the same runtime), whole-scope revalidation (revoked or
// rebound member blocks the whole group), storage_error with a blocked scope, unknown bindings,
// unsupported (no store), and two writers where one holds a stale receipt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Declaration } from '../../src-shared/hub-api.js';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { createInvocationRuntime } from '../../src-main/runtime/invocations/index.js';
import { createMemoryScopeStore } from '../../src-main/runtime/scope/index.js';
import { startHubEnv, type HubEnv } from './helpers/hub-env.js';
import { createSession, declaration, handle, newRun, openHost } from './helpers/host.js';
import { faulty, tempDir } from './helpers/journal-fixtures.js';
import { startProxy } from './helpers/proxy.js';

let env: HubEnv;
let contentDecl: Declaration;
let publishDecl: Declaration;
const cleanups: (() => void | Promise<void>)[] = [];

beforeAll(async () => {
  env = await startHubEnv();
  const t = tempDir();
  const probe = openHost(env, t.dir);
  contentDecl = await declaration(probe, env.refs.shopA, 'update_product_content');
  publishDecl = await declaration(probe, env.refs.shopA, 'publish_listing');
  probe.close();
  t.cleanup();
});
afterAll(async () => {
  while (cleanups.length) await cleanups.pop()!();
  await env.close();
});
function dir(): string {
  const t = tempDir('bailing-host-');
  cleanups.push(t.cleanup);
  return t.dir;
}
function open(d: string, opts: Parameters<typeof openHost>[2] = {}) {
  const h = openHost(env, d, opts);
  cleanups.push(() => h.close());
  return h;
}
const contentCall = (runId: string, text: string) => ({
  declaration: contentDecl,
  arguments: { product_id: 42, description: text },
  runId,
  turnId: 'turn-1',
  hostCallId: `h-${Math.random()}`,
});

describe('inactive', () => {
  it('an empty scope and a session that has not started are inactive, with zero Hub requests', async () => {
    const host = open(dir());
    const scope = await createSession(env, host, 'empty-scope', []);
    const m0 = await env.metrics();
    expect(await host.runtime.getSessionInvocationStatus('empty-scope')).toMatchObject({
      state: 'inactive',
      entries: [],
      unsavedRecords: [],
    });
    expect(await host.runtime.restoreSessionInvocations('empty-scope')).toMatchObject({
      state: 'inactive',
      entries: [],
      unsavedRecords: [],
    });
    expect(await host.runtime.getSessionInvocationStatus('never-started')).toMatchObject({
      state: 'inactive',
      reason: 'session_not_started',
    });
    expect(await host.runtime.revalidateScope(scope)).toEqual({ state: 'ok' });
    expect((await env.metrics()).requests_total).toBe(m0.requests_total);
  });
});

describe('offline Hub', () => {
  it('keeps recovery closed while the Hub cannot be reached and recovers in the same runtime', async () => {
    const proxy = await startProxy(env.hub.port);
    cleanups.push(() => proxy.close());
    const host = open(dir(), { hubUrl: proxy.url, timeoutMs: 3000 });
    const scope = await createSession(env, host, 'offline', [env.refs.shopA]);
    const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      contentCall(runId, 'before the outage'),
    );
    expect(out.kind).toBe('receipt');
    const id = out.invocation_id!;
    const revision = (await host.runtime.getSessionInvocationStatus('offline')).revision;

    proxy.setDown(true);
    const closed = await host.runtime.resumeSessionInvocation(handle(scope), id);
    expect(closed).toMatchObject({
      state: 'ready',
      resume_dispatched: false,
      receipt: null,
      feedback: { category: 'hub_unavailable', retryable: true, original_outcome: 'unknown' },
    });
    const inspectClosed = await host.runtime.inspectSessionInvocation(handle(scope), id);
    expect(inspectClosed.feedback).toMatchObject({ category: 'hub_unavailable', retryable: true });
    expect(inspectClosed.feedback?.code).not.toBe('invocation_not_found');
    const status = await host.runtime.getSessionInvocationStatus('offline');
    expect(status).toMatchObject({ state: 'ready', scope_state: 'offline', revision });

    proxy.setDown(false);
    const back = await host.runtime.resumeSessionInvocation(handle(scope), id);
    expect(back.feedback).toBeNull();
    expect(back.receipt?.state).toBe('succeeded');
    expect(await host.runtime.getSessionInvocationStatus('offline')).toMatchObject({
      state: 'ready',
      scope_state: 'ok',
    });
  });
});

describe('bindings', () => {
  it('an id with no journal record, or a handle with another scope, is blocked without any Hub request', async () => {
    const host = open(dir());
    const scope = await createSession(env, host, 'bindings', [env.refs.shopA]);
    const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), contentCall(runId, 'bound'));
    const m0 = await env.metrics();
    const unknownId = await host.runtime.resumeSessionInvocation(
      handle(scope),
      'inv_made_up_by_the_model_123',
    );
    expect(unknownId).toMatchObject({
      state: 'blocked',
      resume_dispatched: false,
      feedback: { category: 'blocked', code: 'invocation_binding_unavailable', retryable: false },
    });
    const otherScope = { ...scope, fingerprint: '0'.repeat(64) };
    const mismatch = await host.runtime.inspectSessionInvocation(handle(otherScope), out.invocation_id!);
    expect(mismatch).toMatchObject({ state: 'blocked', feedback: { code: 'invocation_binding_conflict' } });
    expect((await env.metrics()).requests_total).toBe(m0.requests_total);
  });
});

describe('unsupported', () => {
  it('invocationStore null: state unsupported; same-host recovery works; after a restart there is nothing to recover from', async () => {
    const hub = createHubClient({ baseUrl: env.hub.url, token: env.clientToken, hubId: env.hub.hubId });
    const scopes = createMemoryScopeStore();
    const runtime = createInvocationRuntime({ hub, invocationStore: null, scopeStore: scopes });
    const host = open(dir());
    const scope = await createSession(env, host, 'unsupported', [env.refs.shopA]);
    await scopes.save(scope);
    const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
    const out = await runtime.invokeGoverned(handle(scope, 'turn-1'), contentCall(runId, 'no journal'));
    expect(out.kind).toBe('receipt');
    expect(await runtime.getSessionInvocationStatus('unsupported')).toMatchObject({ state: 'unsupported' });
    expect((await runtime.inspectSessionInvocation(handle(scope), out.invocation_id!)).receipt?.state).toBe(
      'succeeded',
    );
    const restarted = createInvocationRuntime({ hub, invocationStore: null, scopeStore: scopes });
    expect(await restarted.inspectSessionInvocation(handle(scope), out.invocation_id!)).toMatchObject({
      state: 'unsupported',
      feedback: { code: 'invocation_store_unsupported' },
    });
  });

  it('a custom scope store without an explicit invocation store is unsupported', async () => {
    const hub = createHubClient({ baseUrl: env.hub.url, token: env.clientToken });
    const scopes = createMemoryScopeStore();
    const runtime = createInvocationRuntime({ hub, scopeStore: scopes, customScopeStore: true });
    const host = open(dir());
    const scope = await createSession(env, host, 'custom-scope', [env.refs.shopA]);
    await scopes.save(scope);
    const status = await runtime.getSessionInvocationStatus('custom-scope');
    expect(status.state).toBe('unsupported');
    expect(status.reason).toContain('custom scope store');
  });
});

describe('two writers, one holding a stale receipt', () => {
  it('never overwrites a different stored outcome; both are kept for inspection; a fresh inspect resolves it', async () => {
    const d = dir();
    const plan: { unavailable?: boolean } = {};
    const a = open(d, { wrapStore: (s) => faulty(s, plan) });
    const scope = await createSession(env, a, 'two-writers', [env.refs.shopA]);
    const runId = await newRun(a, scope, env.refs.shopA, 'turn-1');
    const out = await a.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      declaration: publishDecl,
      arguments: { product_id: 13, channel: 'marketplace' },
      runId,
      turnId: 'turn-1',
      hostCallId: 'w1',
    });
    const id = out.invocation_id!;
    const approvals = await env.admin.listApprovals({ state: 'pending' });
    await env.admin.decideApproval(approvals.find((x) => x.invocation_id === id)!.approval_id, {
      decision_id: `d-${id}`,
      decision: 'approve',
    });

    // Writer A reads "approved" but cannot save it.
    plan.unavailable = true;
    const aView = await a.runtime.inspectSessionInvocation(handle(scope), id);
    expect(aView).toMatchObject({ state: 'storage_error', receipt: { state: 'approved' } });
    plan.unavailable = false;

    // Writer B (another host on the same files) runs it and stores "succeeded".
    const b = open(d);
    const bView = await b.runtime.resumeSessionInvocation(handle(scope), id);
    expect(bView.receipt?.state).toBe('succeeded');
    const storedRevision = (await b.store.load('two-writers'))!.revision;

    // A's restore must not overwrite "succeeded" with its stale "approved".
    const restored = await a.runtime.restoreSessionInvocations('two-writers');
    expect(restored.state).toBe('storage_error');
    expect(restored.reason).toBe('invocation_store_conflict');
    expect(restored.unsavedRecords).toEqual([
      {
        invocation_id: id,
        reason: 'invocation_store_conflict',
        since: expect.any(String),
        local_state: 'approved',
        stored_state: 'succeeded',
      },
    ]);
    const stored = (await b.store.load('two-writers'))!;
    expect(stored.revision).toBe(storedRevision);
    expect(stored.entries[0]!.last_state).toBe('succeeded');

    // A fresh read of the original receipt is current evidence: it resolves the conflict.
    const fresh = await a.runtime.inspectSessionInvocation(handle(scope), id);
    expect(fresh).toMatchObject({ state: 'ready', unsavedRecords: [] });
    expect(await a.runtime.getSessionInvocationStatus('two-writers')).toMatchObject({
      state: 'ready',
      unsavedRecords: [],
    });
    expect(env.systems.shopA.ledger().filter((l) => l.idempotency_key === id)).toHaveLength(1);
  });
});

describe('whole-scope revalidation (runs last: it revokes and rebinds authorizations)', () => {
  it('a storage error together with a blocked scope keeps storage_error primary with scope_state blocked', async () => {
    const plan: { failSaveBefore?: number[] } = { failSaveBefore: [2] };
    const host = open(dir(), { wrapStore: (s) => faulty(s, plan) });
    const scope = await createSession(env, host, 'storage-and-blocked', [env.refs.shopA, env.refs.inventory]);
    const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      contentCall(runId, 'unsaved outcome'),
    );
    expect(out.feedback?.category).toBe('storage_error');

    await env.admin.revokeAuthorization(env.refs.inventory);
    const check = await host.runtime.revalidateScope(scope);
    expect(check).toEqual({
      state: 'blocked',
      reason: 'authorization_revoked',
      authorization_ref: env.refs.inventory,
    });
    const status = await host.runtime.getSessionInvocationStatus('storage-and-blocked');
    expect(status).toMatchObject({
      state: 'storage_error',
      scope_state: 'blocked',
      scope_reason: 'authorization_revoked',
    });
    expect(status.unsavedRecords.map((u) => u.invocation_id)).toEqual([out.invocation_id]);

    // The whole group is blocked, including the still-active shop A member: no subset.
    const m0 = await env.metrics();
    const resume = await host.runtime.resumeSessionInvocation(handle(scope), out.invocation_id!);
    expect(resume.state).toBe('storage_error');
    expect(resume.resume_dispatched).toBe(false);
    const refused = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      contentCall(runId, 'must not leave'),
    );
    expect(refused.kind).toBe('not_sent');
    expect((await env.metrics()).invokes).toBe(m0.invokes);
  });

  it('single system, multiple accounts: revoking the second shop-A account blocks the whole group', async () => {
    await env.admin.createAuthorization({
      system_id: 'shop-a',
      account: 'shop-a-second',
      on_behalf_of: 'operator@demo.local',
      authorization_ref: 'auth-shop-a-2',
    });
    await env.admin.grantAuthorization('auth-shop-a-2', env.clientId);
    const host = open(dir());
    const scope = await createSession(env, host, 'two-accounts', [env.refs.shopA, 'auth-shop-a-2']);
    const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      contentCall(runId, 'first account'),
    );
    expect(out.kind).toBe('receipt');
    expect(await host.runtime.revalidateScope(scope)).toEqual({ state: 'ok' });
    await env.admin.revokeAuthorization('auth-shop-a-2');
    const resume = await host.runtime.resumeSessionInvocation(handle(scope), out.invocation_id!);
    expect(resume).toMatchObject({
      state: 'blocked',
      resume_dispatched: false,
      feedback: { code: 'authorization_revoked' },
    });
    const refused = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      contentCall(runId, 'surviving account'),
    );
    expect(refused).toMatchObject({
      kind: 'not_sent',
      feedback: { category: 'blocked', code: 'authorization_revoked' },
    });
  });

  it('a revoked or rebound member blocks every call of the original group; no inspect or resume is sent', async () => {
    const host = open(dir());
    const scope = await createSession(env, host, 'rebound', [env.refs.shopA, env.refs.shopB]);
    const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      contentCall(runId, 'before rebind'),
    );
    expect(out.kind).toBe('receipt');
    await env.admin.rebindAuthorization(env.refs.shopB, {
      account: 'shop-b-other',
      on_behalf_of: 'someone@demo.local',
    });
    const m0 = await env.metrics();
    const resume = await host.runtime.resumeSessionInvocation(handle(scope), out.invocation_id!);
    expect(resume).toMatchObject({
      state: 'blocked',
      resume_dispatched: false,
      receipt: null,
      feedback: { category: 'blocked', code: 'authorization_rebound', retryable: false },
    });
    const m1 = await env.metrics();
    expect(m1.requests_total - m0.requests_total).toBe(1); // only the authorization list
    expect(m1.resumes).toBe(m0.resumes);
    expect(await host.runtime.getSessionInvocationStatus('rebound')).toMatchObject({
      state: 'blocked',
      scope_state: 'blocked',
      scope_reason: 'authorization_rebound',
    });
  });
});
