/** Connection banners: the Hub (reconnects by itself) and the app host link (browser mode). */
import React from 'react';
import { useT } from '../i18n/use-t.js';
import { useApp } from '../store/app.js';

export function HubBanner(): React.JSX.Element | null {
  const t = useT();
  const hub = useApp((s) => s.hub);
  if (!hub || hub.state === 'connected') return null;
  const text = hub.state === 'connecting' ? t('hub.connecting') : t('hub.disconnected');
  return (
    <div className={`banner ${hub.state === 'disconnected' ? 'banner-error' : 'banner-info'}`} role="alert" data-testid="hub-banner">
      {text}
    </div>
  );
}

export function HostBanner(): React.JSX.Element | null {
  const t = useT();
  const link = useApp((s) => s.hostLink);
  if (link === 'open') return null;
  return (
    <div className="banner banner-error" role="alert" data-testid="host-banner">
      {t('app.hostDown')}
    </div>
  );
}
