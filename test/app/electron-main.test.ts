// Main-process tests with only the `electron` module replaced: the preload exposes exactly the
// contract (the same calls the browser host serves), ipcMain handlers refuse unexpected sender
// frames with a coded error and change nothing, and the window is created with its security settings.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CALL_NAMES, EVENT_NAMES } from '../../src-shared/ipc/contract.js';
import { channelOf, eventChannelOf } from '../../src-shared/ipc/channels.js';
import { subscriptionNameOf } from '../../src-shared/ipc/api.js';
import { registerIpc } from '../../src-main/app/ipc.js';
import { APP_ORIGIN } from '../../src-main/app/sender.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

const electron = vi.hoisted(() => {
  const exposed: Record<string, unknown> = {};
  const invoked: Array<{ channel: string; payload: unknown }> = [];
  const listeners = new Map<string, Set<(...a: unknown[]) => void>>();
  const windows: Array<{
    options: Record<string, unknown>;
    handlers: Record<string, (...a: unknown[]) => unknown>;
    openHandler: ((d: { url: string }) => unknown) | null;
    loaded: string | null;
  }> = [];
  class BrowserWindow {
    webContents: Record<string, unknown>;
    rec: (typeof windows)[number];
    constructor(options: Record<string, unknown>) {
      this.rec = { options, handlers: {}, openHandler: null, loaded: null };
      windows.push(this.rec);
      const rec = this.rec;
      this.webContents = {
        on: (name: string, fn: (...a: unknown[]) => unknown) => {
          rec.handlers[name] = fn;
        },
        setWindowOpenHandler: (fn: (d: { url: string }) => unknown) => {
          rec.openHandler = fn;
        },
      };
    }
    once() {}
    loadURL(url: string) {
      this.rec.loaded = url;
      return Promise.resolve();
    }
  }
  return {
    exposed,
    invoked,
    listeners,
    windows,
    module: {
      contextBridge: {
        exposeInMainWorld: (key: string, api: unknown) => {
          exposed[key] = api;
        },
      },
      ipcRenderer: {
        invoke: (channel: string, payload: unknown) => {
          invoked.push({ channel, payload });
          return Promise.resolve({ ok: true, value: null });
        },
        on: (channel: string, fn: (...a: unknown[]) => void) => {
          let s = listeners.get(channel);
          if (!s) listeners.set(channel, (s = new Set()));
          s.add(fn);
        },
        removeListener: (channel: string, fn: (...a: unknown[]) => void) =>
          listeners.get(channel)?.delete(fn),
      },
      BrowserWindow,
      shell: { openExternal: vi.fn() },
      protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
      session: {
        defaultSession: {
          webRequest: { onHeadersReceived: vi.fn() },
          setPermissionRequestHandler: vi.fn(),
          setPermissionCheckHandler: vi.fn(),
        },
      },
      net: {
        fetch: vi.fn((url: string) =>
          Promise.resolve(
            new Response(`file ${url}`, { status: 200, headers: { 'content-type': 'text/html' } }),
          ),
        ),
      },
    },
  };
});
vi.mock('electron', () => ({ ...electron.module, default: electron.module }));

describe('preload: one typed function per contract call, typed subscriptions, no pass-through', () => {
  it('exposes exactly the contract calls and event subscriptions on window.bailing', async () => {
    await import('../../src-preload/index.js');
    const api = electron.exposed.bailing as Record<string, (...a: unknown[]) => unknown>;
    expect(api).toBeDefined();
    const expected = [...CALL_NAMES, ...EVENT_NAMES.map((n) => subscriptionNameOf(n))].sort();
    expect(Object.keys(api).sort()).toEqual(expected);
    expect(Object.keys(api)).not.toContain('invoke');
    for (const name of CALL_NAMES) {
      await api[name]?.({ probe: name });
      expect(electron.invoked.at(-1)).toEqual({ channel: channelOf(name), payload: { probe: name } });
    }
    const got: unknown[] = [];
    const off = api.onTaskChanged?.((p: unknown) => got.push(p)) as () => void;
    for (const fn of electron.listeners.get(eventChannelOf('taskChanged')) ?? []) fn({}, { task_id: 't1' });
    off();
    for (const fn of electron.listeners.get(eventChannelOf('taskChanged')) ?? []) fn({}, { task_id: 't2' });
    expect(got).toEqual([{ task_id: 't1' }]);
  });
});

