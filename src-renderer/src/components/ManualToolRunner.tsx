/**
 * Without a model the operator can still run any discovered tool by hand, from a form generated
 * from its JSON Schema, under the conversation's task, permits and journal.
 */
import React, { useMemo, useState } from 'react';
import type { ToolView } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { buildArguments, fieldsOf } from '../logic/schema-form.js';
import { hubUsable, useApp } from '../store/app.js';
import { caught, message, shownErrorText, type ShownError } from '../logic/shown-error.js';

export function ManualToolRunner({ sessionId }: { sessionId: string }): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const [query, setQuery] = useState('');
  const [tools, setTools] = useState<ToolView[] | null>(null);
  const [selected, setSelected] = useState<string>('');
  const [raw, setRaw] = useState<Record<string, string | boolean>>({});
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);
  const tool = tools?.find((x) => x.function_name === selected) ?? null;
  const fields = useMemo(() => (tool ? fieldsOf(tool.input_schema) : []), [tool]);

  const search = (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    call('searchTools', { session_id: sessionId, query })
      .then(
        (r) => {
          setTools(r.tools);
          setSelected(r.tools[0]?.function_name ?? '');
          setRaw({});
        },
        (err: unknown) => setError(caught(err)),
      )
      .finally(() => setBusy(false));
  };
  const run = (e: React.FormEvent) => {
    e.preventDefault();
    if (!tool) return;
    const built = buildArguments(fields, raw);
    if (!built.ok) {
      setError(
        built.problem === 'invalid_json'
          ? message('manual.invalidJson', { field: built.field })
          : message('manual.required', { field: built.field }),
      );
      return;
    }
    setError(null);
    setBusy(true);
    call('runToolManually', {
      session_id: sessionId,
      function_name: tool.function_name,
      arguments: built.args,
    })
      // The card reaches the conversation the way every card does: as a conversationItem event.
      .then(
        () => undefined,
        (err: unknown) => setError(caught(err)),
      )
      .finally(() => setBusy(false));
  };

  return (
    <section className="manual" aria-labelledby="manual-title">
      <h3 id="manual-title">{t('manual.title')}</h3>
      <form onSubmit={search} className="row">
        <label>
          {t('manual.query')}
          <input value={query} onChange={(e) => setQuery(e.target.value)} maxLength={500} />
        </label>
        <button type="submit" disabled={busy || !usable}>
          {t('manual.search')}
        </button>
      </form>
      {tools && tools.length === 0 && <p>{t('manual.noTools')}</p>}
      {tools && tools.length > 0 && (
        <form onSubmit={run}>
          <label>
            {t('manual.tool')}
            <select
              value={selected}
              onChange={(e) => {
                setSelected(e.target.value);
                setRaw({});
              }}
            >
              {tools.map((x) => (
                <option key={x.function_name} value={x.function_name}>
                  {x.tool} — {x.system_name} ({x.account}) · {t(`effect.${x.effect}`)}
                </option>
              ))}
            </select>
          </label>
          {tool && <p className="muted">{tool.description}</p>}
          {fields.map((f) => (
            <div key={f.name} className="field">
              {f.kind === 'boolean' ? (
                <label>
                  <input
                    type="checkbox"
                    checked={raw[f.name] === true}
                    onChange={(e) => setRaw({ ...raw, [f.name]: e.target.checked })}
                  />
                  {f.name}
                </label>
              ) : f.kind === 'enum' ? (
                <label>
                  {f.name}
                  {f.required && ' *'}
                  <select
                    value={String(raw[f.name] ?? '')}
                    onChange={(e) => setRaw({ ...raw, [f.name]: e.target.value })}
                  >
                    <option value="">—</option>
                    {f.options.map((o) => (
                      <option key={o} value={o}>
                        {o}
                      </option>
                    ))}
                  </select>
                </label>
              ) : f.kind === 'json' ? (
                <label>
                  {f.name} (JSON){f.required && ' *'}
                  <textarea
                    value={String(raw[f.name] ?? '')}
                    onChange={(e) => setRaw({ ...raw, [f.name]: e.target.value })}
                  />
                </label>
              ) : (
                <label>
                  {f.name}
                  {f.required && ' *'}
                  <input
                    type={f.kind === 'string' ? 'text' : 'number'}
                    step={f.kind === 'number' ? 'any' : undefined}
                    value={String(raw[f.name] ?? '')}
                    onChange={(e) => setRaw({ ...raw, [f.name]: e.target.value })}
                  />
                </label>
              )}
              {f.description && <span className="muted"> {f.description}</span>}
            </div>
          ))}
          <button type="submit" disabled={busy || !usable || !tool}>
            {t('manual.run')}
          </button>
        </form>
      )}
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </section>
  );
}
