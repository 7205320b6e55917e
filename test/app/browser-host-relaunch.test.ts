// A tab left open across a restart of the browser host. Each launch issues its own session; a page
// holding an earlier launch's session must be told so (close code 4401, no frame, no call served)
// and must stop retrying, while a host that is merely gone is retried with "reconnecting…". Real
// desk, real browser hosts on the same 127.0.0.1 port, real WebSockets, the renderer's own
// transport (src-renderer/src/transport/ws-client.ts).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startBrowserHost, type BrowserHost } from '../../src-main/browser-host/index.js';
import {
  WS_CLOSE_LAUNCH_TOKEN_REJECTED,
  WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON,
  WS_CLOSE_SESSION_MISSING,
  WS_HELLO_FRAME,
} from '../../src-main/browser-host/protocol.js';
import * as client from '../../src-renderer/src/transport/ws-client.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let desk: TestDesk;
const hosts: BrowserHost[] = [];
const logs: string[] = [];

async function launch(
  opts: { port?: number; token?: string; sessionSecret?: string } = {},
): Promise<BrowserHost> {
  const host = await startBrowserHost({
    router: desk.root.router,
    bus: desk.root.bus,
    staticDir: desk.staticDir,
    log: (m) => logs.push(m),
    ...opts,
  });
  hosts.push(host);
  return host;
}

beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
}, 120_000);
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

/** What a raw client sees: the frames it got and how the socket ended (or the HTTP status of a refused upgrade). */
function knock(
  port: number,
  cookie: string | null,
  origin: string | null,
): Promise<{ status?: number; frames: unknown[]; code?: number; reason?: string }> {
  return new Promise((resolve) => {
    const frames: unknown[] = [];
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, {
      headers: { ...(origin ? { origin } : {}), ...(cookie ? { cookie } : {}) },
    });
    ws.on('message', (d) => frames.push(JSON.parse(String(d))));
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, call: 'listTasks', input: {} })));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, frames }));
    ws.once('close', (code, reason) => resolve({ frames, code, reason: reason.toString() }));
    ws.on('error', () => {});
  });
}

/** The first frame an accepted connection gets. */
function firstFrame(port: number, cookie: string, origin: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { origin, cookie } });
    ws.once('message', (d) => {
      resolve(JSON.parse(String(d)));
      ws.close();
    });
    ws.once('close', (code) => reject(new Error(`closed with ${code} before any frame`)));
    ws.once('error', reject);
  });
}

function originSocket(origin: string, cookie: string | null): never {
  return class extends WebSocket {
    constructor(url: string) {
      super(url, { headers: { origin, ...(cookie ? { cookie } : {}) } });
    }
  } as never;
}

describe('browser host: a session from an earlier launch', () => {
  it('is told apart from a wrong Origin or Host, served nothing, and never accepted', async () => {
    const first = await launch();
    expect(await firstFrame(first.port, first.sessionCookie, first.origin)).toEqual(WS_HELLO_FRAME);
    await first.close();
    hosts.splice(0);

    const second = await launch({ port: first.port });
    expect(second.port).toBe(first.port);
    expect(second.token).not.toBe(first.token);
    expect(second.sessionCookie).not.toBe(first.sessionCookie);

    const stale = await knock(second.port, first.sessionCookie, second.origin);
    expect(stale).toEqual({
      frames: [],
      code: WS_CLOSE_LAUNCH_TOKEN_REJECTED,
      reason: WS_CLOSE_LAUNCH_TOKEN_REJECTED_REASON,
    });
    const missing = await knock(second.port, null, second.origin);
    expect(missing.code).toBe(WS_CLOSE_SESSION_MISSING);
    expect(missing.frames).toEqual([]);
    expect(second.rejectedConnections()).toBe(2);
    expect(second.clients()).toBe(0);
    // Only the right page learns the token was refused; anything else still gets a bare HTTP refusal.
    expect(await knock(second.port, first.sessionCookie, 'http://evil.example')).toMatchObject({
      status: 403,
    });
    expect(await knock(second.port, first.sessionCookie, null)).toMatchObject({ status: 403 });

    // The current launch's session works on the same port.
    expect(await firstFrame(second.port, second.sessionCookie, second.origin)).toEqual(WS_HELLO_FRAME);
    // Nothing the host logged names either launch's code or session.
    const logged = logs.join('\n');
    expect(logged).toContain('not this launch');
    for (const h of [first, second]) {
      expect(logged).not.toContain(h.token);
      expect(logged).not.toContain(h.sessionSecret);
    }
  });

  it('the host and the renderer agree on the close code', () => {
    expect(client.WS_CLOSE_LAUNCH_TOKEN_REJECTED).toBe(WS_CLOSE_LAUNCH_TOKEN_REJECTED);
    expect(client.WS_CLOSE_SESSION_MISSING).toBe(WS_CLOSE_SESSION_MISSING);
    expect(client.HELLO).toBe(WS_HELLO_FRAME.hello);
  });
});

