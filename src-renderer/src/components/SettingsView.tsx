/** Settings: Hub (local or remote URL + token), model (base URL, model, key), keychain and journal store. */
import React, { useEffect, useState } from 'react';
import { call, errorText } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { useSessions } from '../store/sessions.js';
import { useSettings } from '../store/settings.js';
import { DemoDataSettings } from './DemoDataSettings.js';
import { ModelSettingsForm } from './ModelSettingsForm.js';
import { McpServersSettings } from './McpServersSettings.js';

export function SettingsView(): React.JSX.Element {
  const t = useT();
  const settings = useSettings((s) => s.settings);
  const current = useSessions((s) => (s.currentId ? s.conversations[s.currentId]?.storage : null));
  const [mode, setMode] = useState<'local' | 'remote'>('local');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [sessionOnly, setSessionOnly] = useState(false);
  const [msg, setMsg] = useState<string | null>(null);
  const [hubMsg, setHubMsg] = useState<string | null>(null);
  const [hubTest, setHubTest] = useState<{ ok: boolean; text: string } | null>(null);
  const [testing, setTesting] = useState(false);
  useEffect(() => {
    if (!settings) return;
    setMode(settings.hub.mode);
    setUrl(settings.hub.remote_url ?? '');
  }, [settings]);
  if (!settings) return <p className="muted">{t('app.loading')}</p>;
  const keychainDown = settings.keychain.state === 'unavailable';
  const testHub = () => {
    setTesting(true);
    setHubTest(null);
    call('testHubConnection', { url, ...(token ? { token } : {}) })
      .then(
        (r) =>
          setHubTest({
            ok: r.state === 'ok',
            text: `${t(`hubTest.${r.state}`, { count: r.authorizations ?? 0 })} ${t(`hubTest.token.${r.token_used}`)}`,
          }),
        (e: unknown) => setHubTest({ ok: false, text: t('common.error', { message: errorText(e) }) }),
      )
      .finally(() => setTesting(false));
  };
  const done = (p: Promise<void>) => {
    setMsg(null);
    return p.then(
      () => {
        setMsg(t('settings.saved'));
        setToken('');
      },
      (e: unknown) => setMsg(t('common.error', { message: errorText(e) })),
    );
  };

  return (
    <section className="settings" aria-labelledby="settings-title">
      <h2 id="settings-title">{t('settings.title')}</h2>
      <h3>{t('settings.keychain')}</h3>
      {keychainDown ? (
        <div className="state-bad" role="status" data-testid="keychain-status">
          {t('settings.keychainDown', {
            reason: settings.keychain.reason_code
              ? t(`keychainReason.${settings.keychain.reason_code}`)
              : (settings.keychain.reason ?? ''),
          })}
          {settings.keychain.session_only && ` ${t('settings.sessionOnlyActive')}`}
          {settings.keychain.reason_code && settings.keychain.reason && (
            <details>
              <summary>{t('settings.technicalDetail')}</summary>
              <code lang="en">{settings.keychain.reason}</code>
            </details>
          )}
        </div>
      ) : (
        <p className="state-ok">{t('settings.keychainOk')}</p>
      )}
      {keychainDown && (
        <label>
          <input type="checkbox" checked={sessionOnly} onChange={(e) => setSessionOnly(e.target.checked)} />
          {t('settings.sessionOnly')}
        </label>
      )}

      <form
        className="card"
        aria-label={t('settings.hub')}
        onSubmit={(e) => {
          e.preventDefault();
          setHubMsg(null);
          void useSettings
            .getState()
            .saveHub(
              mode === 'local'
                ? { mode }
                : {
                    mode,
                    url,
                    ...(token ? { client_token: token } : {}),
                    ...(sessionOnly ? { session_only: true } : {}),
                  },
            )
            .then(
              () => {
                setHubMsg(t('settings.saved'));
                setToken('');
              },
              (err: unknown) => setHubMsg(t('common.error', { message: errorText(err) })),
            );
        }}
      >
        <fieldset>
          <legend>{t('settings.hub')}</legend>
          <label>
            <input
              type="radio"
              name="hub-mode"
              checked={mode === 'local'}
              onChange={() => setMode('local')}
            />
            {t('settings.hubLocal')}
          </label>
          <label>
            <input
              type="radio"
              name="hub-mode"
              checked={mode === 'remote'}
              onChange={() => setMode('remote')}
            />
            {t('settings.hubRemote')}
          </label>
          {mode === 'remote' && (
            <>
              <label>
                {t('settings.hubUrl')}
                <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
              </label>
              <label>
                {t('settings.hubToken')}
                <input
                  type="password"
                  autoComplete="off"
                  value={token}
                  onChange={(e) => setToken(e.target.value)}
                />
              </label>
              {settings.hub.token_configured && <p className="muted">{t('settings.tokenConfigured')}</p>}
              {settings.hub.token_cleared === 'origin_changed' && !settings.hub.token_configured && (
                <p className="state-bad" role="status" data-testid="token-cleared">
                  {t('settings.tokenCleared')}
                </p>
              )}
            </>
          )}
        </fieldset>
        {settings.hub.restart_required && <p role="status">{t('settings.restart')}</p>}
        <div className="row">
          <button type="submit">{t('settings.saveHub')}</button>
          {mode === 'remote' && (
            <button type="button" onClick={testHub} disabled={testing || url.trim() === ''}>
              {t('settings.testConnection')}
            </button>
          )}
          {hubMsg && (
            <span role="status" data-testid="hub-save-status">
              {hubMsg}
            </span>
          )}
        </div>
        {hubTest && (
          <p role="status" className={hubTest.ok ? 'state-ok' : 'state-bad'} data-testid="hub-test-result">
            {hubTest.text}
          </p>
        )}
      </form>

      {/* The model form's save answer is shown in its button row, next to the button. */}
      <ModelSettingsForm
        settings={settings}
        sessionOnly={sessionOnly}
        saveStatus={msg}
        onDone={(p, clearSecrets) => done(p.then(clearSecrets))}
      />

      {/* MCP servers are managed on the embedded local Hub (its operator holds the admin credential). */}
      {settings.hub.mode === 'local' && !settings.hub.restart_required && <McpServersSettings />}

      <h3>{t('settings.journal')}</h3>
      {current ? (
        <p className={current.journal.state === 'storage_error' ? 'state-bad' : 'state-ok'}>
          {t('storage.journal')}: {t(`journalState.${current.journal.state}`)} · {t('storage.archive')}:{' '}
          {t(`archiveState.${current.archive.state}`)}
        </p>
      ) : (
        <p className="muted">—</p>
      )}
      <p className="muted">{t('settings.dataDir', { dir: settings.data_dir })}</p>
      <DemoDataSettings />
    </section>
  );
}
