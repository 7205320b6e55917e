/** The window: navigation, connection banners, and the current view. */
import React, { useEffect } from 'react';
import { useT } from '../i18n/use-t.js';
import { useApp, type View } from '../store/app.js';
import { useApprovals } from '../store/approvals.js';
import { choosePreferences } from '../store/preferences.js';
import { useUnresolved } from '../store/unresolved.js';
import { ApprovalsView } from './ApprovalsView.js';
import { HostBanner, HubBanner } from './Banners.js';
import { ConversationView } from './ConversationView.js';
import { IdlePanel } from './IdlePanel.js';
import { SessionList } from './SessionList.js';
import { SettingsView } from './SettingsView.js';
import { TaskPanel } from './TaskPanel.js';

const VIEWS: View[] = ['conversations', 'tasks', 'idle', 'approvals', 'settings'];

export function App(): React.JSX.Element {
  const t = useT();
  const view = useApp((s) => s.view);
  const theme = useApp((s) => s.theme);
  const lang = useApp((s) => s.lang);
  const info = useApp((s) => s.info);
  const error = useApp((s) => s.error);
  const hub = useApp((s) => s.hub);
  const hostLink = useApp((s) => s.hostLink);
  // A refused or missing access link: the host banner says what to do; nothing is starting.
  const linkDead = hostLink === 'rejected' || hostLink === 'no_token' || hostLink === 'link_used';
  const idleCount = useUnresolved((s) => s.items.length);
  const pending = useApprovals((s) => s.approvals.filter((a) => a.state === 'pending').length);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = t('app.title');
  }, [theme, lang, t]);
  const labels: Record<View, string> = {
    conversations: t('nav.conversations'),
    tasks: t('nav.tasks'),
    idle: `${t('nav.idle')}${idleCount > 0 ? ` (${idleCount})` : ''}`,
    approvals: `${t('nav.approvals')}${pending > 0 ? ` (${pending})` : ''}`,
    settings: t('nav.settings'),
  };
  return (
    <div className={`app view-${view}`} data-ready={info ? 'true' : 'false'}>
      <header className="topbar">
        <h1>{t('app.title')}</h1>
        <nav aria-label={t('nav.main')}>
          {VIEWS.map((v) => (
            <button
              key={v}
              type="button"
              aria-current={view === v ? 'page' : undefined}
              className={view === v ? 'selected' : ''}
              onClick={() => useApp.getState().setView(v)}
            >
              {labels[v]}
            </button>
          ))}
        </nav>
        <span
          className={`hub-pill ${hub?.state === 'connected' && hostLink === 'open' ? 'state-ok' : 'state-bad'}`}
          data-testid="hub-state"
        >
          {/* Without the app host this window cannot know the Hub's state: it does not show a stale one. */}
          {hostLink !== 'open'
            ? t('hub.unknown')
            : hub
              ? `${hub.state === 'connected' ? t('hub.connected') : hub.state === 'connecting' ? t('hub.connecting') : '⚠'} · ${t(hub.mode === 'local' ? 'hub.local' : 'hub.remote')}`
              : '…'}
        </span>
        <label>
          <span className="visually-hidden">{t('lang.label')}</span>
          <select
            value={lang}
            onChange={(e) => choosePreferences({ lang: e.target.value === 'zh' ? 'zh' : 'en' })}
            aria-label={t('lang.label')}
          >
            <option value="en">English</option>
            <option value="zh">简体中文</option>
          </select>
        </label>
        <button
          type="button"
          onClick={() => choosePreferences({ theme: theme === 'light' ? 'dark' : 'light' })}
        >
          {t('theme.toggle', { mode: t(theme === 'light' ? 'theme.dark' : 'theme.light') })}
        </button>
      </header>
      <HostBanner />
      <HubBanner />
      <main>
        {!info && !error && !linkDead && <p role="status">{t('app.loading')}</p>}
        {error && <p role="alert">{t('common.error', { message: error })}</p>}
        {info && view === 'conversations' && (
          <div className="split">
            <SessionList />
            <ConversationView />
          </div>
        )}
        {info && view === 'tasks' && <TaskPanel />}
        {info && view === 'idle' && <IdlePanel />}
        {info && view === 'approvals' && <ApprovalsView />}
        {info && view === 'settings' && <SettingsView />}
      </main>
    </div>
  );
}
