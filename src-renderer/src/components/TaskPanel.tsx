/**
 * The task panel: tasks, creating one from a boundary, live accounting (writes meter, in-flight,
 * counts per state), Pause / Continue / Cancel, the exact sentence for the current state, and the
 * timeline.
 */
import React, { useEffect, useState } from 'react';
import { TaskBoundary } from './TaskBoundary.js';
import { KindBadge } from './KindBadge.js';
import { ConfirmPanel } from './ConfirmPanel.js';
import type { Authorization, RateWindow, TaskView } from '../../../src-shared/hub-api.js';
import type { AuthorizationTool } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';
import { useStateLabel, useT } from '../i18n/use-t.js';
import { keyFieldOf, parseProductIds, taskRequestFrom, type ToolRule } from '../logic/task-boundary.js';
import { taskSentence } from '../logic/task-sentence.js';
import { hubUsable, useApp } from '../store/app.js';
import { sortedTasks, useTasks } from '../store/tasks.js';
import { NewSessionForm } from './SessionList.js';
import { TaskTimeline } from './TaskTimeline.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';

export function TaskPanel(): React.JSX.Element {
  const t = useT();
  const tasks = useTasks((s) => s.tasks);
  const selectedId = useTasks((s) => s.selectedId);
  const [creating, setCreating] = useState(false);
  const list = sortedTasks(tasks);
  const selected = selectedId ? tasks[selectedId] : undefined;
  return (
    <section className="tasks" aria-labelledby="tasks-title">
      <h2 id="tasks-title">{t('task.list')}</h2>
      <div className="row">
        <ul className="task-list">
          {list.length === 0 && <li className="muted">{t('task.none')}</li>}
          {list.map((x) => (
            <li key={x.task_id}>
              <button
                type="button"
                aria-current={x.task_id === selectedId ? 'true' : undefined}
                className={x.task_id === selectedId ? 'selected' : ''}
                onClick={() => void useTasks.getState().select(x.task_id)}
              >
                {x.title} · {t(`task.state.${x.state}`)}
              </button>
            </li>
          ))}
        </ul>
        <button type="button" onClick={() => setCreating((v) => !v)} aria-expanded={creating}>
          {t('task.create')}
        </button>
      </div>
      {creating && <TaskCreateForm onDone={() => setCreating(false)} />}
      {selected && <TaskDetail task={selected} />}
    </section>
  );
}

