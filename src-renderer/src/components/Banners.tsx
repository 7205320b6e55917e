/** Connection banners: the Hub (reconnects by itself) and the app host link (browser mode). */
import React from 'react';
import { useT } from '../i18n/use-t.js';
import { useApp } from '../store/app.js';

export function HubBanner(): React.JSX.Element | null {
  const t = useT();
  const hub = useApp((s) => s.hub);
  const link = useApp((s) => s.hostLink);
  // Without the app host the Hub's state is not known here; the host banner speaks instead.
  if (!hub || hub.state === 'connected' || link !== 'open') return null;
  const problem = hub.problem ?? null;
  const text = problem
    ? t(`hub.problem.${problem}`)
    : hub.state === 'connecting'
      ? t('hub.connecting')
      : t('hub.disconnected');
  return (
    <div
      className={`banner ${hub.state === 'disconnected' ? 'banner-error' : 'banner-info'}`}
      role="alert"
      data-testid="hub-banner"
      data-problem={problem ?? undefined}
    >
      {text}{' '}
      {(problem || hub.mode === 'remote') && (
        <button type="button" onClick={() => useApp.getState().setView('settings')}>
          {t('hub.openSettings')}
        </button>
      )}
    </div>
  );
}

/**
 * The app host link (browser mode). Lost: "reconnecting…", and after several failed attempts the
 * address it keeps trying. Refused: the host is up but this window's access link is from an
 * earlier launch (it will never be accepted again, so nothing retries). No link at all: say which
 * link to open. Neither names the token.
 */
export function HostBanner({ address }: { address?: string }): React.JSX.Element | null {
  const t = useT();
  const link = useApp((s) => s.hostLink);
  if (link === 'open') return null;
  const text =
    link === 'rejected'
      ? t('app.hostRejected')
      : link === 'no_token'
        ? t('app.noToken')
        : link === 'link_used'
          ? t('app.linkUsed')
          : link === 'unreachable'
            ? t('app.hostUnreachable', { address: address ?? window.location.host })
            : t('app.hostDown');
  return (
    <div className="banner banner-error" role="alert" data-testid="host-banner" data-link={link}>
      {text}
    </div>
  );
}
