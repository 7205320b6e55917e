/**
 * Connects the store to a transport: the host link state goes to the store (the host banner
 * reads it), every view is read once at start and again whenever the link comes back, and a
 * failure that the host banner already explains (refused or missing access link) is not shown a
 * second time as a generic error.
 */
import { errorText, setApi } from './api-client.js';
import { loadAll } from './bootstrap.js';
import { useApp } from './store/app.js';
import { wireEvents } from './store/wire.js';
import type { Transport } from './transport/index.js';

const explainedByBanner = (): boolean => {
  const link = useApp.getState().hostLink;
  return link === 'rejected' || link === 'no_token' || link === 'link_used';
};

export async function startRenderer(transport: Pick<Transport, 'api' | 'onStatus'>): Promise<() => void> {
  const offStatus = transport.onStatus((s) => {
    const before = useApp.getState().hostLink;
    useApp.getState().setHostLink(s);
    // The host came back after a drop: read everything once again, and clear an error that only
    // said the host was not connected.
    if (s === 'open' && before !== 'open')
      loadAll().then(
        () => useApp.getState().setError(null),
        (e: unknown) => useApp.getState().setError(errorText(e)),
      );
  });
  setApi(transport.api);
  const unwire = wireEvents(transport.api);
  try {
    await loadAll();
  } catch (e: unknown) {
    if (!explainedByBanner()) useApp.getState().setError(errorText(e));
  }
  return () => {
    offStatus();
    unwire();
  };
}
