/** App-wide state: info from main, the Hub connection, the host link, language, theme, view. */
import { create } from 'zustand';
import type { AppInfo, HubConnection } from '../../../src-shared/ipc/views.js';
import type { Lang } from '../i18n/index.js';
import type { LinkState } from '../transport/ws-client.js';

export type View = 'conversations' | 'tasks' | 'idle' | 'approvals' | 'settings';
export type Theme = 'light' | 'dark';

export interface AppState {
  info: AppInfo | null;
  hub: HubConnection | null;
  /** The link to the app host (browser mode; always open in Electron). */
  hostLink: LinkState;
  lang: Lang;
  theme: Theme;
  view: View;
  error: string | null;
  setInfo(info: AppInfo): void;
  setHub(hub: HubConnection): void;
  setHostLink(s: LinkState): void;
  setLang(lang: Lang): void;
  setTheme(theme: Theme): void;
  setView(view: View): void;
  setError(error: string | null): void;
}

export const useApp = create<AppState>((set) => ({
  info: null,
  hub: null,
  hostLink: 'open',
  lang: 'en',
  theme: 'light',
  view: 'conversations',
  error: null,
  setInfo: (info) => set({ info, hub: info.hub }),
  setHub: (hub) => set({ hub }),
  setHostLink: (hostLink) => set({ hostLink }),
  setLang: (lang) => set({ lang }),
  setTheme: (theme) => set({ theme }),
  setView: (view) => set({ view }),
  setError: (error) => set({ error }),
}));

/** True when actions that need the Hub may be offered. */
export const hubUsable = (s: Pick<AppState, 'hub' | 'hostLink'>): boolean =>
  s.hostLink === 'open' && s.hub?.state === 'connected';
