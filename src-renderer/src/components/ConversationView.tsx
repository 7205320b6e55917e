/**
 * The open conversation: scope, storage state, streamed messages, tool call cards, composer (with
 * attachments). The page does not scroll: the log does, between the header and the composer, which
 * stays pinned at the bottom; the log follows new output unless the operator scrolled up to read
 * (logic/follow-log.ts). The manual runner is a collapsible panel above the composer, so it never
 * pushes the composer out of view.
 */
import React, { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useT } from '../i18n/use-t.js';
import { refusalText } from '../logic/attachment-text.js';
import { ACCEPT, type Refusal } from '../logic/attachments.js';
import { reasonText } from '../logic/feedback-text.js';
import { hubUsable, useApp } from '../store/app.js';
import { pendingOf, useComposer } from '../store/composer.js';
import { useSessions } from '../store/sessions.js';
import { useSettings } from '../store/settings.js';
import { MessageAttachments, PendingAttachments } from './Attachments.js';
import { AssistantText } from './AssistantText.js';
import { NoticeText } from './CodedText.js';
import { retryText, usageText } from '../logic/model-text.js';
import { ManualToolRunner } from './ManualToolRunner.js';
import { atEnd, scrollToEnd } from '../logic/follow-log.js';
import { useScopeSystems } from '../store/authorization-names.js';
import { runnerOpen, useRunnerPanel } from '../store/runner-panel.js';
import { SystemStateMark, TaskBoundary } from './TaskBoundary.js';
import { useTasks } from '../store/tasks.js';
import { StorageBar } from './StorageBar.js';
import { ToolCallCard } from './ToolCallCard.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';

