/**
 * The model part of Settings: a provider preset (filling the base URL and the provider's quirks),
 * base URL, model (typed, or picked from the list Test connection brought back), API key, the
 * streaming and reasoning choices, and Test connection with its answer worded next to the button.
 * A key is never shown; saving another origin without a key clears the stored one (the form then
 * says to enter it again).
 */
import React, { useEffect, useState } from 'react';
import type { ConnectionTestView, SettingsView } from '../../../src-shared/ipc/views.js';
import {
  MODEL_PROVIDER_IDS,
  MODEL_PROVIDER_PRESETS,
  REASONING_SEND_BACK,
  type ModelProviderId,
  type ReasoningSendBack,
} from '../../../src-shared/model-providers.js';
import { call } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { connectionWords } from '../logic/connection-test-text.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { useSettings } from '../store/settings.js';

export function ModelSettingsForm(props: {
  settings: SettingsView;
  sessionOnly: boolean;
  /** The answer to the last save or key removal, shown beside the buttons. */
  saveStatus?: string | null;
  onDone: (p: Promise<void>, clearSecrets: () => void) => void;
}): React.JSX.Element {
  const t = useT();
  const { settings } = props;
  const [provider, setProvider] = useState<ModelProviderId>(settings.model.provider);
  const [baseUrl, setBaseUrl] = useState(settings.model.base_url ?? '');
  const [model, setModel] = useState(settings.model.model ?? '');
  const [key, setKey] = useState('');
  const [stream, setStream] = useState(settings.model.stream);
  const [sendReasoning, setSendReasoning] = useState<ReasoningSendBack>(settings.model.send_reasoning);
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<{ view: ConnectionTestView; model: string } | null>(null);
  const [testError, setTestError] = useState<ShownError | null>(null);
  useEffect(() => {
    setProvider(settings.model.provider);
    setBaseUrl(settings.model.base_url ?? '');
    setModel(settings.model.model ?? '');
    setStream(settings.model.stream);
    setSendReasoning(settings.model.send_reasoning);
  }, [settings]);

  const preset = MODEL_PROVIDER_PRESETS[provider];
  const choosePreset = (id: ModelProviderId) => {
    const p = MODEL_PROVIDER_PRESETS[id];
    setProvider(id);
    if (p.baseUrl) setBaseUrl(p.baseUrl);
    setStream(p.quirks.stream);
    setSendReasoning(p.quirks.reasoningSendBack);
    setResult(null);
  };
  const test = () => {
    setTesting(true);
    setTestError(null);
    setResult(null);
    const asked = model.trim();
    call('testModelConnection', {
      provider,
      base_url: baseUrl,
      model: asked,
      ...(key ? { api_key: key } : {}),
    })
      .then((view) => setResult({ view, model: asked }))
      .catch((err: unknown) => setTestError(caught(err)))
      .finally(() => setTesting(false));
  };
  const words = result ? connectionWords(result.view, result.model, t) : null;
  const listed = result?.view.models.state === 'listed' ? result.view.models.ids : [];

  return (
    <form
      className="card"
      aria-label={t('settings.model')}
      onSubmit={(e) => {
        e.preventDefault();
        props.onDone(
          useSettings.getState().saveModel({
            provider,
            base_url: baseUrl,
            model,
            stream: stream === preset.quirks.stream ? null : stream,
            send_reasoning: sendReasoning === preset.quirks.reasoningSendBack ? null : sendReasoning,
            ...(key ? { api_key: key } : {}),
            ...(props.sessionOnly ? { session_only: true } : {}),
          }),
          () => setKey(''),
        );
      }}
    >
      <fieldset>
        <legend>{t('settings.model')}</legend>
        <label>
          {t('settings.provider')}
          <select value={provider} onChange={(e) => choosePreset(e.target.value as ModelProviderId)}>
            {MODEL_PROVIDER_IDS.map((id) => (
              <option key={id} value={id}>
                {id === 'custom' ? t('settings.providerCustom') : MODEL_PROVIDER_PRESETS[id].label}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('settings.baseUrl')}
          <input type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} required />
        </label>
        <label>
          {t('settings.modelName')}
          <input value={model} onChange={(e) => setModel(e.target.value)} required />
        </label>
        {listed.length > 0 && (
          <label>
            {t('settings.modelPicker')}
            <select value={listed.includes(model) ? model : ''} onChange={(e) => setModel(e.target.value)}>
              <option value="">{t('settings.modelPickerNone')}</option>
              {listed.map((id) => (
                <option key={id} value={id}>
                  {id}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          {t('settings.apiKey')}
          <input type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
        </label>
        {settings.model.key_cleared === 'origin_changed' && !settings.model.key_configured ? (
          <p className="state-bad" role="status" data-testid="key-cleared">
            {t('settings.keyCleared')}
          </p>
        ) : (
          <p className="muted">
            {settings.model.key_configured
              ? t('settings.keyConfigured')
              : preset.needsKey
                ? t('settings.keyMissing')
                : t('settings.keyNotNeeded')}
          </p>
        )}
        <label>
          <input type="checkbox" checked={stream} onChange={(e) => setStream(e.target.checked)} />
          {t('settings.stream')}
        </label>
        <label>
          {t('settings.sendReasoning')}
          <select
            value={sendReasoning}
            onChange={(e) => setSendReasoning(e.target.value as ReasoningSendBack)}
          >
            {REASONING_SEND_BACK.map((v) => (
              <option key={v} value={v}>
                {t(`settings.sendReasoning.${v}`)}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <div className="row">
        <button type="submit">{t('settings.saveModel')}</button>
        <button type="button" onClick={test} disabled={testing || baseUrl.trim() === ''}>
          {t('settings.testConnection')}
        </button>
        {settings.model.key_configured && (
          <button
            type="button"
            onClick={() => props.onDone(useSettings.getState().clearKey(), () => setKey(''))}
          >
            {t('settings.clearKey')}
          </button>
        )}
        {props.saveStatus && (
          <span role="status" data-testid="model-save-status">
            {props.saveStatus}
          </span>
        )}
        <p
          role="status"
          aria-live="polite"
          data-testid="connection-result"
          className={words ? (words.ok ? 'state-ok' : 'state-bad') : 'muted'}
        >
          {testing && t('connTest.running')}
          {words?.lines.join(' ')}
          {words?.detail && (
            <span className="feedback-detail">
              {t('feedback.original')}
              <span lang="en">{words.detail}</span>
            </span>
          )}
          {testError && t('common.error', { message: shownErrorText(testError, t) })}
        </p>
      </div>
    </form>
  );
}
