// The typed Hub client: every route against the real Hub, error mapping, the one authoritative
// not-found, timeouts, network errors, aborts, no re-sent writes, no token in errors, and SSE with
// Last-Event-ID reconnection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import {
  createHubAdminClient,
  createHubClient,
  createSseParser,
  isAuthoritativeNotFound,
  type HubClient,
} from '../../src-main/hub-client/index.js';
import type { HubEvent } from '../../src-shared/hub-api.js';
import { startHubEnv, type HubEnv } from './helpers/hub-env.js';
import { startProxy } from './helpers/proxy.js';
import { caughtHubError, closedPort } from './helpers/net-faults.js';

let env: HubEnv;
let client: HubClient;
const servers: http.Server[] = [];

beforeAll(async () => {
  env = await startHubEnv();
  client = env.client;
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await env.close();
});

/** A real HTTP server answering every request with a fixed reply (edge cases the real Hub never produces). */
async function edgeServer(handler: http.RequestListener): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  const server = http.createServer((req, res) => {
    count += 1;
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, requests: () => count };
}

describe('authorizations with those of retired systems (?include=retired)', () => {
  it('the real Hub answers the same list here (nothing retired), with system_retired_at null', async () => {
    const plain = await client.listAuthorizations();
    expect(await client.listAuthorizationsWithRetired()).toEqual(plain);
  });

  it('a Hub from before the parameter: a refusal (400 invalid_request) is answered by the plain list, and remembered', async () => {
    const auths = await client.listAuthorizations();
    const paths: string[] = [];
    const older = await edgeServer((req, res) => {
      paths.push(req.url ?? '');
      const refused = (req.url ?? '').includes('?');
      res.writeHead(refused ? 400 : 200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          refused
            ? { error: 'invalid_request', message: 'this route takes no query parameters' }
            : { authorizations: auths },
        ),
      );
    });
    const c = createHubClient({ baseUrl: older.url, token: 'tok' });
    expect(await c.listAuthorizationsWithRetired()).toEqual(auths);
    expect(await c.listAuthorizationsWithRetired()).toEqual(auths);
    expect(paths).toEqual([
      '/agent/v1/authorizations?include=retired',
      '/agent/v1/authorizations',
      '/agent/v1/authorizations',
    ]);
  });

  it('any other failure is not taken for an older Hub: it is thrown, and the parameter asked again', async () => {
    let calls = 0;
    const failing = await edgeServer((_req, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 503 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: calls === 1 ? 'store_unavailable' : 'unauthorized', message: 'no' }));
    });
    const c = createHubClient({ baseUrl: failing.url, token: 'tok' });
    expect((await caughtHubError(c.listAuthorizationsWithRetired())).code).toBe('store_unavailable');
    expect((await caughtHubError(c.listAuthorizationsWithRetired())).code).toBe('unauthorized');
    expect(failing.requests()).toBe(2);
  });
});

