// The browser host over a real desk: the access link's one-time code exchanged once for the session
// cookie, cookie and Origin checks on the WebSocket upgrade (a session that is not this launch's:
// see browser-host-relaunch.test.ts), malformed,
// oversized and unknown calls refused with coded errors while nothing changes, live events, and no
// secret in anything sent to the renderer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CALL_NAMES, MAX_PAYLOAD_BYTES } from '../../src-shared/ipc/contract.js';
import { startBrowserHost, type BrowserHost } from '../../src-main/browser-host/index.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let desk: TestDesk;
let host: BrowserHost;

beforeAll(async () => {
  desk = await startTestDesk();
  host = await startBrowserHost({
    router: desk.root.router,
    bus: desk.root.bus,
    staticDir: desk.staticDir,
  });
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await host?.close();
  await desk?.cleanup();
}, 120_000);

interface Client {
  ws: WebSocket;
  frames: Array<Record<string, unknown>>;
  call(
    name: string,
    input: unknown,
  ): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>;
  raw(text: string): Promise<Record<string, unknown>>;
}

function upgrade(
  url: string,
  origin: string,
  cookie: string | null = host.sessionCookie,
): Promise<{ ws: WebSocket } | { status: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { origin, ...(cookie ? { cookie } : {}) } });
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.once('error', () => resolve({ status: -1 }));
  });
}

/** The close code of a socket that was accepted and closed before it received any frame (-1 otherwise). */
function closedWithoutFrames(url: string, origin: string, cookie: string | null): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { origin, ...(cookie ? { cookie } : {}) } });
    let frames = 0;
    ws.on('message', () => (frames += 1));
    ws.once('close', (code) => resolve(frames === 0 ? code : -1));
    ws.once('unexpected-response', () => resolve(-1));
    ws.on('error', () => {});
  });
}

async function connect(): Promise<Client> {
  const r = await upgrade(`ws://127.0.0.1:${host.port}/ws`, host.origin);
  if (!('ws' in r)) throw new Error(`upgrade refused: ${r.status}`);
  const ws = r.ws;
  const frames: Array<Record<string, unknown>> = [];
  const waiting = new Map<unknown, (f: Record<string, unknown>) => void>();
  let nullWaiter: ((f: Record<string, unknown>) => void) | null = null;
  ws.on('message', (d) => {
    const f = JSON.parse(String(d)) as Record<string, unknown>;
    frames.push(f);
    if ('result' in f) {
      const w = f.id === null ? nullWaiter : waiting.get(f.id);
      if (f.id === null) nullWaiter = null;
      else waiting.delete(f.id);
      w?.(f);
    }
  });
  let n = 0;
  return {
    ws,
    frames,
    call(name, input) {
      const id = ++n;
      return new Promise((resolve) => {
        waiting.set(id, (f) => resolve(f.result as never));
        ws.send(JSON.stringify({ id, call: name, input }));
      });
    },
    raw(text) {
      return new Promise((resolve) => {
        nullWaiter = resolve;
        ws.send(text);
      });
    },
  };
}

describe('browser host: access control on the WebSocket upgrade', () => {
  it('refuses no session, another session, the link code itself, a wrong Origin and a wrong path', async () => {
    // From the right page, no session or another launch's session is closed at once with its own
    // code (the browser cannot see an HTTP status); no frame is sent (browser-host-relaunch.test.ts).
    const ws = `ws://127.0.0.1:${host.port}/ws`;
    expect(await closedWithoutFrames(ws, host.origin, null)).toBe(4403);
    expect(await closedWithoutFrames(ws, host.origin, `bailing_session=${'x'.repeat(43)}`)).toBe(4401);
    // the link's code is no credential for the socket (it is only exchanged, once, for the cookie)
    expect(await closedWithoutFrames(`${ws}?token=${host.token}`, host.origin, null)).toBe(4403);
    expect(await upgrade(ws, 'http://evil.example')).toEqual({ status: 403 });
    expect(await upgrade(`ws://127.0.0.1:${host.port}/other`, host.origin)).toEqual({ status: 404 });
    const ok = await upgrade(ws, host.origin);
    expect('ws' in ok).toBe(true);
    if ('ws' in ok) ok.ws.close();
  });

  it('serves the renderer with a strict CSP and refuses a foreign Host header', async () => {
    const res = await fetch(`${host.origin}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${host.port}`);
    const traversal = await fetch(`${host.origin}/assets/..%2f..%2fpackage.json`);
    expect(traversal.status).toBe(404);
    const rebinding = await new Promise<number>((resolve) => {
      void import('node:http').then(({ request }) => {
        const req = request(
          { host: '127.0.0.1', port: host.port, path: '/', headers: { host: 'evil.example' } },
          (r) => resolve(r.statusCode ?? 0),
        );
        req.end();
      });
    });
    expect(rebinding).toBe(421);
  });
});

