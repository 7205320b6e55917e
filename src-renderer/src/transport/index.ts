/**
 * Picks the transport: the preload's `window.bailing` inside Electron, otherwise the browser
 * host's WebSocket (token from the URL fragment, remembered for reloads of this tab only).
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

const TOKEN_KEY = 'bailing.launchToken';
const TOKEN_IN_HASH = /(?:^#|&)token=([A-Za-z0-9_-]{16,256})/;

export function readLaunchToken(loc: Location, storage: Storage | null): string | null {
  const m = TOKEN_IN_HASH.exec(loc.hash);
  if (m?.[1]) {
    storage?.setItem(TOKEN_KEY, m[1]);
    return m[1];
  }
  return storage?.getItem(TOKEN_KEY) ?? null;
}

export interface PickTransportDeps {
  createTransport?: (opts: WsTransportOptions) => WsTransport;
  /** Reloads the page (after a new access link was opened in this tab). */
  reload?: () => void;
}

export function pickTransport(win: Window = window, deps: PickTransportDeps = {}): Transport {
  if (win.bailing) {
    return { api: win.bailing, kind: 'electron', onStatus: () => () => {} };
  }
  let storage: Storage | null = null;
  try {
    storage = win.sessionStorage;
  } catch {
    storage = null;
  }
  const token = readLaunchToken(win.location, storage) ?? '';
  if (win.location.hash) win.history.replaceState(null, '', win.location.pathname + win.location.search);
  // Opening a new launch's link in this tab changes only the fragment when the port is the same,
  // and a fragment change does not load the page: take the new token and start again with it.
  win.addEventListener('hashchange', () => {
    const m = TOKEN_IN_HASH.exec(win.location.hash);
    if (!m?.[1]) return;
    readLaunchToken(win.location, storage);
    if (m[1] === token) {
      win.history.replaceState(null, '', win.location.pathname + win.location.search);
      return;
    }
    (deps.reload ?? (() => win.location.reload()))();
  });
  const url = `ws://${win.location.host}/ws?token=${encodeURIComponent(token)}`;
  const t = (deps.createTransport ?? createWsTransport)({ url });
  return { api: t.api, kind: 'browser', onStatus: t.onStatus };
}