export function TaskDetail({ task }: { task: TaskView }): React.JSX.Element {
  const t = useT();
  const label = useStateLabel();
  const usable = useApp(hubUsable);
  const timeline = useTasks((s) => s.timeline);
  const [error, setError] = useState<ShownError | null>(null);
  const [newConv, setNewConv] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  // The timeline is read when the task is shown, so a first visit after a load is current too.
  useEffect(() => {
    void useTasks
      .getState()
      .loadTimeline()
      .catch(() => {});
  }, [task.task_id]);
  const control = (action: 'pause' | 'continue' | 'cancel') => {
    setError(null);
    useTasks
      .getState()
      .control(action, task.task_id)
      .catch((e: unknown) => setError(caught(e)));
  };
  const budget = task.boundary.write_budget;
  const counts = Object.entries(task.counts).filter(([, n]) => (n ?? 0) > 0);
  return (
    <article className="task-detail card" aria-labelledby={`task-${task.task_id}`} data-testid="task-detail">
      <h3 id={`task-${task.task_id}`}>
        {task.title} · <span data-testid="task-state">{t(`task.state.${task.state}`)}</span>
      </h3>
      <p className="sentence" role="status" data-testid="task-sentence">
        {taskSentence(task, t)}
      </p>
      <TaskBoundary task={task} budget={false} />
      <label className="meter-label">
        <span data-testid="task-budget">
          {t('task.writes', { used: task.writes_used, left: task.writes_left, budget })}
        </span>
        <meter
          min={0}
          max={Math.max(1, budget)}
          value={task.writes_used}
          low={budget * 0.7}
          high={budget * 0.9}
          optimum={0}
        />
      </label>
      <p>{t('task.inFlightNow', { n: task.in_flight, limit: task.boundary.in_flight_limit })}</p>
      {task.rate && (
        <p>
          {t('task.rate')}: {task.rate.used_in_window}/{task.rate.count} {t('task.rateWindow')}{' '}
          {task.rate.window}
        </p>
      )}
      <h4>{t('task.counts')}</h4>
      <ul className="counts">
        {counts.length === 0 && <li className="muted">—</li>}
        {counts.map(([state, n]) => (
          <li key={state}>
            {label(state)}: {n}
          </li>
        ))}
      </ul>
      <div className="row">
        {task.state === 'active' && (
          <button type="button" onClick={() => control('pause')} disabled={!usable}>
            {t('task.pause')}
          </button>
        )}
        {task.state === 'paused' && (
          <button type="button" onClick={() => control('continue')} disabled={!usable}>
            {t('task.continue')}
          </button>
        )}
        {task.state !== 'cancelled' && (
          <button type="button" className="danger" onClick={() => setConfirmCancel(true)} disabled={!usable}>
            {t('task.cancel')}
          </button>
        )}
        {task.state !== 'cancelled' && (
          <button type="button" onClick={() => setNewConv((v) => !v)} aria-expanded={newConv}>
            {t('task.startConversation')}
          </button>
        )}
      </div>
      {confirmCancel && task.state !== 'cancelled' && (
        <ConfirmPanel
          className="card state-bad"
          label={t('task.cancel')}
          text={t('task.cancelFinal')}
          confirmLabel={t('task.cancelConfirm')}
          cancelLabel={t('task.cancelKeep')}
          onConfirm={() => {
            setConfirmCancel(false);
            control('cancel');
          }}
          onCancel={() => setConfirmCancel(false)}
          disabled={!usable}
          testId="cancel-confirm"
        />
      )}
      {newConv && (
        <NewSessionForm
          taskId={task.task_id}
          onDone={() => {
            setNewConv(false);
            useApp.getState().setView('conversations');
          }}
        />
      )}
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
      {task.unresolved.length > 0 && (
        <>
          <h4>{t('task.unresolved')}</h4>
          <ul>
            {task.unresolved.map((u) => (
              <li key={u.invocation_id}>
                {u.tool} · {label(u.state)} · <code>{u.invocation_id}</code>
              </li>
            ))}
          </ul>
          {(task.unresolved_total ?? task.unresolved.length) > task.unresolved.length && (
            <p className="muted" data-testid="unresolved-more">
              {t('task.unresolvedMore', {
                count: (task.unresolved_total ?? task.unresolved.length) - task.unresolved.length,
              })}
            </p>
          )}
        </>
      )}
      <h4>{t('task.timeline')}</h4>
      <TaskTimeline entries={timeline} systems={task.systems} />
    </article>
  );
}

const WINDOWS: RateWindow[] = ['1s', '1m', '1h', '1d'];

/** The rule being edited for one write tool (the key field's values as typed). */
interface RuleDraft {
  keyValues: string;
  /** null = any field may be changed. */
  onlyFields: Set<string> | null;
}

/**
 * Creating a task, laid out as the boundary reads: each system (authorization) with its tools —
 * reads, then writes, each write with an optional rule (only some values of its key field, only some
 * fields) — then the limits.
 */
