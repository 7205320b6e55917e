/* eslint-disable @typescript-eslint/no-explicit-any -- raw HTTP bodies in this test are untyped JSON */
// Permits under contention: 200 concurrent write invokes against budget 37 / in-flight 5, and
// calls racing with a pause. Counted in the business system's own ledger and concurrency gauge.
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskViewSchema } from '../../src-shared/hub-api.js';
import { newInvocationId, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeEach(async () => {
  // 200 calls at once from one client is this test's load, not abuse: no request rate limit here
  env = await startEnv({
    settings: { rateLimits: { agent: null, admin: null, authFailures: { count: 30, windowMs: 60_000 } } },
  });
});
afterEach(async () => {
  await env.close();
});

/** POST with its own keep-alive agent per worker: several client connections. */
async function post(
  agent: Agent,
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function setupTask(budget: number, inFlight: number) {
  const r = await env.agent('POST', '/agent/v1/tasks', {
    title: 'contention',
    authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
    write_budget: budget,
    in_flight_limit: inFlight,
  });
  const decl = await env.declaration('auth-shop-a', 'update_product_content');
  const runId = await env.run('auth-shop-a');
  return { taskId: r.body.task_id as string, decl, runId };
}

describe('permits under contention', () => {
  it('200 concurrent write invokes, budget 37, in-flight 5: exactly 37 writes, never more than 5 at once', async () => {
    env.demo.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'delay',
      delay_ms: 40,
      times: 'always',
    });
    const { taskId, decl, runId } = await setupTask(37, 5);
    const agents = Array.from({ length: 8 }, () => new Agent({ keepAlive: true, maxSockets: 32 }));
    const outcomes: Record<string, number> = {};
    let invokes = 0;
    const worker = async (w: number) => {
      for (;;) {
        invokes++;
        const r = await post(agents[w % agents.length]!, `${env.hub.url}/agent/v1/invocations`, env.desk, {
          invocation_id: newInvocationId(),
          run_id: runId,
          authorization_ref: 'auth-shop-a',
          tool: 'update_product_content',
          declaration_revision: decl.declaration_revision,
          arguments: { product_id: 42, description: `worker ${w} ${randomUUID()}` },
          host_call_id: `w${w}`,
          task_id: taskId,
        });
        const key = r.body.reason_code ?? r.body.state;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
        if (r.body.reason_code === 'budget_exhausted') return;
        if (r.body.reason_code === 'in_flight_limit')
          await new Promise((res) => setTimeout(res, 5 + Math.random() * 20));
      }
    };
    await Promise.all(Array.from({ length: 200 }, (_, w) => worker(w)));
    for (const a of agents) a.destroy();

    expect(env.demo.shopA.ledger()).toHaveLength(37);
    expect(env.demo.shopA.concurrency().max_observed).toBeLessThanOrEqual(5);
    expect(
      env.demo.shopA
        .requests()
        .filter((r) => r.kind === 'operation')
        .every((r) => r.in_flight_at_start <= 5),
    ).toBe(true);
    expect(outcomes.succeeded).toBe(37);
    const v = TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);
    expect(v.writes_used).toBe(37);
    expect(v.permits_granted).toBe(37);
    expect(v.in_flight).toBe(0);
    expect(v.counts.succeeded).toBe(37);
    expect(v.counts.not_dispatched).toBe(invokes - 37);
    expect(env.sql('SELECT * FROM permits')).toHaveLength(37);
  });

  it('calls racing with a pause either got their permit before it or are refused; the accounting adds up', async () => {
    env.demo.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'delay',
      delay_ms: 30,
      times: 'always',
    });
    const { taskId, decl, runId } = await setupTask(10_000, 4);
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    let stop = false;
    const worker = async (w: number) => {
      while (!stop) {
        const r = await post(agent, `${env.hub.url}/agent/v1/invocations`, env.desk, {
          invocation_id: newInvocationId(),
          run_id: runId,
          authorization_ref: 'auth-shop-a',
          tool: 'update_product_content',
          declaration_revision: decl.declaration_revision,
          arguments: { product_id: 42, description: `race ${w} ${randomUUID()}` },
          host_call_id: `w${w}`,
          task_id: taskId,
        });
        if (r.body.reason_code === 'task_paused') return;
      }
    };
    const workers = Promise.all(Array.from({ length: 24 }, (_, w) => worker(w)));
    await new Promise((res) => setTimeout(res, 400));
    const paused = await env.agent('POST', `/agent/v1/tasks/${taskId}/pause`);
    const ackMs = Date.now();
    expect(paused.body.state).toBe('paused');
    await workers;
    stop = true;
    agent.destroy();

    const pausedAt = Date.parse(paused.body.paused_at);
    const permits = env.sql<{ granted_at_ms: number; invocation_id: string }>(
      'SELECT * FROM permits WHERE task_id = ?',
      taskId,
    );
    expect(permits.length).toBeGreaterThan(0);
    for (const p of permits) {
      expect(p.granted_at_ms).toBeLessThanOrEqual(pausedAt);
      expect(p.granted_at_ms).toBeLessThanOrEqual(ackMs);
    }
    const v = TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);
    // permits = dispatched = business writes; refused calls spent nothing
    const dispatched = env.sql<{ n: number }>(
      "SELECT COUNT(*) AS n FROM invocations WHERE task_id = ? AND dispatch != 'none'",
      taskId,
    )[0]!.n;
    const withPermit = env.sql<{ n: number }>(
      'SELECT COUNT(*) AS n FROM invocations WHERE task_id = ? AND permit_id IS NOT NULL',
      taskId,
    )[0]!.n;
    const refusedWithPermit = env.sql<{ n: number }>(
      "SELECT COUNT(*) AS n FROM invocations WHERE task_id = ? AND state = 'not_dispatched' AND permit_id IS NOT NULL",
      taskId,
    )[0]!.n;
    expect(v.permits_granted).toBe(permits.length);
    expect(dispatched).toBe(permits.length);
    expect(withPermit).toBe(permits.length);
    expect(refusedWithPermit).toBe(0);
    expect(v.writes_used).toBe(permits.length);
    expect(env.demo.shopA.ledger()).toHaveLength(permits.length);
    expect(v.counts.succeeded).toBe(permits.length);
    expect(v.in_flight).toBe(0);
    expect(env.demo.shopA.concurrency().max_observed).toBeLessThanOrEqual(4);
  });
});
