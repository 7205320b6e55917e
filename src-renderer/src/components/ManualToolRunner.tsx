/**
 * Without a model the operator can still run a discovered tool by hand, from a form generated from
 * its JSON Schema, under the conversation's task, permits and journal. Only the tools and fields
 * the task allows are offered; a search selects a read first, never a write. A read runs at once;
 * a write first shows the exact request (system, account, arguments, the task whose budget it
 * spends) and is sent only on an explicit confirm, once: a second click while it is on its way
 * sends nothing, and the form is cleared after it.
 */
import React, { useMemo, useRef, useState } from 'react';
import type { ToolView } from '../../../src-shared/ipc/views.js';
import { neverSent } from '../../../src-shared/states.js';
import { call } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { fieldsAllowed, namesAllowed, preselected, toolsAllowed } from '../logic/manual-runner.js';
import { buildArguments, fieldsOf } from '../logic/schema-form.js';
import { hubUsable, useApp } from '../store/app.js';
import { useSessions } from '../store/sessions.js';
import { useTasks } from '../store/tasks.js';
import { caught, message, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { KindBadge } from './KindBadge.js';

interface Preview {
  tool: ToolView;
  args: Record<string, unknown>;
}

export function ManualToolRunner({ sessionId }: { sessionId: string }): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const taskId = useSessions((s) => s.sessions.find((x) => x.session_id === sessionId)?.task_id ?? null);
  const task = useTasks((s) => (taskId ? (s.tasks[taskId] ?? null) : null));
  const [query, setQuery] = useState('');
  const [found, setFound] = useState<ToolView[] | null>(null);
  const [selected, setSelected] = useState<string>('');
  const [raw, setRaw] = useState<Record<string, string | boolean>>({});
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);
  const [sentWrite, setSentWrite] = useState<'sent' | 'not_sent' | null>(null);
  // Synchronous guard: React state updates too late to stop a double click's second event.
  const sending = useRef(false);
  const tools = useMemo(() => (found ? toolsAllowed(found, task) : null), [found, task]);
  const tool = tools?.find((x) => x.function_name === selected) ?? null;
  const fields = useMemo(
    () => (tool ? fieldsAllowed(fieldsOf(tool.input_schema), namesAllowed(tool, task)) : []),
    [tool, task],
  );

  const choose = (functionName: string) => {
    setSelected(functionName);
    setRaw({});
    setPreview(null);
    setSentWrite(null);
  };
  const search = (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    // The last search's tools go at once: nothing can be picked from a list the new search replaces.
    setFound(null);
    choose('');
    call('searchTools', { session_id: sessionId, query })
      .then(
        (r) => {
          setFound(r.tools);
          choose(preselected(toolsAllowed(r.tools, task)));
        },
        (err: unknown) => setError(caught(err)),
      )
      .finally(() => setBusy(false));
  };
  const send = (target: ToolView, args: Record<string, unknown>) => {
    if (sending.current) return;
    sending.current = true;
    setError(null);
    setBusy(true);
    call('runToolManually', { session_id: sessionId, function_name: target.function_name, arguments: args })
      // The card reaches the conversation the way every card does: as a conversationItem event.
      .then(
        (r) => {
          if (target.effect !== 'write') return;
          setPreview(null);
          // Refused before it left: nothing was sent, so the values stay to be corrected.
          if (r.item.kind === 'tool_call' && neverSent(r.item.state)) {
            setSentWrite('not_sent');
            return;
          }
          setRaw({});
          setSentWrite('sent');
        },
        (err: unknown) => setError(caught(err)),
      )
      .finally(() => {
        sending.current = false;
        setBusy(false);
      });
  };
  const run = (e: React.FormEvent) => {
    e.preventDefault();
    if (!tool || sending.current) return;
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
    setSentWrite(null);
    if (tool.effect === 'write') setPreview({ tool, args: built.args });
    else send(tool, built.args);
  };
  const edit = (name: string, value: string | boolean) => {
    setRaw({ ...raw, [name]: value });
    setPreview(null);
    setSentWrite(null);
  };

  return (
    <section className="manual" aria-label={t('manual.title')}>
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
            <select value={selected} onChange={(e) => choose(e.target.value)}>
              <option value="">{t('manual.chooseTool')}</option>
              {tools.map((x) => (
                <option key={x.function_name} value={x.function_name}>
                  {x.tool} — {x.system_name} · {t(`systemKind.${x.system_kind}`)} ({x.account}) ·{' '}
                  {t(`effect.${x.effect}`)}
                </option>
              ))}
            </select>
          </label>
          {tool && (
            <p className="muted">
              <KindBadge kind={tool.system_kind} /> {tool.description}
            </p>
          )}
          {fields.map((f) => (
            <div key={f.name} className="field">
              {f.kind === 'boolean' ? (
                <label>
                  <input
                    type="checkbox"
                    checked={raw[f.name] === true}
                    onChange={(e) => edit(f.name, e.target.checked)}
                  />
                  {f.name}
                </label>
              ) : f.kind === 'enum' ? (
                <label>
                  {f.name}
                  {f.required && ' *'}
                  <select value={String(raw[f.name] ?? '')} onChange={(e) => edit(f.name, e.target.value)}>
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
                    onChange={(e) => edit(f.name, e.target.value)}
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
                    onChange={(e) => edit(f.name, e.target.value)}
                  />
                </label>
              )}
              {f.description && <span className="muted"> {f.description}</span>}
            </div>
          ))}
          {!preview && (
            <button type="submit" disabled={busy || !usable || !tool}>
              {tool?.effect === 'write' ? t('manual.review') : t('manual.run')}
            </button>
          )}
        </form>
      )}
      {preview && (
        <div
          className="write-preview"
          role="group"
          aria-label={t('manual.previewTitle')}
          data-testid="write-preview"
        >
          <h4>{t('manual.previewTitle')}</h4>
          <dl>
            <dt>{t('card.tool')}</dt>
            <dd>{preview.tool.tool}</dd>
            <dt>{t('card.system')}</dt>
            <dd>{preview.tool.system_name}</dd>
            <dt>{t('card.account')}</dt>
            <dd>{preview.tool.account}</dd>
            <dt>{t('manual.previewTask')}</dt>
            <dd data-testid="write-preview-task">
              {task
                ? t('manual.previewBudget', { task: task.title, left: task.writes_left })
                : t('manual.previewNoTask')}
            </dd>
          </dl>
          <pre data-testid="write-preview-arguments">{JSON.stringify(preview.args, null, 2)}</pre>
          <div className="row">
            <button type="button" onClick={() => send(preview.tool, preview.args)} disabled={busy || !usable}>
              {t('manual.confirmWrite')}
            </button>
            <button type="button" onClick={() => setPreview(null)} disabled={busy}>
              {t('manual.back')}
            </button>
          </div>
        </div>
      )}
      {sentWrite === 'sent' && (
        <p role="status" className="muted" data-testid="write-sent">
          {t('manual.writeSent')}
        </p>
      )}
      {sentWrite === 'not_sent' && (
        <p role="status" className="state-bad" data-testid="write-not-sent">
          {t('manual.writeNotSent')}
        </p>
      )}
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </section>
  );
}
