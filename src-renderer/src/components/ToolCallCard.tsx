/**
 * One tool call: a one-line summary (state, tool · system · key arguments), the arguments and the
 * result inline and collapsible (kept in the archive, so they are there after a reload without
 * asking the Hub), why it ended as it did, who settled it, and the invocation id with Inspect /
 * Resume / Record what I checked where they apply.
 */
import React, { useState } from 'react';
import type { ConversationItem, InvocationActionView } from '../../../src-shared/ipc/views.js';
import { cardTone } from '../../../src-shared/states.js';
import { call } from '../api-client.js';
import { useStateLabel, useT } from '../i18n/use-t.js';
import { actionState, dispatchText, nextActionText } from '../logic/action-state.js';
import { FeedbackText } from './CodedText.js';
import { hubUsable, useApp } from '../store/app.js';
import { useCardPanel } from '../store/card-panels.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { AttestForm } from './AttestForm.js';
import { StateBadge } from './StateBadge.js';
import { AuthorizationKindBadge } from './KindBadge.js';
import { constraintBreaches } from '../logic/manual-runner.js';
import { parseArguments } from '../../../src-shared/call-view.js';
import { useSessions } from '../store/sessions.js';
import { useTasks } from '../store/tasks.js';

type ToolCall = Extract<ConversationItem, { kind: 'tool_call' }>;

export function ToolCallCard({ item, sessionId }: { item: ToolCall; sessionId: string }): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const [result, setResult] = useState<InvocationActionView | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);
  const [argsOpen, setArgsOpen] = useCardPanel(item.id, 'arguments');
  const [resultOpen, setResultOpen] = useCardPanel(item.id, 'result');
  const act = (action: 'inspectInvocation' | 'resumeInvocation') => {
    if (!item.invocation_id || busy) return;
    setBusy(true);
    setError(null);
    call(action, { session_id: sessionId, invocation_id: item.invocation_id })
      .then(setResult, (e: unknown) => setError(caught(e)))
      .finally(() => setBusy(false));
  };
  const toolName = item.tool ?? item.function_name;
  const taskId = useSessions((s) => s.sessions.find((x) => x.session_id === sessionId)?.task_id ?? null);
  const task = useTasks((s) => (taskId ? (s.tasks[taskId] ?? null) : null));
  const breaches =
    item.feedback?.code === 'constraint_violation' && item.tool && item.authorization_ref
      ? constraintBreaches(
          { tool: item.tool, authorization_ref: item.authorization_ref },
          parseArguments(item.arguments_json) ?? {},
          task,
        )
      : [];
  const keyArgs = item.key_arguments ?? [];
  return (
    <article
      className={`tool-card tone-${cardTone(item.state)}`}
      aria-label={`${t('card.tool')} ${toolName}`}
      data-testid="tool-card"
      data-state={item.state}
    >
      <header className="card-head">
        <StateBadge state={item.state} testId="tool-card-state" />
        <span className="card-summary" data-testid="tool-card-summary">
          <strong>{toolName}</strong>
          {item.system_id && (
            <>
              {' '}
              · {item.system_name ?? item.system_id}{' '}
              <AuthorizationKindBadge authorizationRef={item.authorization_ref} />
            </>
          )}
          {keyArgs.map((a) => (
            <span key={a.name} className="key-arg">
              {' '}
              · {a.name} <span className="key-value">{a.value}</span>
            </span>
          ))}
        </span>
      </header>
      <div className="card-meta">
        <dl>
          {item.system_id && (
            <>
              <dt>{t('card.account')}</dt>
              <dd>{item.account}</dd>
            </>
          )}
          {item.invocation_id && (
            <>
              <dt>{t('card.invocation')}</dt>
              <dd>
                <code data-testid="tool-card-invocation">{item.invocation_id}</code>
              </dd>
            </>
          )}
        </dl>
        {(item.can_inspect || item.can_resume || (item.can_attest && item.invocation_id)) && (
          <div className="card-actions">
            {item.can_inspect && (
              <button type="button" onClick={() => act('inspectInvocation')} disabled={busy || !usable}>
                {t('card.inspect')}
              </button>
            )}
            {item.can_resume && (
              <button type="button" onClick={() => act('resumeInvocation')} disabled={busy || !usable}>
                {t('card.resume')}
              </button>
            )}
            {item.can_attest && item.invocation_id && (
              <AttestForm sessionId={sessionId} invocationId={item.invocation_id} onDone={setResult} />
            )}
          </div>
        )}
      </div>
      {item.masked && <p className="muted">{t('card.masked')}</p>}
      {item.arguments_json && (
        <details
          open={argsOpen}
          onToggle={(e) => setArgsOpen(e.currentTarget.open)}
          data-testid="tool-card-arguments"
        >
          <summary>{t('card.arguments')}</summary>
          <pre>{item.arguments_json}</pre>
        </details>
      )}
      {item.result_json && (
        <details
          open={resultOpen}
          onToggle={(e) => setResultOpen(e.currentTarget.open)}
          data-testid="tool-card-result"
        >
          <summary>{item.result_truncated ? t('card.resultCut') : t('card.result')}</summary>
          <pre>{item.result_json}</pre>
        </details>
      )}
      {item.settlement && (
        <p className="settlement" data-testid="tool-card-settlement">
          {t(`card.settled.${item.settlement.outcome}`)}{' '}
          {item.settlement.note && t('card.settledNote', { note: item.settlement.note })}
        </p>
      )}
      {item.reason && (
        <p className="muted" data-testid="tool-card-reason">
          <FeedbackText
            feedback={{
              category: 'outcome',
              code: item.reason.code,
              message: item.reason.message ?? item.reason.code,
              detail: item.reason.message,
            }}
          />
        </p>
      )}
      {item.late && <p className="muted">{t('card.late')}</p>}
      {breaches.length > 0 && (
        <ul className="state-bad breaches" data-testid="tool-card-breaches">
          {breaches.map((b) => (
            <li key={b.field}>
              {t(b.kind === 'name' ? 'card.breach.name' : 'card.breach.value', { field: b.field })}
            </li>
          ))}
        </ul>
      )}
      {item.feedback && (
        <p className={item.feedback.category === 'storage_error' ? 'state-bad' : 'muted'}>
          <FeedbackText feedback={item.feedback} />
        </p>
      )}
      {result && <ActionResult result={result} />}
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </article>
  );
}

export function ActionResult({ result }: { result: InvocationActionView }): React.JSX.Element {
  const t = useT();
  const label = useStateLabel();
  const shown = actionState(result);
  return (
    <div className="action-result" role="status">
      <div>
        {t('card.state')}:{' '}
        <strong data-testid="action-state">{shown.state ? label(shown.state) : '—'}</strong>
        {shown.source === 'feedback' && ` (${t('card.from_feedback')})`}
        {result.receipt && ` · ${t('card.dispatch')}: ${dispatchText(result.receipt.dispatch, t)}`}
        {` · ${t('storage.journal')}: ${t(`journalState.${result.journal_state}`)}`}
      </div>
      {result.feedback && (
        <div>
          <FeedbackText feedback={result.feedback} />
        </div>
      )}
      {result.feedback && result.feedback.next_action !== 'none' && (
        <div data-testid="action-next">
          {t('card.next')}: {nextActionText(result.feedback.next_action, t)}
        </div>
      )}
      {result.receipt?.result !== undefined && result.receipt?.result !== null && (
        <details>
          <summary>{t('common.result')}</summary>
          <pre>{JSON.stringify(result.receipt.result, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
