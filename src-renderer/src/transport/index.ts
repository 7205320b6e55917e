/**
 * Picks the transport: the preload's `window.bailing` inside Electron, otherwise the browser
 * host's WebSocket, after spending the access link's one-time code for the session cookie.
 */
import type { BailingApi } from '../../../src-shared/ipc/api.js';
import { createWsTransport, type LinkState, type WsTransport, type WsTransportOptions } from './ws-client.js';

declare global {
  interface Window {
    bailing?: BailingApi;
  }
}

export type { LinkState };

export interface Transport {
  api: BailingApi;
  kind: 'electron' | 'browser';
  /** Host link status (the Electron bridge is always up). */
  onStatus(listener: (s: LinkState) => void): () => void;
}

const CODE_IN_HASH = /(?:^#|&)token=([A-Za-z0-9_-]{16,256})/;

/** The one-time code of the access link this page was opened with, if any. */
export function readLaunchCode(loc: Pick<Location, 'hash'>): string | null {
  return CODE_IN_HASH.exec(loc.hash)?.[1] ?? null;
}

/**
 * Spends the link's code for this launch's session cookie (HttpOnly: the page never sees it).
 * `link_used`: another tab or window already opened this link. Anything else connects and lets the
 * host say what it thinks of this page (a link from an earlier launch, no session at all).
 */
export async function exchangeLaunchCode(
  code: string,
  fetchImpl: typeof fetch = fetch,
): Promise<'connect' | 'link_used'> {
  try {
    const r = await fetchImpl('/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code }),
      credentials: 'same-origin',
    });
    return r.status === 410 ? 'link_used' : 'connect';
  } catch {
    return 'connect';
  }
}

export interface PickTransportDeps {
  createTransport?: (opts: WsTransportOptions) => WsTransport;
  /** Reloads the page (after a new access link was opened in this tab). */
  reload?: () => void;
  fetch?: typeof fetch;
}

export function pickTransport(win: Window = window, deps: PickTransportDeps = {}): Transport {
  if (win.bailing) {
    return { api: win.bailing, kind: 'electron', onStatus: () => () => {} };
  }
  // The code is spent at once and leaves the address bar; a reload of this tab then goes by the
  // session cookie the exchange set.
  const code = readLaunchCode(win.location);
  if (win.location.hash) win.history.replaceState(null, '', win.location.pathname + win.location.search);
  // Opening a new launch's link in this tab changes only the fragment when the port is the same,
  // and a fragment change does not load the page: start again with the new link.
  win.addEventListener('hashchange', () => {
    if (readLaunchCode(win.location) === null) return;
    (deps.reload ?? (() => win.location.reload()))();
  });
  const url = `ws://${win.location.host}/ws`;
  const t = (deps.createTransport ?? createWsTransport)({
    url,
    ...(code ? { opening: exchangeLaunchCode(code, deps.fetch ?? win.fetch.bind(win)) } : {}),
  });
  return { api: t.api, kind: 'browser', onStatus: t.onStatus };
}