describe('the renderer transport across host restarts', () => {
  it('host gone: reconnecting, then unreachable, calls fail fast; the same launch back: open again', async () => {
    const host = await launch();
    const states: string[] = [];
    const t = client.createWsTransport({
      url: `ws://127.0.0.1:${host.port}/ws`,
      WebSocketImpl: originSocket(host.origin, host.sessionCookie),
      reconnectDelayMs: 20,
      maxReconnectDelayMs: 80,
      unreachableAfter: 3,
      openWaitMs: 200,
    });
    try {
      t.onStatus((s) => states.push(s));
      await waitFor(() => t.state() === 'open', 10_000, 'open');
      expect((await t.api.listSessions({})).ok).toBe(true);
      const { port, token, sessionSecret } = host;
      await host.close();
      hosts.splice(0);
      await waitFor(() => t.state() === 'unreachable', 10_000, 'unreachable');
      expect(states).toEqual(['open', 'reconnecting', 'unreachable']);
      expect(await t.api.listSessions({})).toEqual({
        ok: false,
        error: { code: 'host_unavailable', message: 'The app host is not connected.' },
      });
      // The same launch comes back (a brief outage, not a restart): the tab carries on.
      await launch({ port, token, sessionSecret });
      await waitFor(() => t.state() === 'open', 10_000, 'open again');
      expect(states.at(-1)).toBe('open');
      expect((await t.api.listSessions({})).ok).toBe(true);
    } finally {
      t.close();
    }
  });

  it('host restarted (a new launch): rejected at once, calls answer launch_token_rejected, no retry loop', async () => {
    const first = await launch();
    const states: string[] = [];
    const t = client.createWsTransport({
      url: `ws://127.0.0.1:${first.port}/ws`,
      WebSocketImpl: originSocket(first.origin, first.sessionCookie),
      reconnectDelayMs: 20,
      maxReconnectDelayMs: 40,
      openWaitMs: 5_000,
    });
    try {
      t.onStatus((s) => states.push(s));
      await waitFor(() => t.state() === 'open', 10_000, 'open');
      await first.close();
      hosts.splice(0);
      await waitFor(() => t.state() === 'reconnecting', 10_000, 'reconnecting');
      const second = await launch({ port: first.port });
      // A call made while reconnecting waits for the link, and learns the outcome as soon as it is known.
      const waiting = t.api.listSessions({});
      await waitFor(() => t.state() === 'rejected', 10_000, 'rejected');
      const answer = await waiting;
      expect(answer).toEqual({
        ok: false,
        error: { code: 'launch_token_rejected', message: expect.stringContaining('earlier launch') },
      });
      expect(JSON.stringify(answer)).not.toContain(first.sessionSecret);
      expect(states.filter((s) => s !== 'reconnecting' && s !== 'unreachable')).toEqual(['open', 'rejected']);
      // No hammering: one knock, then silence for many retry periods.
      await new Promise((r) => setTimeout(r, 600));
      expect(second.rejectedConnections()).toBe(1);
      expect(second.clients()).toBe(0);
      expect(t.state()).toBe('rejected');
      expect((await t.api.listTasks({})).ok).toBe(false);
    } finally {
      t.close();
    }
  });

  it('a page without a session is told to open the link (launch_token_missing), once, no retry loop', async () => {
    const host = await launch();
    const t = client.createWsTransport({
      url: `ws://127.0.0.1:${host.port}/ws`,
      WebSocketImpl: originSocket(host.origin, null),
      reconnectDelayMs: 20,
    });
    const seen: string[] = [];
    t.onStatus((s) => seen.push(s));
    await waitFor(() => t.state() === 'no_token', 10_000, 'no_token');
    expect(await t.api.listSessions({})).toMatchObject({
      ok: false,
      error: { code: 'launch_token_missing' },
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(host.rejectedConnections()).toBe(1);
    expect(seen).toEqual(['no_token']);
    t.close();
  });

  it('a page whose link was already used connects nothing and says so (launch_link_used)', async () => {
    const host = await launch();
    const t = client.createWsTransport({
      url: `ws://127.0.0.1:${host.port}/ws`,
      WebSocketImpl: originSocket(host.origin, null),
      opening: Promise.resolve('link_used'),
    });
    await waitFor(() => t.state() === 'link_used', 10_000, 'link_used');
    expect(await t.api.listSessions({})).toMatchObject({ ok: false, error: { code: 'launch_link_used' } });
    expect(host.rejectedConnections()).toBe(0);
    expect(host.clients()).toBe(0);
    t.close();
  });
});