describe('agent API against the real Hub', () => {
  it('every route returns validated, typed results', async () => {
    expect(await client.health()).toBeTruthy();
    const auths = await client.listAuthorizations();
    expect(auths.map((a) => a.authorization_ref).sort()).toEqual([
      'auth-inventory',
      'auth-shop-a',
      'auth-shop-b',
    ]);
    const found = await client.searchTools({ query: 'stock', authorization_refs: ['auth-inventory'] });
    const getStock = found.declarations.find((d) => d.tool === 'get_stock')!;
    expect(getStock.effect).toBe('read');
    const run = await client.createRun({
      agent_session_id: 's-client',
      turn_id: 't1',
      authorization_ref: 'auth-inventory',
    });
    expect(run.state).toBe('open');
    const sku = (getStock.input_schema as { properties?: Record<string, unknown> }).properties
      ? 'SKU-A-0042'
      : 'SKU-A-0042';
    const receipt = await client.invoke({
      invocation_id: 'inv_client_test_0001',
      run_id: run.run_id,
      authorization_ref: 'auth-inventory',
      tool: 'get_stock',
      declaration_revision: getStock.declaration_revision,
      arguments: { sku },
      host_call_id: 'hc1',
    });
    expect(receipt.invocation_id).toBe('inv_client_test_0001');
    expect((await client.getInvocation('inv_client_test_0001')).receipt_digest).toBe(receipt.receipt_digest);
    const resumed = await client.resumeInvocation('inv_client_test_0001');
    expect(resumed.receipt.invocation_id).toBe('inv_client_test_0001');
    const ended = await client.endRun(run.run_id);
    expect(ended.state).toBe('ended');

    const task = await client.createTask({
      title: 'client test',
      authorizations: [{ authorization_ref: 'auth-inventory', tools: ['get_stock'] }],
      write_budget: 2,
      in_flight_limit: 1,
    });
    expect((await client.listTasks()).some((t) => t.task_id === task.task_id)).toBe(true);
    expect((await client.getTask(task.task_id)).title).toBe('client test');
    expect((await client.pauseTask(task.task_id)).state).toBe('paused');
    expect((await client.continueTask(task.task_id)).state).toBe('active');
    expect((await client.cancelTask(task.task_id)).state).toBe('cancelled');
  });

  it('admin API: approvals, tasks, audit, metrics, refresh', async () => {
    const admin = env.admin;
    expect(Array.isArray(await admin.listApprovals())).toBe(true);
    const task = await client.createTask({
      title: 'admin test',
      authorizations: [{ authorization_ref: 'auth-inventory', tools: ['get_stock'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    expect((await admin.listTasks()).some((t) => t.task_id === task.task_id)).toBe(true);
    expect((await admin.pauseTask(task.task_id)).state).toBe('paused');
    expect((await admin.continueTask(task.task_id)).state).toBe('active');
    expect((await admin.cancelTask(task.task_id)).state).toBe('cancelled');
    expect((await admin.audit({ limit: 5 })).length).toBeGreaterThan(0);
    expect(await admin.metrics()).toHaveProperty('clients');
    expect((await admin.refreshSystem('shop-a')).system_id).toBe('shop-a');
  });
});

describe('errors', () => {
  it('only the real HTTP 404 invocation_not_found is authoritative', async () => {
    const notFound = await caughtHubError(client.getInvocation('inv_never_existed_123'));
    expect(notFound).toMatchObject({ kind: 'http', status: 404, code: 'invocation_not_found' });
    expect(isAuthoritativeNotFound(notFound)).toBe(true);

    const runMissing = await caughtHubError(client.endRun('run_does_not_exist'));
    expect(runMissing.status).toBe(404);
    expect(isAuthoritativeNotFound(runMissing)).toBe(false);
    const taskMissing = await caughtHubError(client.getTask('task_does_not_exist'));
    expect(taskMissing.status).toBe(404);
    expect(isAuthoritativeNotFound(taskMissing)).toBe(false);

    const wrongToken = createHubClient({ baseUrl: env.hub.url, token: 'bdc_nobody.wrong-secret-value-000' });
    const unauthorized = await caughtHubError(wrongToken.getInvocation('inv_never_existed_123'));
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized' });
    expect(isAuthoritativeNotFound(unauthorized)).toBe(false);
  });

  it('a 404 with another code, a message containing the words, or a malformed body is not authoritative', async () => {
    const cases: [number, string][] = [
      [404, JSON.stringify({ error: 'not_found', message: 'invocation_not_found' })],
      [404, 'invocation_not_found'],
      [404, JSON.stringify({ error: 'invocation_not_found' })], // no message: not the Hub's error shape
      [404, ''],
      [410, JSON.stringify({ error: 'invocation_not_found', message: 'gone' })], // a conflicting status
      [500, JSON.stringify({ error: 'invocation_not_found', message: 'x' })],
    ];
    for (const [status, body] of cases) {
      const srv = await edgeServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body);
      });
      const c = createHubClient({ baseUrl: srv.url, token: 't0k3n-value-123456' });
      const err = await caughtHubError(c.getInvocation('inv_x_12345678'));
      expect(err.status).toBe(status);
      expect(isAuthoritativeNotFound(err), `${status} ${body}`).toBe(false);
    }
    expect(isAuthoritativeNotFound(new Error('invocation_not_found'))).toBe(false);
  });

  it('a timeout, a network error and an abort are never authoritative and carry no status', async () => {
    const silent = await edgeServer(() => undefined);
    const slow = createHubClient({ baseUrl: silent.url, token: 'tok-abcdef-123456', timeoutMs: 200 });
    const timeout = await caughtHubError(slow.getInvocation('inv_x_12345678'));
    expect(timeout).toMatchObject({ kind: 'timeout', status: null, code: null });
    expect(isAuthoritativeNotFound(timeout)).toBe(false);

    const refusingPort = await closedPort();
    const down = createHubClient({ baseUrl: `http://127.0.0.1:${refusingPort}`, token: 'tok-abcdef-123456' });
    const network = await caughtHubError(down.getInvocation('inv_x_12345678'));
    expect(network).toMatchObject({ kind: 'network', status: null });
    expect(isAuthoritativeNotFound(network)).toBe(false);

    const ac = new AbortController();
    const aborting = createHubClient({ baseUrl: silent.url, token: 'tok-abcdef-123456', timeoutMs: 5000 });
    const pending = aborting.getInvocation('inv_x_12345678', { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    expect(await caughtHubError(pending)).toMatchObject({ kind: 'aborted', status: null });
  });

  it('a 2xx body that does not match the contract is invalid_response', async () => {
    const srv = await edgeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ schema: 'bailing.receipt.v1', invocation_id: 'x' }));
    });
    const c = createHubClient({ baseUrl: srv.url, token: 'tok-abcdef-123456' });
    expect(await caughtHubError(c.getInvocation('inv_x_12345678'))).toMatchObject({
      kind: 'invalid_response',
      code: null,
    });
  });

  it('never re-sends a write: a POST whose connection dies is sent exactly once', async () => {
    const srv = await edgeServer((req) => req.socket.destroy());
    const c = createHubClient({ baseUrl: srv.url, token: 'tok-abcdef-123456' });
    const err = await caughtHubError(c.resumeInvocation('inv_x_12345678'));
    expect(err.kind).toBe('network');
    expect(srv.requests()).toBe(1);
    await caughtHubError(
      c.invoke({
        invocation_id: 'inv_x_12345678',
        run_id: 'r',
        authorization_ref: 'a',
        tool: 't',
        declaration_revision: 'd',
        arguments: {},
        host_call_id: 'h',
      }),
    );
    expect(srv.requests()).toBe(2);
  });

  it('the token never appears in an error, even when the server echoes it', async () => {
    const token = 'bdc_client.SUPER-SECRET-TOKEN-VALUE-987654';
    const srv = await edgeServer((req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: 'invalid_request', message: `bad header ${req.headers.authorization}` }),
      );
    });
    const c = createHubClient({ baseUrl: srv.url, token });
    const err = await caughtHubError(c.getTask('t1'));
    for (const text of [err.message, JSON.stringify(err), String(err.stack), JSON.stringify(err.toJSON())])
      expect(text).not.toContain('SUPER-SECRET-TOKEN-VALUE-987654');
    const admin = createHubAdminClient({ baseUrl: srv.url, token });
    const adminErr = await caughtHubError(admin.metrics());
    expect(JSON.stringify(adminErr)).not.toContain('SUPER-SECRET-TOKEN-VALUE-987654');
  });

  it('a request that fails its own contract is not sent', async () => {
    const srv = await edgeServer((_req, res) => res.end('{}'));
    const c = createHubClient({ baseUrl: srv.url, token: 'tok-abcdef-123456' });
    const err = await caughtHubError(
      c.invoke({
        invocation_id: 'short',
        run_id: 'r',
        authorization_ref: 'a',
        tool: 't',
        declaration_revision: 'd',
        arguments: {},
        host_call_id: 'h',
      }),
    );
    expect(err.code).toBe('invalid_request');
    expect(srv.requests()).toBe(0);
  });
});