describe('browser host: bad input is refused and changes nothing', () => {
  it('answers malformed, unknown, invalid and oversized calls with coded errors', async () => {
    const c = await connect();
    const before = await c.call('listTasks', {});
    expect(before.ok).toBe(true);

    expect(await c.raw('{not json')).toMatchObject({
      id: null,
      result: { ok: false, error: { code: 'invalid_payload' } },
    });
    expect(await c.raw(JSON.stringify({ id: 1, nope: true }))).toMatchObject({
      result: { ok: false, error: { code: 'invalid_payload' } },
    });
    expect(await c.call('deleteEverything', {})).toMatchObject({
      ok: false,
      error: { code: 'unknown_channel' },
    });
    expect(await c.call('__proto__', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    expect(
      await c.call('createTask', { title: 'x', authorizations: [], write_budget: -1, in_flight_limit: 0 }),
    ).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(
      await c.call('createTask', {
        title: 'x',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
        write_budget: 2,
        in_flight_limit: 1,
        sneaky: true,
      }),
    ).toMatchObject({ ok: false, error: { code: 'invalid_payload' } });
    const big = 'x'.repeat(MAX_PAYLOAD_BYTES + 10);
    expect(
      await c.call('createTask', {
        title: big,
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['t'] }],
        write_budget: 1,
        in_flight_limit: 1,
      }),
    ).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });

    const after = await c.call('listTasks', {});
    expect(after).toEqual(before);
    c.ws.close();
  });

  it('exposes exactly the contract: every call is reachable, nothing else is', async () => {
    const c = await connect();
    for (const name of CALL_NAMES) {
      const r = await c.call(name, { definitely_not_a_field: 1 });
      expect(r.ok, name).toBe(false);
      expect(r.error?.code, name).toBe('invalid_payload');
    }
    c.ws.close();
  });
});

describe('browser host: live calls and events', () => {
  it('creates, pauses and continues a task; task events arrive; no secret is ever sent', async () => {
    const c = await connect();
    const info = await c.call('getAppInfo', {});
    expect(info).toMatchObject({
      ok: true,
      value: { transport: 'browser', hub: { state: 'connected', mode: 'local', can_approve: true } },
    });
    const created = await c.call('createTask', {
      title: 'Three products',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 6,
      in_flight_limit: 2,
    });
    expect(created.ok).toBe(true);
    const taskId = (created.value as { task_id: string }).task_id;
    const paused = await c.call('pauseTask', { task_id: taskId });
    expect(paused).toMatchObject({ ok: true, value: { state: 'paused', writes_left: 6 } });
    await waitFor(
      () =>
        c.frames.some(
          (f) => f.event === 'taskChanged' && (f.payload as { state?: string }).state === 'paused',
        ),
      10_000,
      'task event',
    );
    const cont = await c.call('continueTask', { task_id: taskId });
    expect(cont).toMatchObject({ ok: true, value: { state: 'active', writes_left: 6 } });

    const conv = await c.call('getConversation', { session_id: desk.root.defaultSessionId ?? '' });
    expect(conv).toMatchObject({ ok: true, value: { session: { title: 'Demo: shops and inventory' } } });

    const everything = JSON.stringify(c.frames);
    const local = desk.root.local;
    expect(local).not.toBeNull();
    expect(everything).not.toContain(local?.clientToken ?? 'never');
    expect(everything).not.toContain(local?.adminToken ?? 'never');
    for (const s of local?.demo.all() ?? []) expect(everything).not.toContain(s.secret);
    c.ws.close();
  });
});

describe('the renderer transport shim over the browser host', () => {
  it('exposes the same calls and subscriptions as the preload and carries a real call', async () => {
    const { createWsTransport } = await import('../../src-renderer/src/transport/ws-client.js');
    const { subscriptionNameOf } = await import('../../src-shared/ipc/api.js');
    const { EVENT_NAMES } = await import('../../src-shared/ipc/contract.js');
    const origin = host.origin;
    const cookie = host.sessionCookie;
    class OriginWebSocket extends WebSocket {
      constructor(url: string) {
        super(url, { headers: { origin, cookie } });
      }
    }
    const t = createWsTransport({
      url: `ws://127.0.0.1:${host.port}/ws`,
      WebSocketImpl: OriginWebSocket as never,
    });
    try {
      expect(Object.keys(t.api).sort()).toEqual(
        [...CALL_NAMES, ...EVENT_NAMES.map((n) => subscriptionNameOf(n))].sort(),
      );
      const r = await t.api.listSessions({});
      expect(r.ok).toBe(true);
      if (r.ok) expect(r.value.sessions.map((s) => s.title)).toContain('Demo: shops and inventory');
    } finally {
      t.close();
    }
  });
});

describe('the access link opens the app once', () => {
  const exchange = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${host.origin}/session`, {
      method: 'POST',
      headers: { origin: host.origin, 'content-type': 'application/json', ...headers },
      body,
    });

  it('its code buys the session cookie once (HttpOnly, SameSite=Strict, host-only); again it is 410 with words', async () => {
    const code = host.token;
    expect((await exchange(JSON.stringify({ code }), { origin: 'http://evil.example' })).status).toBe(403);
    expect((await exchange(JSON.stringify({ code }), { 'content-type': 'text/plain' })).status).toBe(415);
    const wrong = await exchange(JSON.stringify({ code: 'y'.repeat(43) }));
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { error: string }).error).toBe('launch_link_invalid');

    const first = await exchange(JSON.stringify({ code }));
    expect(first.status).toBe(200);
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^bailing_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect(setCookie).not.toContain(code);
    expect(setCookie).not.toMatch(/Domain=/i);
    // the cookie it set is what opens the socket
    const ok = await upgrade(`ws://127.0.0.1:${host.port}/ws`, host.origin, setCookie.split(';')[0]!);
    expect('ws' in ok).toBe(true);
    if ('ws' in ok) ok.ws.close();

    const second = await exchange(JSON.stringify({ code }));
    expect(second.status).toBe(410);
    const body = (await second.json()) as { error: string; message: string };
    expect(body.error).toBe('launch_link_used');
    expect(body.message).toContain('already open');
    expect(second.headers.get('set-cookie')).toBeNull();
  });
});