export function TaskCreateForm({ onDone }: { onDone: () => void }): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const [auths, setAuths] = useState<Authorization[]>([]);
  const [toolsByAuth, setToolsByAuth] = useState<Record<string, AuthorizationTool[]>>({});
  const [selection, setSelection] = useState<Record<string, Set<string>>>({});
  const [rules, setRules] = useState<Record<string, RuleDraft>>({});
  const [title, setTitle] = useState('');
  const [budget, setBudget] = useState('6');
  const [inFlight, setInFlight] = useState('2');
  const [rateCount, setRateCount] = useState('');
  const [rateWindow, setRateWindow] = useState<RateWindow>('1m');
  const [error, setError] = useState<ShownError | null>(null);
  const [extraTool, setExtraTool] = useState<Record<string, string>>({});

  useEffect(() => {
    if (!usable) return;
    call('listAuthorizations', {}).then(
      (r) => setAuths(r.authorizations.filter((a) => a.state === 'active')),
      (e: unknown) => setError(caught(e)),
    );
    call('listAuthorizationTools', {}).then(
      (r) => {
        const by: Record<string, AuthorizationTool[]> = {};
        for (const tool of r.tools) (by[tool.authorization_ref] ??= []).push(tool);
        setToolsByAuth(by);
        // An authorization checked before its tools were listed gets them, as if checked now.
        setSelection((prev) => {
          const next = { ...prev };
          for (const [ref, chosen] of Object.entries(prev))
            if (chosen.size === 0 && by[ref]) next[ref] = new Set(by[ref].map((x) => x.tool));
          return next;
        });
      },
      (e: unknown) => setError(caught(e)),
    );
  }, [usable]);

  const ruleKey = (ref: string, tool: string) => `${ref}\u0000${tool}`;
  const toggleAuth = (ref: string, on: boolean) => {
    const next = { ...selection };
    if (on) next[ref] = new Set((toolsByAuth[ref] ?? []).map((x) => x.tool));
    else delete next[ref];
    setSelection(next);
  };
  const toggleTool = (ref: string, tool: string, on: boolean) => {
    const cur = new Set(selection[ref] ?? []);
    if (on) cur.add(tool);
    else cur.delete(tool);
    setSelection({ ...selection, [ref]: cur });
  };
  const setRule = (ref: string, tool: string, patch: Partial<RuleDraft>) => {
    const key = ruleKey(ref, tool);
    const cur = rules[key] ?? { keyValues: '', onlyFields: null };
    setRules({ ...rules, [key]: { ...cur, ...patch } });
  };

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    const req = taskRequestFrom({
      title: title || t('task.defaultTitle'),
      selection: Object.entries(selection).map(([authorization_ref, tools]) => ({
        authorization_ref,
        tools: [...tools],
        rules: (toolsByAuth[authorization_ref] ?? []).flatMap((tool): ToolRule[] => {
          const draft = rules[ruleKey(authorization_ref, tool.tool)];
          if (!draft || tool.effect !== 'write') return [];
          return [
            {
              tool: tool.tool,
              keyField: keyFieldOf(tool.fields),
              keyValues: parseProductIds(draft.keyValues),
              onlyFields: draft.onlyFields ? [...draft.onlyFields] : null,
            },
          ];
        }),
      })),
      writeBudget: Number(budget),
      inFlight: Number(inFlight),
      rate: rateCount.trim() ? { count: Number(rateCount), window: rateWindow } : null,
    });
    useTasks
      .getState()
      .create(req)
      .then(onDone, (err: unknown) => setError(caught(err)));
  };

  const toolBox = (ref: string, tool: AuthorizationTool | { tool: string; description: string }) => (
    <label key={tool.tool} className="tool-choice" title={tool.description}>
      <input
        type="checkbox"
        checked={selection[ref]?.has(tool.tool) ?? false}
        onChange={(e) => toggleTool(ref, tool.tool, e.target.checked)}
      />
      {tool.tool}
    </label>
  );
  const ruleEditor = (ref: string, tool: AuthorizationTool) => {
    const key = keyFieldOf(tool.fields);
    const draft = rules[ruleKey(ref, tool.tool)] ?? { keyValues: '', onlyFields: null };
    const changeable = tool.fields.filter((f) => f !== key);
    const only = draft.onlyFields;
    return (
      <details key={`rule-${tool.tool}`} className="tool-rule" data-testid={`rule-${tool.tool}`}>
        <summary>{t('task.rule.summary', { tool: tool.tool })}</summary>
        {key && (
          <label>
            {t('task.rule.keyValues', { field: key })}
            <input
              value={draft.keyValues}
              onChange={(e) => setRule(ref, tool.tool, { keyValues: e.target.value })}
              placeholder={t('task.rule.keyHint')}
            />
          </label>
        )}
        {changeable.length > 0 && (
          <fieldset className="rule-fields">
            <legend>{t('task.rule.fields')}</legend>
            {changeable.map((f) => (
              <label key={f}>
                <input
                  type="checkbox"
                  checked={only === null || only.has(f)}
                  onChange={(e) => {
                    const next = new Set(only ?? changeable);
                    if (e.target.checked) next.add(f);
                    else next.delete(f);
                    setRule(ref, tool.tool, {
                      onlyFields: next.size === changeable.length ? null : next,
                    });
                  }}
                />
                {f}
              </label>
            ))}
          </fieldset>
        )}
      </details>
    );
  };

  return (
    <form className="card task-form" onSubmit={submit} aria-label={t('task.create')}>
      <label>
        {t('task.title')}
        <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} required />
      </label>
      <fieldset>
        <legend>{t('task.authorizations')}</legend>
        {auths.map((a) => {
          const ref = a.authorization_ref;
          const on = selection[ref] !== undefined;
          const listed = toolsByAuth[ref] ?? [];
          const chosen = selection[ref] ?? new Set<string>();
          const known = new Set(listed.map((x) => x.tool));
          const reads = listed.filter((x) => x.effect === 'read');
          const writes = listed.filter((x) => x.effect === 'write');
          const typed = [...chosen].filter((x) => !known.has(x));
          return (
            <div key={ref} className="auth-block" data-testid="task-form-system">
              <label className="auth-head">
                <input type="checkbox" checked={on} onChange={(e) => toggleAuth(ref, e.target.checked)} />
                <strong>{a.system_name}</strong> <KindBadge kind={a.system_kind ?? 'http'} /> · {a.account}
              </label>
              {on && (
                <div className="tools">
                  {reads.length > 0 && (
                    <div className="tool-group" role="group" aria-label={t('task.reads')}>
                      <span className="muted">{t('task.reads')}</span>
                      {reads.map((x) => toolBox(ref, x))}
                    </div>
                  )}
                  {writes.length > 0 && (
                    <div className="tool-group" role="group" aria-label={t('task.writeTools')}>
                      <span className="muted">{t('task.writeTools')}</span>
                      {writes.map((x) => toolBox(ref, x))}
                    </div>
                  )}
                  {writes
                    .filter((x) => chosen.has(x.tool) && x.fields.length > 0)
                    .map((x) => ruleEditor(ref, x))}
                  {typed.length > 0 && (
                    <div className="tool-group">
                      {typed.map((x) => toolBox(ref, { tool: x, description: '' }))}
                    </div>
                  )}
                  <label>
                    {t('task.addTool')}
                    <input
                      value={extraTool[ref] ?? ''}
                      onChange={(e) => setExtraTool({ ...extraTool, [ref]: e.target.value })}
                      onKeyDown={(e) => {
                        const v = (extraTool[ref] ?? '').trim();
                        if (e.key === 'Enter' && v) {
                          e.preventDefault();
                          toggleTool(ref, v, true);
                          setExtraTool({ ...extraTool, [ref]: '' });
                        }
                      }}
                    />
                  </label>
                </div>
              )}
            </div>
          );
        })}
      </fieldset>
      <fieldset className="task-limits">
        <legend>{t('task.limits')}</legend>
        <label>
          {t('task.budget')}
          <input type="number" min={0} value={budget} onChange={(e) => setBudget(e.target.value)} required />
        </label>
        <label>
          {t('task.inFlight')}
          <input
            type="number"
            min={1}
            value={inFlight}
            onChange={(e) => setInFlight(e.target.value)}
            required
          />
        </label>
        <label>
          {t('task.rate')}
          <input
            type="number"
            min={1}
            value={rateCount}
            placeholder={t('task.noRate')}
            onChange={(e) => setRateCount(e.target.value)}
          />
        </label>
        <label>
          {t('task.rateWindow')}
          <select value={rateWindow} onChange={(e) => setRateWindow(e.target.value as RateWindow)}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      <button type="submit" disabled={!usable}>
        {t('task.create')}
      </button>
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </form>
  );
}
