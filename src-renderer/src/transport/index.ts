/**
 * Picks the transport: the preload's `window.bailing` inside Electron, otherwise the browser
 * host's WebSocket (token from the URL fragment, remembered for reloads of this tab only).
 */
import type { BailingApi } from '../../../src-shared/ipc/api.js';
import { createWsTransport } from './ws-client.js';

declare global {
  interface Window {
    bailing?: BailingApi;
  }
}

export interface Transport {
  api: BailingApi;
  kind: 'electron' | 'browser';
  /** Host link status (the Electron bridge is always up). */
  onStatus(listener: (s: 'open' | 'closed') => void): () => void;
}

const TOKEN_KEY = 'bailing.launchToken';

export function readLaunchToken(loc: Location, storage: Storage | null): string | null {
  const m = /(?:^#|&)token=([A-Za-z0-9_-]{16,256})/.exec(loc.hash);
  if (m?.[1]) {
    storage?.setItem(TOKEN_KEY, m[1]);
    return m[1];
  }
  return storage?.getItem(TOKEN_KEY) ?? null;
}

export function pickTransport(win: Window = window): Transport {
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
  const url = `ws://${win.location.host}/ws?token=${encodeURIComponent(token)}`;
  const t = createWsTransport({ url });
  return { api: t.api, kind: 'browser', onStatus: t.onStatus };
}
