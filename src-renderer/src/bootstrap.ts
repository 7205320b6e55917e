/** First load: app info, then every view's data once; afterwards only events update the stores. */
import type { BailingApi } from '../../src-shared/ipc/api.js';
import { call, setApi } from './api-client.js';
import { useApp } from './store/app.js';
import { useApprovals } from './store/approvals.js';
import { useSessions } from './store/sessions.js';
import { useSettings } from './store/settings.js';
import { useTasks } from './store/tasks.js';
import { useUnresolved } from './store/unresolved.js';
import { wireEvents } from './store/wire.js';

const quiet = (p: Promise<unknown>) => {
  p.catch(() => {});
};

export async function bootstrap(api: BailingApi): Promise<() => void> {
  setApi(api);
  const unwire = wireEvents(api);
  await loadAll();
  return unwire;
}

/** Reads every view once (at start, and again after the host link comes back). */
export async function loadAll(): Promise<void> {
  const info = await call('getAppInfo', {});
  useApp.getState().setInfo(info);
  useSettings.setState({ settings: info.settings });
  const prefs = info.settings.preferences;
  if (prefs) useApp.setState({ lang: prefs.lang, theme: prefs.theme });
  await useSessions.getState().load();
  const first = info.default_session_id ?? useSessions.getState().sessions[0]?.session_id ?? null;
  if (first) quiet(useSessions.getState().open(first));
  if (info.hub.state === 'connected') {
    quiet(useTasks.getState().load());
    quiet(useApprovals.getState().load());
  }
  quiet(useUnresolved.getState().load());
}