export function ConversationView(): React.JSX.Element {
  const t = useT();
  const currentId = useSessions((s) => s.currentId);
  const session = useSessions((s) => s.sessions.find((x) => x.session_id === s.currentId) ?? null);
  const conv = useSessions((s) => (s.currentId ? s.conversations[s.currentId] : undefined));
  const usable = useApp(hubUsable);
  const lang = useApp((s) => s.lang);
  const modelConfigured = useSettings((s) => Boolean(s.settings?.model.base_url && s.settings.model.model));
  const [text, setText] = useState('');
  const [error, setError] = useState<ShownError | null>(null);
  // The composer's refusals, for the conversation they were made in.
  const [refused, setRefused] = useState<{ sessionId: string | null; list: Refusal[] }>({
    sessionId: null,
    list: [],
  });
  const pending = useComposer((s) => pendingOf(s, currentId));
  const fileRef = useRef<HTMLInputElement>(null);
  const taskId = session?.task_id ?? null;
  const boundTask = useTasks((s) => (taskId ? (s.tasks[taskId] ?? null) : null));
  const systemOf = useScopeSystems(
    {
      availability_reason: session?.availability_reason ?? null,
      availability_ref: session?.availability_ref ?? null,
    },
    boundTask,
  );
  const hasSession = session !== null;
  const runnerChosen = useRunnerPanel((s) => s.chosen);
  const showRunner = runnerOpen(runnerChosen, modelConfigured);
  // Follow new output at the end of the log, unless the operator scrolled up to read.
  const logRef = useRef<HTMLOListElement>(null);
  const following = useRef(true);
  const [unseen, setUnseen] = useState(false);
  const items = conv?.items;
  useLayoutEffect(() => {
    following.current = true;
    setUnseen(false);
  }, [currentId]);
  useLayoutEffect(() => {
    const el = logRef.current;
    if (!el) return;
    if (following.current) scrollToEnd(el);
    else setUnseen(true);
  }, [items, currentId]);
  // The log's box changes size (the runner panel opens, the window is resized): stay at the end.
  useEffect(() => {
    const el = logRef.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (following.current) scrollToEnd(el);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [currentId, hasSession]);
  const jumpToLatest = () => {
    const el = logRef.current;
    if (!el) return;
    following.current = true;
    setUnseen(false);
    scrollToEnd(el);
  };

  if (!currentId || !session) return <p className="muted">{t('conv.none')}</p>;
  const running = session.turn_running;
  const needsHub = session.members.length > 0;
  // The member a blocked scope names, by its system's name when one is known (else its ref).
  const blockedMember = session.members.find((m) => m.authorization_ref === session.availability_ref);
  const blockedBy = blockedMember
    ? systemOf(blockedMember, blockedMember.authorization_ref).name
    : session.availability_ref;
  const canSend = !running && (!needsHub || usable) && session.availability !== 'blocked';

  const sessionId = currentId;
  const refusals = refused.sessionId === sessionId ? refused.list : [];
  const setRefusals = (list: Refusal[]) => setRefused({ sessionId, list });
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const msg = text.trim();
    if (!msg || !canSend) return;
    setError(null);
    setRefusals([]);
    setText('');
    // A message that is not sent gets its text back (its attachments stay pending).
    const restore = () => setText((cur) => (cur === '' ? msg : cur));
    useComposer
      .getState()
      .send(msg)
      .then((refusal) => {
        if (!refusal) return;
        setRefusals([refusal]);
        restore();
      })
      .catch((err: unknown) => {
        setError(caught(err));
        restore();
      });
  };
  const onFiles = (e: React.ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    // Cleared so the same file can be chosen again after it was removed or refused.
    e.target.value = '';
    if (files.length === 0) return;
    void useComposer.getState().add(sessionId, text.trim(), files).then(setRefusals);
  };

  return (
    <section className="conversation" aria-labelledby="conv-title">
      <header>
        <h2 id="conv-title" data-testid="conversation-title">
          {session.title}
        </h2>
        <p className="muted" data-testid="conversation-scope">
          {t('conv.scope')}:{' '}
          {session.members.length === 0
            ? '—'
            : session.members.map((m, i) => {
                const system = systemOf(m, m.system_id);
                return (
                  <React.Fragment key={m.authorization_ref}>
                    {i > 0 && ', '}
                    <span data-testid="scope-member" data-system-state={system.state}>
                      {system.name} ({m.account})
                      {system.state === 'retired' && (
                        <>
                          {' '}
                          <SystemStateMark system={system} />
                        </>
                      )}
                    </span>
                  </React.Fragment>
                );
              })}
          {session.task_id && (
            <> · {t('conv.taskBound', { task: boundTask?.title ?? t('conv.taskLoading') })}</>
          )}
        </p>
        {boundTask && <TaskBoundary task={boundTask} />}
        {session.availability === 'blocked' && (
          <p role="alert" className="state-bad">
            {t('sessions.blocked', {
              reason:
                reasonText(session.availability_reason ?? '', lang) + (blockedBy ? ` · ${blockedBy}` : ''),
            })}
          </p>
        )}
        {session.availability === 'offline' && (
          <p role="alert" className="state-bad">
            {t('sessions.offline')}
          </p>
        )}
      </header>
      <StorageBar sessionId={currentId} storage={conv?.storage ?? null} />
      <ol
        className="items"
        role="log"
        aria-label={t('conv.items')}
        aria-live="polite"
        ref={logRef}
        data-testid="conversation-log"
        onScroll={(e) => {
          following.current = atEnd(e.currentTarget);
          if (following.current) setUnseen(false);
        }}
      >
        {(conv?.items ?? []).map((item) => (
          <li key={item.id} className={`item item-${item.kind}`}>
            {item.kind === 'user_message' && (
              <>
                <p>
                  <strong>{t('conv.you')}:</strong> {item.text}
                </p>
                {item.attachments && <MessageAttachments sessionId={currentId} items={item.attachments} />}
              </>
            )}
            {item.kind === 'assistant_text' && <AssistantText item={item} />}
            {item.kind === 'tool_call' && <ToolCallCard item={item} sessionId={currentId} />}
            {item.kind === 'notice' && (
              <p className={item.level === 'error' ? 'state-bad' : 'muted'}>
                <NoticeText notice={item} />
              </p>
            )}
            {item.kind === 'model_retry' && (
              <p className="muted" role="status" data-testid="model-retry">
                {retryText(item, t)}
              </p>
            )}
            {item.kind === 'turn_usage' && (
              <p className="muted usage" data-testid="turn-usage">
                {usageText(item, t, lang)}
              </p>
            )}
          </li>
        ))}
      </ol>
      <div className="conversation-foot">
        {unseen && (
          <button type="button" className="jump-latest" onClick={jumpToLatest} data-testid="jump-latest">
            {t('conv.jumpLatest')}
          </button>
        )}
        {running && (
          <p className="muted" role="status">
            {t('conv.turnRunning')}
          </p>
        )}
        {!modelConfigured && <p className="muted">{t('conv.noModel')}</p>}
        {session.members.length > 0 && (
          <details
            className="runner-panel"
            open={showRunner}
            onToggle={(e) => {
              const open = e.currentTarget.open;
              if (open !== showRunner) useRunnerPanel.getState().choose(open);
            }}
            data-testid="runner-panel"
          >
            <summary>{t('manual.title')}</summary>
            <ManualToolRunner sessionId={currentId} />
          </details>
        )}
        <PendingAttachments
          items={pending}
          onRemove={(key) => useComposer.getState().remove(sessionId, key)}
        />
        {refusals.length > 0 && (
          <ul role="alert" className="state-bad attachment-refusals" data-testid="attachment-refusals">
            {refusals.map((r, i) => (
              <li key={i}>{refusalText(r, t)}</li>
            ))}
          </ul>
        )}
        <form className="composer" onSubmit={submit}>
          <label htmlFor="composer-input" className="visually-hidden">
            {t('conv.messageLabel')}
          </label>
          <textarea
            id="composer-input"
            value={text}
            placeholder={t('conv.placeholder')}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) submit(e);
            }}
            maxLength={20000}
          />
          <input
            ref={fileRef}
            type="file"
            multiple
            accept={ACCEPT}
            className="visually-hidden"
            tabIndex={-1}
            aria-label={t('attach.input')}
            data-testid="attach-input"
            onChange={onFiles}
          />
          <button type="button" onClick={() => fileRef.current?.click()}>
            {t('attach.button')}
          </button>
          {running ? (
            <button
              type="button"
              onClick={() =>
                void useSessions
                  .getState()
                  .cancel()
                  .catch((err: unknown) => setError(caught(err)))
              }
            >
              {t('conv.cancel')}
            </button>
          ) : (
            <button type="submit" disabled={!canSend || text.trim() === ''}>
              {t('conv.send')}
            </button>
          )}
        </form>
        {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
      </div>
    </section>
  );
}
