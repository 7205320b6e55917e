// Faults on the MCP dispatch path, injected for real against our own stdio MCP server
// (fixtures/test-server.mjs), which appends every call and effect to a ledger file: the server
// killed mid-call, a timeout (notifications/cancelled), a tool list changed between search and
// invoke, an isError answer, a server that cannot be connected, and 200 concurrent writes under a
// task's budget and in-flight limit.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newInvocationId, startEnv, type HubEnv } from '../helpers.js';
import { readLedger, registerMcp, testServer, until } from './helpers.js';

let env: HubEnv;
let dir: string;
let ledger: string;
// the Hub's clock: real time unless a test holds it (rate windows are aligned to the clock minute)
let heldAt: number | null = null;
beforeEach(async () => {
  heldAt = null;
  env = await startEnv({
    now: () => new Date(heldAt ?? Date.now()),
    settings: { rateLimits: { agent: null, admin: null, authFailures: { count: 30, windowMs: 60_000 } } },
  });
  dir = mkdtempSync(join(tmpdir(), 'mcp-faults-'));
  ledger = join(dir, 'ledger.jsonl');
});
afterEach(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

const calls = (tool: string, key?: string) =>
  readLedger(ledger).filter(
    (e) => e.event === 'call' && e.tool === tool && (key === undefined || e.key === key),
  );
const serverPid = () => env.hub.ctx.mcp!.pid('notes');

async function register(serverEnv: Record<string, string> = {}, overlays: Record<string, unknown> = {}) {
  await registerMcp(env, 'notes', testServer(ledger, serverEnv), { overlays });
}

describe('MCP dispatch faults', () => {
  it('the stdio server killed mid-call: unknown; resume without a look-up tool: unverified, never called again', async () => {
    await register();
    const id = newInvocationId();
    const call = env.invoke({ authRef: 'auth-notes', tool: 'commit_then_hang', id, args: { note: 'a' } });
    await until(() => calls('commit_then_hang', id).length === 1);
    process.kill(serverPid()!, 'SIGKILL');
    const r = await call;
    expect(r.body.state, r.text).toBe('unknown');
    expect(r.body.reason_code).toBe('no_response_server_exited');

    const resumed = await env.agent('POST', `/agent/v1/invocations/${id}/resume`, {});
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.receipt.state).toBe('unverified');
    expect(calls('commit_then_hang', id)).toHaveLength(1);
  });

  it('the stdio server killed mid-call: resume asks the declared look-up tool and finds it succeeded', async () => {
    await register({}, { commit_then_hang: { lookup_tool: 'lookup' } });
    const id = newInvocationId();
    const call = env.invoke({ authRef: 'auth-notes', tool: 'commit_then_hang', id, args: { note: 'b' } });
    await until(() => calls('commit_then_hang', id).length === 1);
    const before = serverPid()!;
    process.kill(before, 'SIGKILL');
    expect((await call).body.state).toBe('unknown');

    const resumed = await env.agent('POST', `/agent/v1/invocations/${id}/resume`, {});
    expect(resumed.status, resumed.text).toBe(200);
    const receipt = (await env.agent('GET', `/agent/v1/invocations/${id}`)).body;
    expect(receipt.state).toBe('succeeded');
    expect(receipt.reconciliation.at(-1)).toMatchObject({ source: 'lookup_tool', outcome: 'succeeded' });
    expect(receipt.result).toEqual({ note: 'b' });
    // the supervisor started the server again; the tool itself was called once
    expect(serverPid()).not.toBe(before);
    expect(calls('commit_then_hang', id)).toHaveLength(1);
  });

  it('a timeout sends notifications/cancelled and the call is unknown', async () => {
    await register({}, { hang: { timeout_ms: 300 } });
    const id = newInvocationId();
    const r = await env.invoke({ authRef: 'auth-notes', tool: 'hang', id, args: { note: 'c' } });
    expect(r.body.state, r.text).toBe('unknown');
    expect(r.body.reason_code).toBe('no_response_timeout');
    await until(() => readLedger(ledger).some((e) => e.event === 'cancelled' && e.key === id));
    expect(calls('hang', id)).toHaveLength(1);
  });

  it('an overlay rate limit is the operation rate limit: the second call in the window is refused, not sent', async () => {
    await register({}, { slow_write: { rate_limit: { count: 1, window: '1m' } } });
    heldAt = Date.now(); // both calls in one window even when the minute turns between them
    const first = await env.invoke({ authRef: 'auth-notes', tool: 'slow_write', args: { note: 'r1' } });
    expect(first.body.state, first.text).toBe('succeeded');
    const second = await env.invoke({ authRef: 'auth-notes', tool: 'slow_write', args: { note: 'r2' } });
    expect(second.body).toMatchObject({ state: 'not_dispatched', reason_code: 'rate_limited' });
    expect(calls('slow_write')).toHaveLength(1);
  });

  it('isError: true is failed (business_rejected)', async () => {
    await register();
    const r = await env.invoke({ authRef: 'auth-notes', tool: 'reject', args: { note: 'd' } });
    expect(r.body.state, r.text).toBe('failed');
    expect(r.body.reason_code).toBe('business_rejected');
  });

  it('a tool list changed between search and invoke: declaration_changed, nothing sent', async () => {
    await register();
    const old = await env.declaration('auth-notes', 'slow_write');
    process.kill(serverPid()!, 'SIGUSR2');
    await until(async () => {
      const d = await env.declaration('auth-notes', 'slow_write');
      return d.declaration_revision !== old.declaration_revision;
    });
    const r = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: newInvocationId(),
      run_id: await env.run('auth-notes'),
      authorization_ref: 'auth-notes',
      tool: 'slow_write',
      declaration_revision: old.declaration_revision,
      arguments: { note: 'e' },
      host_call_id: `call-${randomUUID()}`,
    });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('declaration_changed');
    expect(calls('slow_write')).toHaveLength(0);
    expect((await env.declaration('auth-notes', 'slow_write')).input_schema).toMatchObject({
      properties: { priority: { type: 'integer' } },
    });
  });

  it('a server that cannot be connected: not_dispatched (the request provably never left)', async () => {
    const refuse = join(dir, 'refuse');
    await register({ REFUSE_START_IF: refuse });
    const decl = await env.declaration('auth-notes', 'slow_write');
    writeFileSync(refuse, 'x');
    process.kill(serverPid()!, 'SIGKILL');
    await until(() => env.hub.ctx.mcp!.state('notes').connection !== 'connected');
    const r = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: newInvocationId(),
      run_id: await env.run('auth-notes'),
      authorization_ref: 'auth-notes',
      tool: 'slow_write',
      declaration_revision: decl.declaration_revision,
      arguments: { note: 'f' },
      host_call_id: `call-${randomUUID()}`,
    });
    expect(r.body.state, r.text).toBe('not_dispatched');
    expect(r.body.reason_code).toBe('not_sent_not_connected');
    expect(calls('slow_write')).toHaveLength(0);
  });

  it('200 concurrent writes under budget 37 / in-flight 5: exactly 37 reach the server, never more than 5 at once', async () => {
    await register({ SLOW_MS: '150' });
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'contention',
      authorizations: [{ authorization_ref: 'auth-notes', tools: ['slow_write'] }],
      write_budget: 37,
      in_flight_limit: 5,
    });
    expect(task.status, task.text).toBe(201);
    const decl = await env.declaration('auth-notes', 'slow_write');
    const runId = await env.run('auth-notes');
    const results = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        // a refusal for the in-flight limit is retried by the caller until the budget is spent
        for (;;) {
          const r = await env.agent('POST', '/agent/v1/invocations', {
            invocation_id: newInvocationId(),
            run_id: runId,
            authorization_ref: 'auth-notes',
            tool: 'slow_write',
            declaration_revision: decl.declaration_revision,
            arguments: { note: `n${i}` },
            host_call_id: `call-${randomUUID()}`,
            task_id: task.body.task_id,
          });
          if (r.body.reason_code === 'in_flight_limit') {
            await new Promise((res) => setTimeout(res, 20));
            continue;
          }
          return r.body;
        }
      }),
    );
    const succeeded = results.filter((b) => b.state === 'succeeded');
    expect(succeeded).toHaveLength(37);
    const reached = calls('slow_write');
    expect(reached).toHaveLength(37);
    expect(Math.max(...reached.map((e) => e.active ?? 0))).toBeLessThanOrEqual(5);
    const view = (await env.agent('GET', `/agent/v1/tasks/${task.body.task_id}`)).body;
    expect(view.writes_used).toBe(37);
    expect(view.in_flight).toBe(0);
  });
});
