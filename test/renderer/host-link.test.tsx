// The window in browser mode when the app host goes away or restarts, against a real desk and real
// browser hosts on one 127.0.0.1 port: a host that is gone shows "reconnecting…" and then the
// address it keeps trying; a host restarted (a new launch) makes the window say, in the chosen
// language, that it belongs to an earlier launch (no generic error, no credential, no retries);
// a page opened without its link says which link to open; a link opened a second time says to use
// the window already open; opening a new link in the same tab reloads it.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import React from 'react';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserHost, type BrowserHost } from '../../src-main/browser-host/index.js';
import { App } from '../../src-renderer/src/components/App.js';
import { startRenderer } from '../../src-renderer/src/host-link.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { pickTransport } from '../../src-renderer/src/transport/index.js';
import { createWsTransport, type WsTransport } from '../../src-renderer/src/transport/ws-client.js';
import { startTestDesk, type TestDesk } from '../app/support.js';

let desk: TestDesk;
const hosts: BrowserHost[] = [];
const stops: Array<() => void> = [];

const launch = async (opts: { port?: number; token?: string; sessionSecret?: string } = {}) => {
  const h = await startBrowserHost({
    router: desk.root.router,
    bus: desk.root.bus,
    staticDir: desk.staticDir,
    ...opts,
  });
  hosts.push(h);
  return h;
};
const stopHost = async (h: BrowserHost) => {
  await h.close();
  hosts.splice(hosts.indexOf(h), 1);
};

/** A socket class that sends the host's Origin and, like the browser, the session cookie it holds. */
function socketFor(host: BrowserHost, cookie: string | null): never {
  const origin = host.origin;
  return class OriginWebSocket extends WebSocket {
    constructor(url: string) {
      super(url, { headers: { origin, ...(cookie ? { cookie } : {}) } });
    }
  } as never;
}

function transportTo(host: BrowserHost, cookie: string | null = host.sessionCookie): WsTransport {
  const t = createWsTransport({
    url: `ws://127.0.0.1:${host.port}/ws`,
    WebSocketImpl: socketFor(host, cookie),
    reconnectDelayMs: 20,
    maxReconnectDelayMs: 60,
    unreachableAfter: 3,
    openWaitMs: 5_000,
  });
  stops.push(() => t.close());
  return t;
}

async function boot(t: WsTransport): Promise<void> {
  stops.push(await startRenderer(t));
}

const banner = () => screen.queryByTestId('host-banner');

beforeAll(async () => {
  desk = await startTestDesk();
  await waitFor(() => expect(desk.root.gateway.connection().state).toBe('connected'), { timeout: 10_000 });
}, 120_000);
afterEach(async () => {
  cleanup();
  for (const s of stops.splice(0)) s();
  for (const h of hosts.splice(0)) await h.close();
  useApp.setState({
    info: null,
    hub: null,
    error: null,
    hostLink: 'open',
    lang: 'en',
    view: 'conversations',
  });
});
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

