// How writes travel: every POST on a fresh connection of its own (GETs keep the keep-alive pool),
// sent at most once whatever fails. A write whose connection really drops mid-request still maps
// to the same 'network' error and is never re-sent: the real Hub and the demo shop's ledger saw at
// most one. Timeout, abort, redirect and token redaction behave for a POST as they do for a GET.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { createHub, type Hub } from '../../src-hub/index.js';
import {
  createHubAdminClient,
  createHubClient,
  isAuthoritativeNotFound,
  isOutcomeUnknown,
  type HubClient,
} from '../../src-main/hub-client/index.js';
import type { Declaration } from '../../src-shared/hub-api.js';
import { demoConfig, token } from '../hub/helpers.js';
import { countRequests, startConnProxy, type ConnProxy } from './hub-client-conn-proxy.js';
import { caughtHubError, closedPort } from './helpers/net-faults.js';

describe('a write whose connection drops mid-request (real Hub, demo shop)', () => {
  let demo: DemoSystems;
  let hub: Hub;
  let dataDir: string;
  let proxy: ConnProxy;
  let direct: HubClient;
  let viaProxy: HubClient;
  let decl: Declaration;
  let runId: string;
  const adminToken = `admin-${randomUUID()}`;

  beforeAll(async () => {
    demo = await startDemoSystems();
    dataDir = mkdtempSync(join(tmpdir(), 'hub-client-conn-'));
    const desk = token('desk');
    hub = await createHub({
      dataDir,
      config: { ...demoConfig(demo, [{ client_id: 'desk', token: desk }]), admin_token: adminToken },
    });
    proxy = await startConnProxy(() => hub.port);
    direct = createHubClient({ baseUrl: hub.url, token: desk });
    viaProxy = createHubClient({ baseUrl: proxy.url, token: desk });
    const found = await direct.searchTools({
      query: 'update_product_content',
      authorization_refs: ['auth-shop-a'],
    });
    decl = found.declarations.find((d) => d.tool === 'update_product_content')!;
    runId = (
      await direct.createRun({
        agent_session_id: 's-drop',
        turn_id: 't-drop',
        authorization_ref: 'auth-shop-a',
      })
    ).run_id;
  });
  afterAll(async () => {
    await proxy.close();
    await hub.close();
    await demo.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const write = (c: HubClient, invocationId: string, description: string) =>
    c.invoke({
      invocation_id: invocationId,
      run_id: runId,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: decl.declaration_revision,
      arguments: { product_id: 42, description },
      host_call_id: `hc-${invocationId}`,
    });
  const ledger = (description: string) =>
    demo.shopA.ledger().filter((e) => e.changes['description']?.after === description).length;
  const hubInvokes = async () => {
    const m = (await createHubAdminClient({ baseUrl: hub.url, token: adminToken }).metrics()) as {
      clients?: Record<string, { invokes: number }>;
    };
    return m.clients?.['desk']?.invokes ?? 0;
  };

  it('dropped as the answer comes back: network error, outcome unknown, the Hub and the shop saw exactly one', async () => {
    const id = `inv_${randomUUID()}`;
    const description = `dropped-answer-${randomUUID()}`;
    const invokesBefore = await hubInvokes();
    const sentBefore = countRequests(proxy.sent(), 'POST', '/agent/v1/invocations');
    proxy.setMode('reset-on-response');
    const err = await caughtHubError(write(viaProxy, id, description)).finally(() =>
      proxy.setMode('forward'),
    );
    expect(err).toMatchObject({ kind: 'network', status: null, code: null, notSent: false });
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(countRequests(proxy.sent(), 'POST', '/agent/v1/invocations') - sentBefore).toBe(1);
    expect(await hubInvokes()).toBe(invokesBefore + 1);
    expect(ledger(description)).toBe(1);
    // Resolved by asking, not by sending again: inspect, then resume with the original id.
    expect((await direct.getInvocation(id)).state).toBe('succeeded');
    expect((await viaProxy.resumeInvocation(id)).receipt.state).toBe('succeeded');
    expect(ledger(description)).toBe(1);
    expect(await hubInvokes()).toBe(invokesBefore + 1);
  });

  it('dropped before it reached the Hub: the same network error, and nothing was written', async () => {
    const id = `inv_${randomUUID()}`;
    const description = `dropped-request-${randomUUID()}`;
    const invokesBefore = await hubInvokes();
    const sentBefore = countRequests(proxy.sent(), 'POST', '/agent/v1/invocations');
    proxy.setMode('reset-before-upstream');
    const err = await caughtHubError(write(viaProxy, id, description)).finally(() =>
      proxy.setMode('forward'),
    );
    // The connection was open when it dropped: from here nobody can tell, so the outcome is unknown.
    expect(err).toMatchObject({ kind: 'network', status: null, code: null, notSent: false });
    expect(isOutcomeUnknown(err)).toBe(true);
    expect(countRequests(proxy.sent(), 'POST', '/agent/v1/invocations') - sentBefore).toBe(1);
    expect(await hubInvokes()).toBe(invokesBefore);
    expect(isAuthoritativeNotFound(await caughtHubError(direct.getInvocation(id)))).toBe(true);
    expect(ledger(description)).toBe(0);
  });

  it('a resume dropped as its answer comes back is not re-sent either', async () => {
    const id = `inv_${randomUUID()}`;
    const description = `resume-dropped-${randomUUID()}`;
    expect((await write(direct, id, description)).state).toBe('succeeded');
    const path = `/agent/v1/invocations/${id}/resume`;
    proxy.setMode('reset-on-response');
    const err = await caughtHubError(viaProxy.resumeInvocation(id)).finally(() => proxy.setMode('forward'));
    expect(err.kind).toBe('network');
    expect(countRequests(proxy.sent(), 'POST', path)).toBe(1);
    expect(ledger(description)).toBe(1);
  });
});

describe('the write transport', () => {
  const servers: http.Server[] = [];
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  /** A real HTTP server that records, per request, which TCP connection carried it. */
  async function recordingServer(handler: http.RequestListener) {
    const seen: Array<{ method: string; connection: number; header: string | undefined }> = [];
    let connections = 0;
    const ids = new WeakMap<net.Socket, number>();
    const server = http.createServer((req, res) => {
      seen.push({
        method: req.method ?? '',
        connection: ids.get(req.socket) ?? -1,
        header: req.headers.connection,
      });
      handler(req, res);
    });
    server.on('connection', (s: net.Socket) => ids.set(s, ++connections));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    return { url, seen, connections: () => connections };
  }

  const answerTask = (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  };

  it('each POST gets a connection of its own, closed after it; GETs share the keep-alive pool', async () => {
    const srv = await recordingServer(answerTask);
    const c = createHubClient({ baseUrl: srv.url, token: 'tok-abcdef-123456' });
    for (let i = 0; i < 3; i++) await c.health(); // GET
    for (let i = 0; i < 3; i++) await caughtHubError(c.pauseTask(`t${i}`)); // POST ('{}' is not a TaskView)
    for (let i = 0; i < 3; i++) await c.health();
    const gets = srv.seen.filter((s) => s.method === 'GET');
    const posts = srv.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(3);
    expect(new Set(posts.map((p) => p.connection)).size).toBe(3);
    for (const p of posts) expect(p.header).toBe('close');
    for (const p of posts) expect(gets.some((g) => g.connection === p.connection)).toBe(false);
    expect(gets).toHaveLength(6);
    // The pool reuses its connections (how many it keeps open is undici's business).
    expect(new Set(gets.map((g) => g.connection)).size).toBeLessThan(gets.length);
    for (const g of gets) expect(g.header).toBe('keep-alive');
  });

  it('a tool search (a POST that changes nothing) rides the keep-alive pool like a read', async () => {
    const srv = await recordingServer(answerTask);
    const c = createHubClient({ baseUrl: srv.url, token: 'tok-abcdef-123456' });
    for (let i = 0; i < 4; i++)
      await caughtHubError(
        c.searchTools({ query: 'edit product', authorization_refs: ['auth-shop-a'], limit: 5 }),
      ); // '{}' is not a search result
    const posts = srv.seen.filter((s) => s.method === 'POST');
    expect(posts).toHaveLength(4);
    for (const p of posts) expect(p.header).toBe('keep-alive');
    expect(new Set(posts.map((p) => p.connection)).size).toBeLessThan(posts.length);
  });

  it('timeout, abort, redirect and network errors map for a POST exactly as for a GET, sent once', async () => {
    const silent = await recordingServer(() => undefined);
    const slow = createHubClient({ baseUrl: silent.url, token: 'tok-abcdef-123456', timeoutMs: 200 });
    for (const call of [() => slow.getTask('t1'), () => slow.pauseTask('t1')])
      expect(await caughtHubError(call())).toMatchObject({ kind: 'timeout', status: null, code: null });

    const patient = createHubClient({ baseUrl: silent.url, token: 'tok-abcdef-123456', timeoutMs: 5000 });
    for (const call of [
      (signal: AbortSignal) => patient.getTask('t1', { signal }),
      (signal: AbortSignal) => patient.pauseTask('t1', { signal }),
    ]) {
      const ac = new AbortController();
      const pending = call(ac.signal);
      setTimeout(() => ac.abort(), 50);
      expect(await caughtHubError(pending)).toMatchObject({ kind: 'aborted', status: null });
    }
    const sentSoFar = silent.seen.length;
    const aborted = AbortSignal.abort();
    expect(await caughtHubError(patient.pauseTask('t1', { signal: aborted }))).toMatchObject({
      kind: 'aborted',
    });
    expect(silent.seen.length).toBe(sentSoFar); // an already-aborted write is not sent

    const redirecting = await recordingServer((_req, res) => {
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    const r = createHubClient({ baseUrl: redirecting.url, token: 'tok-abcdef-123456' });
    const getErr = await caughtHubError(r.getTask('t1'));
    const postErr = await caughtHubError(r.pauseTask('t1'));
    expect(postErr).toMatchObject({ kind: getErr.kind, status: getErr.status, message: getErr.message });
    expect(redirecting.seen.filter((s) => s.method === 'POST')).toHaveLength(1);

    const refusingPort = await closedPort();
    const down = createHubClient({ baseUrl: `http://127.0.0.1:${refusingPort}`, token: 'tok-abcdef-123456' });
    const downGet = await caughtHubError(down.getTask('t1'));
    const downPost = await caughtHubError(down.pauseTask('t1'));
    expect(downPost).toMatchObject({ kind: 'network', status: null, message: downGet.message });
  });

  it('a connection that could not even be opened is the one network failure known not to have sent anything', async () => {
    const refusingPort = await closedPort();
    // 127.0.0.1 (one address) and localhost (every address tried in turn: an AggregateError cause).
    for (const host of ['127.0.0.1', 'localhost']) {
      const down = createHubClient({ baseUrl: `http://${host}:${refusingPort}`, token: 'tok-abcdef-123456' });
      for (const call of [() => down.pauseTask('t1'), () => down.getTask('t1')]) {
        const err = await caughtHubError(call());
        expect(err).toMatchObject({ kind: 'network', status: null, code: null, notSent: true });
        expect(err.message).toContain('the request was not sent');
        expect(isOutcomeUnknown(err)).toBe(false);
      }
    }
  });

  it('a POST error never carries the token, even when the server echoes it', async () => {
    const secret = 'bdc_client.WRITE-PATH-SECRET-TOKEN-4242';
    const srv = await recordingServer((req, res) => {
      res.writeHead(409, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'conflict', message: `echo ${req.headers.authorization}` }));
    });
    const err = await caughtHubError(createHubClient({ baseUrl: srv.url, token: secret }).pauseTask('t1'));
    expect(err).toMatchObject({ kind: 'http', status: 409, code: 'conflict' });
    for (const text of [err.message, JSON.stringify(err), String(err.stack)])
      expect(text).not.toContain('WRITE-PATH-SECRET-TOKEN-4242');
  });
});
