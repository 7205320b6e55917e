/** Conversations list and the "new conversation" form (scope = selected authorizations, optional task). */
import React, { useEffect, useRef, useState } from 'react';
import type { Authorization } from '../../../src-shared/hub-api.js';
import { call } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { hubUsable, useApp } from '../store/app.js';
import { useSessions } from '../store/sessions.js';
import { sortedTasks, useTasks } from '../store/tasks.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { KindBadge } from './KindBadge.js';

export function SessionList(): React.JSX.Element {
  const t = useT();
  const sessions = useSessions((s) => s.sessions);
  const currentId = useSessions((s) => s.currentId);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  return (
    <nav className="session-list" aria-label={t('sessions.title')}>
      <h2>{t('sessions.title')}</h2>
      {sessions.length === 0 && <p className="muted">{t('sessions.empty')}</p>}
      <ul>
        {sessions.map((s) => (
          <li key={s.session_id}>
            <button
              type="button"
              className={s.session_id === currentId ? 'selected' : ''}
              aria-current={s.session_id === currentId ? 'page' : undefined}
              onClick={() =>
                void useSessions
                  .getState()
                  .open(s.session_id)
                  .catch((e: unknown) => setError(caught(e)))
              }
            >
              {s.title}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" onClick={() => setCreating((v) => !v)} aria-expanded={creating}>
        {t('sessions.new')}
      </button>
      {creating && <NewSessionForm onDone={() => setCreating(false)} />}
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </nav>
  );
}

export function NewSessionForm({
  onDone,
  taskId,
}: {
  onDone: () => void;
  taskId?: string;
}): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const tasks = useTasks((s) => s.tasks);
  const [title, setTitle] = useState('');
  const [auths, setAuths] = useState<Authorization[]>([]);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [task, setTask] = useState<string>(taskId ?? '');
  const [error, setError] = useState<ShownError | null>(null);
  // The task chosen when the authorizations arrive decides what is ticked (they may arrive last).
  const chosenTask = useRef(task);
  chosenTask.current = task;
  useEffect(() => {
    if (!usable) return;
    call('listAuthorizations', {}).then(
      (r) => {
        setAuths(r.authorizations);
        const tv = chosenTask.current ? useTasks.getState().tasks[chosenTask.current] : undefined;
        setPicked(
          tv
            ? new Set(tv.boundary.authorizations.map((a) => a.authorization_ref))
            : new Set(r.authorizations.filter((a) => a.state === 'active').map((a) => a.authorization_ref)),
        );
      },
      (e: unknown) => setError(caught(e)),
    );
  }, [usable]);
  useEffect(() => {
    const tv = task ? tasks[task] : undefined;
    if (tv) setPicked(new Set(tv.boundary.authorizations.map((a) => a.authorization_ref)));
  }, [task, tasks]);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    useSessions
      .getState()
      .create({
        title: title.trim() || t('sessions.defaultTitle'),
        authorization_refs: [...picked],
        task_id: task || null,
      })
      .then(onDone, (err: unknown) => setError(caught(err)));
  };
  return (
    <form onSubmit={submit} className="card" aria-label={t('sessions.new')}>
      <label>
        {t('sessions.newTitle')}
        <input value={title} onChange={(e) => setTitle(e.target.value)} maxLength={200} />
      </label>
      <fieldset>
        <legend>{t('sessions.scope')}</legend>
        {auths.map((a) => (
          <label key={a.authorization_ref}>
            <input
              type="checkbox"
              checked={picked.has(a.authorization_ref)}
              disabled={a.state !== 'active'}
              onChange={(e) => {
                const next = new Set(picked);
                if (e.target.checked) next.add(a.authorization_ref);
                else next.delete(a.authorization_ref);
                setPicked(next);
              }}
            />
            {a.system_name} <KindBadge kind={a.system_kind ?? 'http'} /> · {a.account}
          </label>
        ))}
      </fieldset>
      <label>
        {t('sessions.task')}
        <select value={task} onChange={(e) => setTask(e.target.value)}>
          <option value="">{t('sessions.noTask')}</option>
          {sortedTasks(tasks)
            .filter((x) => x.state !== 'cancelled')
            .map((x) => (
              <option key={x.task_id} value={x.task_id}>
                {x.title}
              </option>
            ))}
        </select>
      </label>
      <button type="submit" disabled={!usable && picked.size > 0}>
        {t('sessions.create')}
      </button>
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </form>
  );
}