describe('browser mode: the app host link', () => {
  it('an open window whose host restarted with a new token says it belongs to an earlier launch, in en and zh, and stops', async () => {
    const first = await launch();
    await boot(transportTo(first));
    const { container } = render(<App />);
    await waitFor(() => expect(container.querySelector('.app')?.getAttribute('data-ready')).toBe('true'), {
      timeout: 10_000,
    });
    expect(banner()).toBeNull();

    await stopHost(first);
    await waitFor(() => expect(banner()?.textContent).toBe(en['app.hostDown']), { timeout: 10_000 });

    const second = await launch({ port: first.port });
    await waitFor(() => expect(banner()?.getAttribute('data-link')).toBe('rejected'), { timeout: 10_000 });
    expect(banner()?.textContent).toBe(en['app.hostRejected']);
    expect(banner()?.textContent).toContain('earlier launch');
    for (const h of [first, second]) {
      expect(container.textContent).not.toContain(h.token);
      expect(container.textContent).not.toContain(h.sessionSecret);
    }
    // The Hub's state is not known without the host: no stale "Hub connected".
    expect(screen.getByTestId('hub-state').textContent).toBe(en['hub.unknown']);
    // The window's controls are off: nothing can be sent through a refused link.
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true);

    act(() => useApp.getState().setLang('zh'));
    expect(banner()?.textContent).toBe(zh['app.hostRejected']);
    expect(banner()?.textContent).toContain('属于应用的上一次启动');
    expect(document.title).toBe('百灵工作台');
    expect(document.documentElement.lang).toBe('zh-CN');

    // One knock on the new host, then no more, however long the window stays open.
    await new Promise((r) => setTimeout(r, 500));
    expect(second.rejectedConnections()).toBe(1);
  });

  it('a reloaded window with an earlier launch session: the explanation only, no "Starting…", no generic error', async () => {
    const earlier = await launch();
    const cookie = earlier.sessionCookie;
    const port = earlier.port;
    await stopHost(earlier);
    const current = await launch({ port });
    await boot(transportTo(current, cookie));
    const { container } = render(<App />);
    expect(banner()?.textContent).toBe(en['app.hostRejected']);
    expect(screen.queryByText(en['app.loading'])).toBeNull();
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([en['app.hostRejected']]);
    expect(container.querySelector('.app')?.getAttribute('data-ready')).toBe('false');
    expect(current.rejectedConnections()).toBe(1);
  });

  it('a host that is gone: reconnecting, then the address it keeps trying; the same launch back: the banner goes', async () => {
    const host = await launch();
    await boot(transportTo(host));
    render(<App />);
    await waitFor(() => expect(useApp.getState().info).not.toBeNull(), { timeout: 10_000 });
    const { port, token, sessionSecret } = host;
    await stopHost(host);
    await waitFor(() => expect(banner()?.getAttribute('data-link')).toBe('unreachable'), { timeout: 10_000 });
    expect(banner()?.textContent).toBe(en['app.hostUnreachable'].replace('{address}', window.location.host));
    await launch({ port, token, sessionSecret });
    await waitFor(() => expect(banner()).toBeNull(), { timeout: 10_000 });
    expect(screen.queryByText(/^Error/)).toBeNull();
  });
});

describe('browser mode: the access link of this tab', () => {
  /** The page's own fetch, aimed at the host as the browser would (same origin). */
  const pageFetch = (host: BrowserHost): typeof fetch =>
    ((url: string, init: RequestInit) =>
      fetch(`${host.origin}${url}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), origin: host.origin },
      })) as typeof fetch;

  it('a page without its link says which link to open; a new link opened in the tab reloads it', async () => {
    const host = await launch();
    sessionStorage.clear();
    window.history.replaceState(null, '', '/');
    let reloads = 0;
    const transport = pickTransport(window, {
      reload: () => (reloads += 1),
      fetch: pageFetch(host),
      createTransport: (opts) =>
        createWsTransport({
          ...opts,
          url: `ws://127.0.0.1:${host.port}/ws`,
          WebSocketImpl: socketFor(host, null),
        }),
    });
    await boot(transport as never);
    render(<App />);
    await waitFor(() => expect(banner()?.getAttribute('data-link')).toBe('no_token'), { timeout: 10_000 });
    expect(banner()?.textContent).toBe(en['app.noToken']);
    expect(screen.queryByText(en['app.loading'])).toBeNull();

    const fresh = 'N'.repeat(43);
    window.location.hash = `#token=${fresh}`;
    await waitFor(() => expect(reloads).toBe(1));
    // nothing of the link is kept by the page: the session is the host's HttpOnly cookie
    expect(sessionStorage.length).toBe(0);
  });

  it('a link opened a second time (another tab, after the first exchanged it) says to use the open window or restart', async () => {
    const host = await launch();
    // the first tab spent the code
    const first = await pageFetch(host)('/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: host.token }),
    });
    expect(first.status).toBe(200);
    // the second tab opens the same link
    window.history.replaceState(null, '', `/#token=${host.token}`);
    let knocked = 0;
    const transport = pickTransport(window, {
      fetch: pageFetch(host),
      createTransport: (opts) =>
        createWsTransport({
          ...opts,
          url: `ws://127.0.0.1:${host.port}/ws`,
          WebSocketImpl: class extends (socketFor(host, null) as unknown as typeof WebSocket) {
            constructor(url: string) {
              knocked += 1;
              super(url);
            }
          } as never,
        }),
    });
    expect(window.location.hash).toBe('');
    await boot(transport as never);
    const { container } = render(<App />);
    await waitFor(() => expect(banner()?.getAttribute('data-link')).toBe('link_used'), { timeout: 10_000 });
    expect(banner()?.textContent).toBe(en['app.linkUsed']);
    expect(banner()?.textContent).toContain('already open');
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([en['app.linkUsed']]);
    expect(container.textContent).not.toContain(host.token);
    expect(knocked).toBe(0);
    act(() => useApp.getState().setLang('zh'));
    expect(banner()?.textContent).toBe(zh['app.linkUsed']);
  });
});
