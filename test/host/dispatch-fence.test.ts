// The dispatch fence against the real Hub and the real demo shop: storage failures before and
// after dispatch, CAS conflicts, lost save acknowledgements, cancellation before a delayed save
// returns, Hub timeouts, and a byte scan of everything the journal stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Declaration } from '../../src-shared/hub-api.js';
import { createSqliteInvocationStore, type InvocationStore } from '../../src-main/journal/index.js';
import { startHubEnv, type HubEnv } from './helpers/hub-env.js';
import { createSession, declaration, handle, newRun, openHost } from './helpers/host.js';
import { faulty, record, entry, tempDir } from './helpers/journal-fixtures.js';
import { closedPort } from './helpers/net-faults.js';

let env: HubEnv;
let contentDecl: Declaration;
const cleanups: (() => void)[] = [];

beforeAll(async () => {
  env = await startHubEnv();
  const t = tempDir();
  const probe = openHost(env, t.dir);
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

const shopWrites = (key: string) =>
  env.systems.shopA.ledger().filter((l) => l.idempotency_key === key).length;
const shopRequests = (key: string) =>
  env.systems.shopA.requests().filter((r) => r.idempotency_key === key).length;

async function setup(
  sessionId: string,
  wrap?: (s: InvocationStore) => InvocationStore,
  extra: { timeoutMs?: number } = {},
) {
  const dir = hostDir();
  const host = openHost(env, dir, { ...(wrap ? { wrapStore: wrap } : {}), ...extra });
  cleanups.push(() => host.close());
  const scope = await createSession(env, host, sessionId, [env.refs.shopA, env.refs.inventory]);
  const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
  return { dir, host, scope, runId };
}

function call(
  runId: string,
  description: string,
  hostCallId = `call-${Math.random().toString(36).slice(2)}`,
) {
  return {
    declaration: contentDecl,
    arguments: { product_id: 42, description },
    runId,
    turnId: 'turn-1',
    hostCallId,
  };
}

describe('dispatch fence', () => {
  it('saves the binding before sending, then only state and digest; one business write', async () => {
    const { host, scope, runId } = await setup('fence-ok');
    const before = await env.metrics();
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      call(runId, 'A sturdy walnut board.'),
    );
    expect(out.kind).toBe('receipt');
    if (out.kind !== 'receipt') return;
    expect(out.receipt.state).toBe('succeeded');
    expect(out.feedback).toBeNull();
    expect(shopWrites(out.invocation_id)).toBe(1);
    expect((await env.metrics()).invokes - before.invokes).toBe(1);
    const stored = (await host.store.load('fence-ok'))!;
    expect(stored.revision).toBe(2); // fence, then outcome
    expect(stored.entries).toHaveLength(1);
    expect(stored.entries[0]).toMatchObject({
      invocation_id: out.invocation_id,
      authorization_ref: env.refs.shopA,
      run_id: runId,
      tool: 'update_product_content',
      last_state: 'succeeded',
      receipt_digest: out.receipt.receipt_digest,
      parameter_digest: out.receipt.parameter_digest,
      scope_fingerprint: scope.fingerprint,
    });
    const status = await host.runtime.getSessionInvocationStatus('fence-ok');
    expect(status).toMatchObject({ state: 'ready', revision: 2, unsavedRecords: [] });
    expect(status.entries).toEqual([
      {
        invocation_id: out.invocation_id,
        authorization_ref: env.refs.shopA,
        tool: 'update_product_content',
        original_run_id: runId,
        last_known_state: 'succeeded',
        retry_at: null,
        result_verified: false,
      },
    ]);
  });

  it('a failed fence save sends nothing: storage_error, restore first, then ready with the call known undispatched', async () => {
    const plan = { failSaveBefore: [1] };
    let wrapped: ReturnType<typeof faulty> | null = null;
    const { host, scope, runId } = await setup('fence-fail', (s) => (wrapped = faulty(s, plan)));
    const before = await env.metrics();
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'never sent'));
    expect(out.kind).toBe('not_sent');
    if (out.kind !== 'not_sent') return;
    expect(out.feedback).toMatchObject({
      category: 'storage_error',
      code: 'invocation_store_unavailable',
      next_action: 'restore_invocations',
      retryable: true,
    });
    const id = out.invocation_id!;
    expect((await env.metrics()).invokes).toBe(before.invokes);
    expect(shopRequests(id)).toBe(0);

    const status = await host.runtime.getSessionInvocationStatus('fence-fail');
    expect(status.state).toBe('storage_error');
    expect(status.reason).toBe('invocation_store_unavailable');
    expect(status.unsavedRecords.map((u) => u.invocation_id)).toEqual([id]);
    expect(status.entries[0]).toMatchObject({
      invocation_id: id,
      last_known_state: 'not_dispatched',
      result_verified: false,
    });

    // While records are unsaved, a new call does not leave either.
    const second = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'also never sent'));
    expect(second).toMatchObject({
      kind: 'not_sent',
      feedback: { category: 'storage_error', next_action: 'restore_invocations' },
    });
    expect(wrapped!.saves).toBe(1);

    const restored = await host.runtime.restoreSessionInvocations('fence-fail');
    expect(restored).toMatchObject({ state: 'ready', unsavedRecords: [], revision: 1 });
    expect(restored.entries[0]).toMatchObject({ invocation_id: id, last_known_state: 'not_dispatched' });
    expect((await env.metrics()).invokes).toBe(before.invokes);
    expect(shopRequests(id)).toBe(0);
  });

  it('a lost acknowledgement of the fence (committed, then the save threw): not sent; restore adopts the stored fence; the Hub answers 404 invocation_not_found', async () => {
    const { host, scope, runId } = await setup('fence-lost-ack', (s) => faulty(s, { commitThenThrow: [1] }));
    const before = await env.metrics();
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      call(runId, 'fence committed, ack lost'),
    );
    expect(out).toMatchObject({
      kind: 'not_sent',
      feedback: { category: 'storage_error', next_action: 'restore_invocations' },
    });
    const id = out.invocation_id!;
    expect((await host.store.load('fence-lost-ack'))!.entries[0]).toMatchObject({
      invocation_id: id,
      last_state: 'pending_dispatch',
    });

    const restored = await host.runtime.restoreSessionInvocations('fence-lost-ack');
    expect(restored.state).toBe('ready');
    expect(restored.revision).toBe(2);
    expect(restored.entries[0]).toMatchObject({ invocation_id: id, last_known_state: 'not_dispatched' });

    // The fence exists locally, the Hub never saw the id: the real Hub's authoritative 404.
    const inspected = await host.runtime.inspectSessionInvocation(handle(scope), id);
    expect(inspected).toMatchObject({
      schema: 'bailing.agent-session-invocation-action.v1',
      state: 'ready',
      action: 'inspect',
      resume_dispatched: false,
      receipt: null,
    });
    expect(inspected.feedback).toMatchObject({
      category: 'invocation_outcome_unknown',
      code: 'invocation_not_found',
      next_action: 'inspect_original',
      retryable: false,
      original_outcome: 'unverified',
      invocation_id: id,
    });
    expect((await host.store.load('fence-lost-ack'))!.revision).toBe(2);
    const after = await env.metrics();
    expect(after.invokes - before.invokes).toBe(0);
    expect(after.resumes - before.resumes).toBe(0);
    expect(shopRequests(id)).toBe(0);
  });

  it('a CAS conflict at the fence (another writer saved first) sends nothing; restore merges both writers', async () => {
    const { dir, host, scope, runId } = await setup('fence-cas');
    await host.runtime.getSessionInvocationStatus('fence-cas'); // this runtime has seen "absent"
    const other = createSqliteInvocationStore({ path: join(dir, 'journal.sqlite') });
    const foreign = entry({
      agent_session_id: 'fence-cas',
      scope_fingerprint: scope.fingerprint,
      connection_key: scope.connectionKey,
      hub_id: scope.hubId,
      client_id: scope.clientId,
      workspace_id: scope.workspaceId,
      authorization_ref: env.refs.shopA,
      last_state: 'succeeded',
      receipt_digest: 'c'.repeat(64),
    });
    await other.save('fence-cas', record('fence-cas', 1, [foreign]), null);
    const before = await env.metrics();
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'conflicted fence'));
    expect(out).toMatchObject({
      kind: 'not_sent',
      feedback: {
        category: 'storage_error',
        code: 'invocation_store_conflict',
        next_action: 'restore_invocations',
      },
    });
    expect((await env.metrics()).invokes).toBe(before.invokes);
    const restored = await host.runtime.restoreSessionInvocations('fence-cas');
    expect(restored.state).toBe('ready');
    expect(restored.entries.map((e) => e.invocation_id)).toEqual([foreign.invocation_id, out.invocation_id]);
    expect(restored.entries.find((e) => e.invocation_id === foreign.invocation_id)!.last_known_state).toBe(
      'succeeded',
    );
    other.close?.();
  });

  it('a failed post-dispatch save keeps the record unsaved even though the business call succeeded; restore flushes it', async () => {
    const { host, scope, runId } = await setup('post-fail', (s) => faulty(s, { failSaveBefore: [2] }));
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      call(runId, 'sent, but the outcome save failed'),
    );
    expect(out.kind).toBe('receipt');
    if (out.kind !== 'receipt') return;
    expect(out.receipt.state).toBe('succeeded');
    expect(out.feedback).toMatchObject({
      category: 'storage_error',
      code: 'invocation_store_unavailable',
      next_action: 'restore_invocations',
    });
    expect(shopWrites(out.invocation_id)).toBe(1);
    const status = await host.runtime.getSessionInvocationStatus('post-fail');
    expect(status.state).toBe('storage_error');
    expect(status.unsavedRecords.map((u) => u.invocation_id)).toEqual([out.invocation_id]);
    expect(status.entries[0]!.last_known_state).toBe('succeeded');
    expect((await host.store.load('post-fail'))!.entries[0]!.last_state).toBe('pending_dispatch');
    const restored = await host.runtime.restoreSessionInvocations('post-fail');
    expect(restored).toMatchObject({ state: 'ready', revision: 2, unsavedRecords: [] });
    expect((await host.store.load('post-fail'))!.entries[0]).toMatchObject({
      last_state: 'succeeded',
      receipt_digest: out.receipt.receipt_digest,
    });
    expect(shopWrites(out.invocation_id)).toBe(1);
  });

  it('a lost acknowledgement of the post-dispatch save: restore recognizes the stored outcome as its own, no revision bump', async () => {
    const { host, scope, runId } = await setup('post-lost-ack', (s) => faulty(s, { commitThenThrow: [2] }));
    const out = await host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      call(runId, 'outcome committed, ack lost'),
    );
    expect(out).toMatchObject({ kind: 'receipt', feedback: { category: 'storage_error' } });
    expect((await host.runtime.getSessionInvocationStatus('post-lost-ack')).state).toBe('storage_error');
    const restored = await host.runtime.restoreSessionInvocations('post-lost-ack');
    expect(restored).toMatchObject({ state: 'ready', revision: 2, unsavedRecords: [] });
    expect((await host.store.load('post-lost-ack'))!.revision).toBe(2);
  });

  it('cancellation before a delayed fence save returns: nothing is sent, the call is recorded not dispatched', async () => {
    const plan = { saveDelayMs: 300 };
    const { host, scope, runId } = await setup('cancel-delayed', (s) => faulty(s, plan));
    const before = await env.metrics();
    const ac = new AbortController();
    const pending = host.runtime.invokeGoverned(
      handle(scope, 'turn-1'),
      call(runId, 'cancelled before send'),
      { signal: ac.signal },
    );
    setTimeout(() => ac.abort(), 50);
    const out = await pending;
    expect(out).toMatchObject({
      kind: 'not_sent',
      feedback: { category: 'not_dispatched', code: 'cancelled' },
    });
    expect((await env.metrics()).invokes).toBe(before.invokes);
    expect(shopRequests(out.invocation_id!)).toBe(0);
    expect((await host.store.load('cancel-delayed'))!.entries[0]).toMatchObject({
      invocation_id: out.invocation_id,
      last_state: 'not_dispatched',
    });
  });

  it('cancellation after the request left: sent_unconfirmed at once; the late receipt is still recorded and handed over', async () => {
    env.systems.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'delay',
      delay_ms: 800,
      times: 'once',
    });
    const { host, scope, runId } = await setup('cancel-after-send');
    const before = await env.metrics();
    const ac = new AbortController();
    let late: { state: string } | null = null;
    const lateArrived = new Promise<void>((resolve) => {
      const pending = host.runtime.invokeGoverned(
        handle(scope, 'turn-1'),
        call(runId, 'cancelled while running'),
        {
          signal: ac.signal,
          onLateReceipt: (r) => {
            late = r;
            resolve();
          },
        },
      );
      setTimeout(() => ac.abort(), 200);
      void pending.then((out) => {
        expect(out).toMatchObject({
          kind: 'sent_unconfirmed',
          feedback: {
            category: 'invocation_outcome_unknown',
            code: 'cancelled_after_send',
            next_action: 'inspect_original',
          },
        });
      });
    });
    const status = await (async () => {
      await new Promise((r) => setTimeout(r, 300));
      return host.runtime.getSessionInvocationStatus('cancel-after-send');
    })();
    expect(status.entries[0]!.last_known_state).toBe('unknown');
    await lateArrived;
    expect(late!.state).toBe('succeeded');
    expect((await host.store.load('cancel-after-send'))!.entries[0]!.last_state).toBe('succeeded');
    expect((await env.metrics()).invokes - before.invokes).toBe(1);
    expect(shopWrites(status.entries[0]!.invocation_id)).toBe(1);
  });

  it('a Hub timeout after sending is sent_unconfirmed (outcome unknown), never "not dispatched"; later inspect reads the original receipt', async () => {
    env.systems.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'delay',
      delay_ms: 1500,
      times: 'once',
    });
    const { host, scope, runId } = await setup('hub-timeout', undefined, { timeoutMs: 400 });
    const before = await env.metrics();
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'slow write'));
    expect(out.kind).toBe('sent_unconfirmed');
    if (out.kind !== 'sent_unconfirmed') return;
    expect(out.feedback).toMatchObject({
      category: 'invocation_outcome_unknown',
      code: 'hub_timeout',
      next_action: 'inspect_original',
      retryable: false,
      original_outcome: 'unknown',
    });
    expect((await host.store.load('hub-timeout'))!.entries[0]!.last_state).toBe('unknown');
    await new Promise((r) => setTimeout(r, 1800));
    const inspected = await host.runtime.inspectSessionInvocation(handle(scope), out.invocation_id);
    expect(inspected.receipt?.state).toBe('succeeded');
    expect((await host.store.load('hub-timeout'))!.entries[0]!.last_state).toBe('succeeded');
    expect(shopWrites(out.invocation_id)).toBe(1);
    expect((await env.metrics()).invokes - before.invokes).toBe(1);
  });

  it('a Hub whose port refuses the connection: not_dispatched (hub_unreachable), nothing sent; the Hub never heard of the id', async () => {
    const { dir, host, scope, runId } = await setup('hub-refused');
    host.close();
    const refusingPort = await closedPort();
    const offline = openHost(env, dir, { hubUrl: `http://127.0.0.1:${refusingPort}` });
    cleanups.push(() => offline.close());
    const out = await offline.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'never left'));
    expect(out).toMatchObject({
      kind: 'not_sent',
      feedback: { category: 'not_dispatched', code: 'hub_unreachable', next_action: 'wait', retryable: true },
    });
    const id = out.invocation_id!;
    expect((await offline.store.load('hub-refused'))!.entries[0]).toMatchObject({
      invocation_id: id,
      last_state: 'not_dispatched',
    });
    expect((await offline.runtime.getSessionInvocationStatus('hub-refused')).state).toBe('ready');
    // Evidence, not assumption: the real Hub has no such invocation and the shop saw nothing.
    const online = openHost(env, dir);
    cleanups.push(() => online.close());
    await expect(online.hub.getInvocation(id)).rejects.toMatchObject({
      status: 404,
      code: 'invocation_not_found',
    });
    expect(shopRequests(id)).toBe(0);
  });

  it('a Hub refusal before dispatch (stale declaration revision) is not_dispatched, with nothing sent to the shop', async () => {
    const { host, scope, runId } = await setup('stale-revision');
    const stale = { ...contentDecl, declaration_revision: 'stale-revision-0' };
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      ...call(runId, 'stale'),
      declaration: stale,
    });
    expect(out).toMatchObject({
      kind: 'not_sent',
      feedback: { category: 'declaration_changed', code: 'declaration_changed', next_action: 'search_tools' },
    });
    expect(shopRequests(out.invocation_id!)).toBe(0);
    expect((await host.store.load('stale-revision'))!.entries[0]).toMatchObject({
      invocation_id: out.invocation_id,
      last_state: 'not_dispatched',
    });
    expect((await host.runtime.getSessionInvocationStatus('stale-revision')).state).toBe('ready');
  });

  it('a journal that cannot be loaded is storage_error: nothing is sent, not even a fence; it recovers once the store is back', async () => {
    const plan = { loadUnavailable: true };
    const { host, scope, runId } = await setup('load-fails', (s) => faulty(s, plan));
    const before = await env.metrics();
    expect(await host.runtime.getSessionInvocationStatus('load-fails')).toMatchObject({
      state: 'storage_error',
      reason: 'invocation_store_unavailable',
    });
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'store down'));
    expect(out).toMatchObject({
      kind: 'not_sent',
      invocation_id: null,
      feedback: { category: 'storage_error', next_action: 'restore_invocations' },
    });
    expect((await env.metrics()).invokes).toBe(before.invokes);
    plan.loadUnavailable = false;
    expect(await host.runtime.restoreSessionInvocations('load-fails')).toMatchObject({
      state: 'ready',
      entries: [],
      unsavedRecords: [],
    });
    const ok = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'store back'));
    expect(ok.kind).toBe('receipt');
  });

  it('a call whose target is not in the session scope is refused without a journal entry or Hub request', async () => {
    const { host, scope, runId } = await setup('foreign-target');
    const shopB = await declaration(host, env.refs.shopB, 'update_product_content');
    const before = await env.metrics();
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), {
      ...call(runId, 'x'),
      declaration: shopB,
    });
    expect(out).toMatchObject({
      kind: 'not_sent',
      invocation_id: null,
      feedback: { category: 'blocked', code: 'invocation_binding_conflict' },
    });
    expect((await env.metrics()).requests_total).toBe(before.requests_total);
    expect(await host.store.load('foreign-target')).toBeNull();
  });
});

