// Original-call recovery across a full host reconstruction (new runtime, new stores, new Hub
// client over the same files) against the real Hub and the real demo shop: a pending approval and
// a lost response, through both recovery paths: the direct runtime call and exactly the function
// the model's resume/inspect tools call (the same InvocationRuntime method, inside a turn).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fork } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Declaration } from '../../src-shared/hub-api.js';
import type { SessionHandle, SessionScope } from '../../src-main/runtime/invocation-ports.js';
import { startHubEnv, type HubEnv } from './helpers/hub-env.js';
import { createSession, declaration, handle, newRun, openHost } from './helpers/host.js';
import { tempDir } from './helpers/journal-fixtures.js';

let env: HubEnv;
let publishDecl: Declaration;
let contentDecl: Declaration;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  env = await startHubEnv();
  const t = tempDir();
  const probe = openHost(env, t.dir);
  publishDecl = await declaration(probe, env.refs.shopA, 'publish_listing');
  contentDecl = await declaration(probe, env.refs.shopA, 'update_product_content');
  probe.close();
  t.cleanup();
});
afterAll(async () => {
  while (cleanups.length) cleanups.pop()!();
  await env.close();
});

function hostDir(): string {
  const t = tempDir('bailing-host-');
  cleanups.push(t.cleanup);
  return t.dir;
}
function open(dir: string, opts: Parameters<typeof openHost>[2] = {}) {
  const h = openHost(env, dir, opts);
  cleanups.push(() => h.close());
  return h;
}
const ledger = (key: string) => env.systems.shopA.ledger().filter((l) => l.idempotency_key === key);

/** The two recovery paths. The model's tool calls runtime.resume/inspect with the live turn's handle. */
const PATHS: { name: string; handle: (scope: SessionScope) => SessionHandle }[] = [
  { name: 'direct runtime call', handle: (scope) => handle(scope, null) },
  {
    name: "model tool's function (inside a recovery turn)",
    handle: (scope) => handle(scope, 'turn-recovery'),
  },
];

async function approve(invocationId: string) {
  const approvals = await env.admin.listApprovals({ state: 'pending' });
  const a = approvals.find((x) => x.invocation_id === invocationId);
  if (!a) throw new Error('no pending approval');
  await env.admin.decideApproval(a.approval_id, { decision_id: `d-${invocationId}`, decision: 'approve' });
}

