// PostgreSQL goes away under a running Hub: requests get the coded 503 `store_unavailable` and
// nothing is sent; a call whose business request was already out has its answer recorded once the
// database is back (never sent twice); the Hub serves again without a restart.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { startDemoSystems } from '../../demo/index.js';
import { createHub } from '../../src-hub/index.js';
import { startPrivatePostgres } from '../../scripts/private-postgres.js';
import { demoConfig, http, newInvocationId, opRequests, token } from '../hub/helpers.js';
import { TEST_SECRET_KEY, describeOnPostgres } from '../hub/store-mode.js';

/** The Hub's warnings, as they are written; `untilLogged` waits for one (no fixed sleeps). */
const logged: Array<Record<string, unknown>> = [];
const logWaiters = new Set<() => void>();
const logSink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n'))
      if (line.trim()) logged.push(JSON.parse(line) as Record<string, unknown>);
    for (const wake of logWaiters) wake();
    done();
  },
});
async function untilLogged(match: (line: Record<string, unknown>) => boolean): Promise<void> {
  while (!logged.some(match)) {
    await new Promise<void>((wake) => {
      logWaiters.add(wake);
      setTimeout(wake, 1_000).unref();
    });
    logWaiters.clear();
  }
}
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describeOnPostgres('PostgreSQL unavailable', () => {
  it('503 store_unavailable and nothing sent while it is down; an answer already on its way is recorded when it is back', async () => {
    // a cluster of its own: this test stops and starts the server
    const started = await startPrivatePostgres();
    if (!started.ok) throw new Error(started.reason);
    const server = started.cluster;
    cleanups.push(() => server.stop());
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE hub');
    await admin.end();
    const demo = await startDemoSystems();
    cleanups.push(() => demo.close());
    const desk = token('desk');
    const hub = await createHub({
      storeUrl: server.urlFor('hub'),
      secretKey: TEST_SECRET_KEY,
      config: demoConfig(demo, [{ client_id: 'desk', token: desk }]),
      logger: pino({ level: 'warn' }, logSink),
    });
    cleanups.push(() => hub.close());
    const api = (method: string, path: string, body?: unknown) =>
      http(hub.url, method, path, { token: desk, body });
    const decl = (
      await api('POST', '/agent/v1/tools/search', {
        query: 'update_product_content',
        authorization_refs: ['auth-shop-a'],
      })
    ).body.declarations.find((d: { tool: string }) => d.tool === 'update_product_content');
    const run = (
      await api('POST', '/agent/v1/runs', {
        agent_session_id: `s-${randomUUID()}`,
        turn_id: 't',
        authorization_ref: 'auth-shop-a',
      })
    ).body.run_id;
    const invoke = (description: string) =>
      api('POST', '/agent/v1/invocations', {
        invocation_id: newInvocationId(),
        run_id: run,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, description },
        host_call_id: 'h',
      });
    expect((await invoke('before')).body.state).toBe('succeeded');

    server.stopServer();
    const down = await invoke('while down');
    expect(down.status).toBe(503);
    expect(down.body.error).toBe('store_unavailable');
    expect((await api('GET', '/agent/v1/tasks')).status).toBe(503);
    expect(opRequests(demo.shopA)).toBe(1);
    expect(demo.shopA.ledger()).toHaveLength(1);

    server.startServer();
    const until = Date.now() + 15_000;
    let again = await invoke('after');
    while (again.status === 503 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      again = await invoke('after');
    }
    expect(again.body.state).toBe('succeeded');
    expect(opRequests(demo.shopA)).toBe(2);

    // the database goes away while a business request is out: its answer is recorded once it is back
    demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 3_000 });
    const pending = invoke('answer in flight');
    // the request reached the shop, so its `dispatching` record is committed: now stop the database
    while (opRequests(demo.shopA) < 3) await new Promise((r) => setTimeout(r, 10));
    server.stopServer();
    expect(demo.shopA.ledger(), 'the shop answered before PostgreSQL was down').toHaveLength(2);
    // the shop answers while the database is down, and the Hub fails to record that answer
    await untilLogged((line) => line.what === 'the outcome of a dispatched call');
    expect(demo.shopA.ledger()).toHaveLength(3);
    server.startServer();
    const answered = await pending;
    expect(answered.status).toBe(201);
    expect(answered.body.state).toBe('succeeded');
    const stored = await api('GET', `/agent/v1/invocations/${answered.body.invocation_id}`);
    expect(stored.body.state).toBe('succeeded');
    expect(opRequests(demo.shopA)).toBe(3);
    expect(demo.shopA.ledger()).toHaveLength(3);
  });
});