describe('nothing secret or conversational is stored', () => {
  it('byte scan of the SQLite and file stores finds no token, no argument value and no receipt/message text', async () => {
    const marker = `MARKER-ARG-${Date.now()}-zebra`;
    const messageText = 'Please update the walnut board description for the spring campaign';
    for (const storeKind of ['sqlite', 'file'] as const) {
      const dir = hostDir();
      const host = openHost(env, dir, { storeKind });
      cleanups.push(() => host.close());
      const scope = await createSession(env, host, `scan-${storeKind}`, [env.refs.shopA]);
      const runId = await newRun(host, scope, env.refs.shopA, 'turn-1');
      const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), {
        ...call(runId, `${marker} ${messageText}`),
        turnId: 'turn-1',
      });
      expect(out.kind).toBe('receipt');
      // A refused call (price is not a field of this operation) carries the marker too.
      const refused = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), {
        ...call(runId, marker),
        arguments: { product_id: 42, description: marker, price: 1 },
      });
      expect(refused.kind === 'receipt' ? refused.receipt.state : refused.kind).not.toBe('succeeded');
      const files: string[] = [];
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          const p = join(d, e.name);
          if (e.isDirectory()) walk(p);
          else if (!e.name.startsWith('scopes.sqlite')) files.push(p);
        }
      };
      walk(dir);
      expect(files.length).toBeGreaterThan(0);
      const secretSecretPart = env.clientToken.split('.').pop()!;
      for (const f of files) {
        const bytes = readFileSync(f);
        for (const needle of [
          env.clientToken,
          secretSecretPart,
          marker,
          messageText,
          'walnut',
          'Walnut cutting board',
        ]) {
          expect(bytes.includes(Buffer.from(needle)), `${needle} found in ${f}`).toBe(false);
        }
      }
      // The journal did record the calls (the scan is not of an empty store).
      expect((await host.store.load(`scan-${storeKind}`))!.entries.length).toBe(2);
    }
  });
});

describe('coded errors from a custom store', () => {
  it('an uncoded exception from a custom adapter becomes invocation_store_unavailable', async () => {
    const custom: InvocationStore = {
      async load() {
        return null;
      },
      async save() {
        throw new Error('disk on fire');
      },
    };
    const { host, scope, runId } = await setup('custom-uncoded', () => custom);
    const out = await host.runtime.invokeGoverned(handle(scope, 'turn-1'), call(runId, 'x'));
    expect(out).toMatchObject({ kind: 'not_sent', feedback: { code: 'invocation_store_unavailable' } });
    // Nothing left the host, the failure stays visible as an unsaved record with the coded reason,
    // and the adapter's own words (which may carry internals) are not passed on.
    if (out.invocation_id === null) throw new Error('the refused call has no invocation id');
    expect(shopRequests(out.invocation_id)).toBe(0);
    const status = await host.runtime.getSessionInvocationStatus('custom-uncoded');
    expect(status.state).toBe('storage_error');
    expect(status.unsavedRecords.map((u) => [u.invocation_id, u.reason])).toEqual([
      [out.invocation_id, 'invocation_store_unavailable'],
    ]);
    expect(JSON.stringify([out, status])).not.toContain('disk on fire');
  });
});