describe.each(
  PATHS.map((p, i) => ({
    ...p,
    product: i === 0 ? 13 : 42,
    storeKind: i === 0 ? ('sqlite' as const) : ('file' as const),
  })),
)('recovery via the $name ($storeKind journal)', ({ name, handle: h, product, storeKind }) => {
  const slug = name.startsWith('direct') ? 'direct' : 'model';

  it('pending approval: reopened host reports it without any Hub request; resume waits for approval, then runs it exactly once', async () => {
    const dir = hostDir();
    const sessionId = `approval-${slug}`;
    const first = open(dir, { storeKind });
    const scope = await createSession(env, first, sessionId, [env.refs.shopA, env.refs.inventory]);
    const runId = await newRun(first, scope, env.refs.shopA, 'turn-1');
    const out = await first.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      declaration: publishDecl,
      arguments: { product_id: product, channel: 'web' },
      runId,
      turnId: 'turn-1',
      hostCallId: `c-${slug}`,
    });
    expect(out.kind).toBe('receipt');
    if (out.kind !== 'receipt') return;
    expect(out.receipt.state).toBe('awaiting_approval');
    const id = out.invocation_id;
    first.close();

    // Full host reconstruction.
    const host = open(dir, { storeKind });
    const m0 = await env.metrics();
    const status = await host.runtime.getSessionInvocationStatus(sessionId);
    const restored = await host.runtime.restoreSessionInvocations(sessionId);
    expect((await env.metrics()).requests_total).toBe(m0.requests_total); // no startup Hub request, no automatic resume
    for (const s of [status, restored]) {
      expect(s.state).toBe('ready');
      expect(s.entries).toEqual([
        {
          invocation_id: id,
          authorization_ref: env.refs.shopA,
          tool: 'publish_listing',
          original_run_id: runId,
          last_known_state: 'awaiting_approval',
          retry_at: null,
          result_verified: false,
        },
      ]);
    }
    const revision = status.revision;

    // Resume before approval: inspect only; nothing is continued.
    const waiting = await host.runtime.resumeSessionInvocation(h(scope), id);
    expect(waiting).toMatchObject({
      schema: 'bailing.agent-session-invocation-action.v1',
      state: 'ready',
      action: 'resume',
      invocation_id: id,
      resume_dispatched: false,
      feedback: null,
    });
    expect(waiting.receipt?.state).toBe('awaiting_approval');
    expect(ledger(id)).toHaveLength(0);
    expect((await host.runtime.getSessionInvocationStatus(sessionId)).revision).toBe(revision);

    await approve(id);
    const inspected = await host.runtime.inspectSessionInvocation(h(scope), id);
    expect(inspected.receipt?.state).toBe('approved'); // approval is not execution
    expect(ledger(id)).toHaveLength(0);

    const resumed = await host.runtime.resumeSessionInvocation(h(scope), id);
    expect(resumed).toMatchObject({ state: 'ready', resume_dispatched: true, feedback: null });
    expect(resumed.receipt).toMatchObject({
      invocation_id: id,
      state: 'succeeded',
      run_id: runId,
      authorization_ref: env.refs.shopA,
    });
    expect(ledger(id)).toHaveLength(1);

    // Later observation is read-only.
    const again = await host.runtime.resumeSessionInvocation(h(scope), id);
    expect(again).toMatchObject({ resume_dispatched: false });
    expect(again.receipt?.state).toBe('succeeded');
    expect(ledger(id)).toHaveLength(1);

    const m1 = await env.metrics();
    expect(m1.invokes - m0.invokes).toBe(0); // zero replacement invokes
    expect(m1.resumes - m0.resumes).toBe(1);
    const final = await host.runtime.getSessionInvocationStatus(sessionId);
    expect(final.entries[0]).toMatchObject({
      invocation_id: id,
      authorization_ref: env.refs.shopA,
      original_run_id: runId,
      last_known_state: 'succeeded',
    });
  });

  it('lost response (write committed, acknowledgement dropped): reopened host inspects, resume reconciles; the shop saw exactly one write', async () => {
    const dir = hostDir();
    const sessionId = `lost-${slug}`;
    const first = open(dir, { storeKind });
    const scope = await createSession(env, first, sessionId, [env.refs.shopA]);
    const runId = await newRun(first, scope, env.refs.shopA, 'turn-1');
    env.systems.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'drop_after_commit',
      times: 'once',
    });
    const out = await first.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      declaration: contentDecl,
      arguments: { product_id: product, description: `lost ack ${slug}` },
      runId,
      turnId: 'turn-1',
      hostCallId: `l-${slug}`,
    });
    env.systems.shopA.faults.clear();
    expect(out.kind === 'receipt' ? out.receipt.state : out.kind).toBe('unknown');
    const id = out.invocation_id!;
    expect(ledger(id)).toHaveLength(1);
    first.close();

    const host = open(dir, { storeKind });
    const m0 = await env.metrics();
    const status = await host.runtime.getSessionInvocationStatus(sessionId);
    expect(status.entries[0]).toMatchObject({
      invocation_id: id,
      last_known_state: 'unknown',
      result_verified: false,
    });
    expect((await env.metrics()).requests_total).toBe(m0.requests_total);

    const inspected = await host.runtime.inspectSessionInvocation(h(scope), id);
    expect(inspected).toMatchObject({ action: 'inspect', resume_dispatched: false });
    expect(inspected.receipt?.state).toBe('unknown');

    const resumed = await host.runtime.resumeSessionInvocation(h(scope), id);
    expect(resumed).toMatchObject({ resume_dispatched: true, state: 'ready' });
    expect(resumed.receipt).toMatchObject({ invocation_id: id, state: 'succeeded', run_id: runId });
    expect(ledger(id)).toHaveLength(1);
    expect(
      env.systems.shopA.requests().filter((r) => r.kind === 'operation' && r.idempotency_key === id),
    ).toHaveLength(1);
    const m1 = await env.metrics();
    expect(m1.invokes - m0.invokes).toBe(0);
    expect(m1.dispatches - m0.dispatches).toBe(0);
    expect((await host.runtime.getSessionInvocationStatus(sessionId)).entries[0]!.last_known_state).toBe(
      'succeeded',
    );
  });
});