describe('events (SSE)', () => {
  it('parses id/event/data/retry and multi-line data across chunk boundaries', () => {
    const seen: { id: string | null; event: string; data: string }[] = [];
    let retry = 0;
    const feed = createSseParser(
      (e) => seen.push(e),
      (ms) => (retry = ms),
    );
    feed(': hello\n\nid: 4\nevent: task.changed\ndata: {"a":');
    feed('1}\ndata: x\r\n\r\nretry: 250\n\n');
    expect(seen).toEqual([{ id: '4', event: 'task.changed', data: '{"a":1}\nx' }]);
    expect(retry).toBe(250);
  });

  it('delivers Hub events, reconnects with Last-Event-ID after the stream drops, and loses nothing', async () => {
    const proxy = await startProxy(env.hub.port);
    const c = createHubClient({ baseUrl: proxy.url, token: env.clientToken });
    const events: HubEvent[] = [];
    const statuses: string[] = [];
    const sub = c.subscribeEvents({
      onEvent: (e) => events.push(e),
      onStatus: (s) => statuses.push(s),
      reconnectDelayMs: 100,
    });
    const task = await client.createTask({
      title: 'sse',
      authorizations: [{ authorization_ref: 'auth-inventory', tools: ['get_stock'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    const waitFor = async (pred: () => boolean) => {
      for (let i = 0; i < 100 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
      expect(pred()).toBe(true);
    };
    await waitFor(() => events.some((e) => e.type === 'task.changed' && e.task.task_id === task.task_id));
    const seenBefore = events.length;
    proxy.setDown(true);
    await client.pauseTask(task.task_id);
    await client.continueTask(task.task_id);
    await new Promise((r) => setTimeout(r, 300));
    proxy.setDown(false);
    await waitFor(
      () => events.filter((e) => e.type === 'task.changed' && e.task.task_id === task.task_id).length >= 3,
    );
    expect(events.length).toBeGreaterThan(seenBefore);
    const seqs = events.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(statuses).toContain('reconnecting');
    expect(proxy.sent().toLowerCase()).toContain(`last-event-id: ${seqs[seenBefore - 1]}`);
    sub.close();
    await sub.done;
    await proxy.close();
  });
});