describe('ipcMain registration over a real desk', () => {
  let desk: TestDesk;
  const handlers = new Map<string, (event: unknown, payload: unknown) => Promise<unknown>>();
  const sent: Array<{ channel: string; payload: unknown }> = [];
  const wc = {
    id: 7,
    isDestroyed: () => false,
    send: (channel: string, payload: unknown) => sent.push({ channel, payload }),
  };
  const fakeIpcMain = {
    handle: (channel: string, fn: (event: unknown, payload: unknown) => Promise<unknown>) => {
      handlers.set(channel, fn);
    },
    removeHandler: (channel: string) => {
      handlers.delete(channel);
    },
  };
  const mainFrame = { sender: { id: 7 }, senderFrame: { url: `${APP_ORIGIN}/index.html`, parent: null } };

  beforeAll(async () => {
    desk = await startTestDesk();
    await hubConnected(desk);
  }, 120_000);
  afterAll(async () => {
    await desk?.cleanup();
  }, 120_000);

  it('registers one handler per contract call (the same set the preload and browser host use)', () => {
    const reg = registerIpc({
      ipcMain: fakeIpcMain as never,
      router: desk.root.router,
      bus: desk.root.bus,
      webContents: () => wc as never,
    });
    expect([...handlers.keys()].sort()).toEqual(CALL_NAMES.map(channelOf).sort());
    expect(reg.channels.sort()).toEqual(CALL_NAMES.map(channelOf).sort());
  });

  it('refuses calls from a subframe, another window or another origin, and nothing changes', async () => {
    const create = handlers.get(channelOf('createTask'));
    const list = handlers.get(channelOf('listTasks'));
    if (!create || !list) throw new Error('handlers missing');
    const before = await list(mainFrame, {});
    const input = {
      title: 'From a frame',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 1,
      in_flight_limit: 1,
    };
    const bad = [
      { sender: { id: 7 }, senderFrame: { url: `${APP_ORIGIN}/index.html`, parent: {} } },
      { sender: { id: 8 }, senderFrame: { url: `${APP_ORIGIN}/index.html`, parent: null } },
      { sender: { id: 7 }, senderFrame: { url: 'https://evil.example/', parent: null } },
      { sender: { id: 7 }, senderFrame: { url: 'file:///etc/passwd', parent: null } },
      { sender: { id: 7 }, senderFrame: null },
    ];
    for (const ev of bad) {
      expect(await create(ev, input)).toEqual({
        ok: false,
        error: { code: 'forbidden_sender', message: expect.any(String) },
      });
    }
    expect(await create(mainFrame, { ...input, write_budget: 'lots' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(await list(mainFrame, {})).toEqual(before);
    const ok = await create(mainFrame, input);
    expect(ok).toMatchObject({ ok: true, value: { title: 'From a frame', state: 'active' } });
    await waitFor(
      () => sent.some((s) => s.channel === eventChannelOf('taskChanged')),
      10_000,
      'taskChanged sent to the window',
    );
  });
});

describe('the app window', () => {
  it('is created with isolation, sandbox, no node integration, and blocks navigation and new windows', async () => {
    const { createMainWindow } = await import('../../src-main/app/window.js');
    createMainWindow('/x/preload.cjs');
    const rec = electron.windows.at(-1);
    if (!rec) throw new Error('no window');
    expect(rec.options.webPreferences).toMatchObject({
      preload: '/x/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(rec.loaded).toBe(`${APP_ORIGIN}/index.html`);
    const prevented = vi.fn();
    rec.handlers['will-navigate']?.({ preventDefault: prevented }, 'https://evil.example/');
    expect(prevented).toHaveBeenCalledTimes(1);
    rec.handlers['will-navigate']?.({ preventDefault: prevented }, `${APP_ORIGIN}/index.html`);
    expect(prevented).toHaveBeenCalledTimes(1);
    expect(rec.openHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(rec.openHandler?.({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
  });
});

describe('the app protocol and the session', () => {
  it("the protocol handler's own Response carries the CSP and the other headers, also on a refusal", async () => {
    const { appProtocolHandler } = await import('../../src-main/app/window.js');
    const { contentSecurityPolicy } = await import('../../src-main/browser-host/csp.js');
    const handle = appProtocolHandler('/opt/bailing/renderer');
    const index = await handle(new Request(`${APP_ORIGIN}/index.html`));
    expect(index.status).toBe(200);
    expect(index.headers.get('content-security-policy')).toBe(contentSecurityPolicy("'none'"));
    expect(index.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(index.headers.get('content-type')).toBe('text/html');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await index.text()).toBe('file file:///opt/bailing/renderer/index.html');
    for (const url of ['app://elsewhere/index.html', `${APP_ORIGIN}/%E0%A4%A`]) {
      const refused = await handle(new Request(url));
      expect(refused.status, url).toBe(404);
      expect(refused.headers.get('content-security-policy'), url).toBe(contentSecurityPolicy("'none'"));
    }
  });

  it('denies every permission request and every permission check', async () => {
    const { serveRenderer } = await import('../../src-main/app/window.js');
    serveRenderer('/opt/bailing/renderer');
    const s = electron.module.session.defaultSession;
    const check = s.setPermissionCheckHandler.mock.calls.at(-1)?.[0] as (...a: unknown[]) => boolean;
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'hid', 'serial'])
      expect(check(null, permission, APP_ORIGIN, {})).toBe(false);
    const request = s.setPermissionRequestHandler.mock.calls.at(-1)?.[0] as (...a: unknown[]) => void;
    const answer = vi.fn();
    request(null, 'media', answer);
    expect(answer).toHaveBeenCalledWith(false);
  });

  it('hands only allow-listed https links to the system browser', async () => {
    const { createMainWindow } = await import('../../src-main/app/window.js');
    createMainWindow('/x/preload.cjs');
    const rec = electron.windows.at(-1);
    const open = electron.module.shell.openExternal;
    open.mockClear();
    for (const url of [
      'https://platform.openai.com/docs',
      'https://openrouter.ai/keys',
      'https://api-docs.deepseek.com/',
    ])
      expect(rec?.openHandler?.({ url })).toEqual({ action: 'deny' });
    expect(open.mock.calls.map((c) => c[0])).toEqual([
      'https://platform.openai.com/docs',
      'https://openrouter.ai/keys',
      'https://api-docs.deepseek.com/',
    ]);
    open.mockClear();
    for (const url of [
      'https://evil.example/',
      'http://platform.openai.com/',
      'file:///etc/passwd',
      'smb://host/share',
      'ms-settings:privacy',
      'https://user:pw@openai.com/',
      'https://openai.com.evil.example/',
      'https://openai.com:8443/',
    ])
      expect(rec?.openHandler?.({ url })).toEqual({ action: 'deny' });
    expect(open).not.toHaveBeenCalled();
  });
});