describe('the host process is SIGKILLed while its call is in flight', () => {
  it('the reopened host finds the fenced call, reads the original receipt and sends nothing new', async () => {
    const dir = hostDir();
    const setup = open(dir);
    const scope = await createSession(env, setup, 'crash', [env.refs.shopA]);
    const runId = await newRun(setup, scope, env.refs.shopA, 'turn-1');
    setup.close();
    env.systems.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'delay',
      delay_ms: 1500,
      times: 'once',
    });
    const m0 = await env.metrics();
    const job = {
      hubUrl: env.hub.url,
      token: env.clientToken,
      hubId: env.hub.hubId,
      dataDir: dir,
      sessionId: 'crash',
      runId,
      declaration: contentDecl,
      arguments: { product_id: 13, description: 'written while the host died' },
    };
    const child = fork(join(import.meta.dirname, 'helpers/host-process.ts'), [JSON.stringify(job)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise((r) => child.once('exit', r));
    // Kill it once the Hub has the call (the fence was saved before it was sent).
    for (let i = 0; i < 200 && (await env.metrics()).invokes === m0.invokes; i++)
      await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    await exited;
    expect((await env.metrics()).invokes - m0.invokes).toBe(1);

    const host = open(dir);
    const status = await host.runtime.getSessionInvocationStatus('crash');
    expect(status.state).toBe('ready');
    expect(status.entries).toHaveLength(1);
    const id = status.entries[0]!.invocation_id;
    expect(status.entries[0]).toMatchObject({
      last_known_state: 'pending_dispatch',
      original_run_id: runId,
      result_verified: false,
    });
    await new Promise((r) => setTimeout(r, 1700)); // let the slow shop answer the Hub
    const inspected = await host.runtime.inspectSessionInvocation(handle(scope), id);
    expect(inspected.receipt).toMatchObject({ invocation_id: id, state: 'succeeded', run_id: runId });
    expect((await host.runtime.getSessionInvocationStatus('crash')).entries[0]!.last_known_state).toBe(
      'succeeded',
    );
    expect(ledger(id)).toHaveLength(1);
    expect((await env.metrics()).invokes - m0.invokes).toBe(1);
  });
});

describe('resume sent, answer lost', () => {
  it('resume_dispatched is true and the outcome stays unknown; a later inspect reads the original receipt; one write', async () => {
    const dir = hostDir();
    const first = open(dir);
    const scope = await createSession(env, first, 'resume-timeout', [env.refs.shopA]);
    const runId = await newRun(first, scope, env.refs.shopA, 'turn-1');
    const out = await first.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      declaration: publishDecl,
      arguments: { product_id: 7, channel: 'marketplace' },
      runId,
      turnId: 'turn-1',
      hostCallId: 'rt',
    });
    const id = out.invocation_id!;
    await approve(id);
    first.close();
    const host = open(dir, { timeoutMs: 500 });
    env.systems.shopA.faults.set({
      operation: 'publish_listing',
      kind: 'delay',
      delay_ms: 1500,
      times: 'once',
    });
    const resumed = await host.runtime.resumeSessionInvocation(handle(scope), id);
    env.systems.shopA.faults.clear();
    expect(resumed).toMatchObject({ state: 'ready', resume_dispatched: true });
    expect(resumed.feedback).toMatchObject({
      category: 'invocation_outcome_unknown',
      code: 'hub_timeout',
      next_action: 'inspect_original',
      retryable: false,
      original_outcome: 'unknown',
      invocation_id: id,
    });
    await new Promise((r) => setTimeout(r, 1700));
    const inspected = await host.runtime.inspectSessionInvocation(handle(scope), id);
    expect(inspected.receipt?.state).toBe('succeeded');
    expect(ledger(id)).toHaveLength(1);
  });
});

describe('the real Hub answers 404 invocation_not_found (its data was restored from an older backup)', () => {
  it('pending approval and unknown outcome, both paths: accurate feedback, no replacement invoke, unchanged target and journal revision', async () => {
    // Back up the Hub's data as it is now (client, systems and authorizations already exist).
    const backup = hostDir();
    await env.stopHub();
    cpSync(env.dataDir, backup, { recursive: true });
    await env.startHub();

    const dir = hostDir();
    const first = open(dir);
    const scope = await createSession(env, first, 'hub-forgot', [env.refs.shopA]);
    const runId = await newRun(first, scope, env.refs.shopA, 'turn-1');
    const pending = await first.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      declaration: publishDecl,
      arguments: { product_id: 7, channel: 'marketplace' },
      runId,
      turnId: 'turn-1',
      hostCallId: 'p1',
    });
    expect(pending.kind === 'receipt' ? pending.receipt.state : pending.kind).toBe('awaiting_approval');
    env.systems.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'drop_after_commit',
      times: 'once',
    });
    const lost = await first.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      declaration: contentDecl,
      arguments: { product_id: 7, description: 'forgotten by the Hub' },
      runId,
      turnId: 'turn-1',
      hostCallId: 'p2',
    });
    env.systems.shopA.faults.clear();
    expect(lost.kind === 'receipt' ? lost.receipt.state : lost.kind).toBe('unknown');
    first.close();

    // The Hub comes back from the older backup: it has never heard of either invocation.
    await env.stopHub();
    rmSync(env.dataDir, { recursive: true, force: true });
    cpSync(backup, env.dataDir, { recursive: true });
    await env.startHub();

    const host = open(dir);
    const before = await host.runtime.getSessionInvocationStatus('hub-forgot');
    expect(before.state).toBe('ready');
    const ledgerBefore = env.systems.shopA.ledger().length;
    const requestsBefore = env.systems.shopA.requests().length;

    const cases = [
      { id: pending.invocation_id!, tool: 'publish_listing', last: 'awaiting_approval' },
      { id: lost.invocation_id!, tool: 'update_product_content', last: 'unknown' },
    ];
    for (const c of cases) {
      for (const p of PATHS) {
        for (const action of ['inspect', 'resume'] as const) {
          const env404 =
            action === 'inspect'
              ? await host.runtime.inspectSessionInvocation(p.handle(scope), c.id)
              : await host.runtime.resumeSessionInvocation(p.handle(scope), c.id);
          expect(env404).toMatchObject({
            schema: 'bailing.agent-session-invocation-action.v1',
            state: 'ready',
            action,
            invocation_id: c.id,
            resume_dispatched: false,
            receipt: null,
            unsavedRecords: [],
          });
          expect(env404.feedback).toEqual({
            category: 'invocation_outcome_unknown',
            code: 'invocation_not_found',
            message: expect.any(String),
            next_action: 'inspect_original',
            retryable: false,
            original_outcome: 'unverified',
            invocation_id: c.id,
          });
        }
      }
    }
    const after = await host.runtime.getSessionInvocationStatus('hub-forgot');
    expect(after.revision).toBe(before.revision); // no journal revision bump
    expect(after.entries).toEqual(before.entries); // same ids, targets, runs, last states
    for (const c of cases)
      expect(after.entries.find((e) => e.invocation_id === c.id)).toMatchObject({
        tool: c.tool,
        authorization_ref: env.refs.shopA,
        original_run_id: runId,
        last_known_state: c.last,
      });

    // Zero replacement invokes: at the Hub (its counters and its audit) and at the shop.
    const m = await env.metrics();
    expect(m.invokes).toBe(0);
    expect(m.resumes).toBe(0);
    expect(m.requests['POST /agent/v1/invocations'] ?? 0).toBe(0);
    const audit = await env.admin.audit({ limit: 1000 });
    expect(
      audit.filter(
        (a) => a.invocation_id === pending.invocation_id || a.invocation_id === lost.invocation_id,
      ),
    ).toEqual([]);
    expect(env.systems.shopA.ledger().length).toBe(ledgerBefore);
    expect(env.systems.shopA.requests().length).toBe(requestsBefore);
  });
});
