/** One tool call: tool, system and account, state label, invocation id, Inspect / Resume when eligible. */
import React, { useState } from 'react';
import type { ConversationItem, InvocationActionView } from '../../../src-shared/ipc/views.js';
import { isProblemState } from '../../../src-shared/states.js';
import { call } from '../api-client.js';
import { useStateLabel, useT } from '../i18n/use-t.js';
import { actionState, dispatchText, nextActionText } from '../logic/action-state.js';
import { FeedbackText } from './CodedText.js';
import { hubUsable, useApp } from '../store/app.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';

type ToolCall = Extract<ConversationItem, { kind: 'tool_call' }>;

export function ToolCallCard({ item, sessionId }: { item: ToolCall; sessionId: string }): React.JSX.Element {
  const t = useT();
  const label = useStateLabel();
  const usable = useApp(hubUsable);
  const [result, setResult] = useState<InvocationActionView | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);
  const act = (action: 'inspectInvocation' | 'resumeInvocation') => {
    if (!item.invocation_id) return;
    setBusy(true);
    setError(null);
    call(action, { session_id: sessionId, invocation_id: item.invocation_id })
      .then(setResult, (e: unknown) => setError(caught(e)))
      .finally(() => setBusy(false));
  };
  return (
    <article
      className="tool-card"
      aria-label={`${t('card.tool')} ${item.tool ?? item.function_name}`}
      data-testid="tool-card"
    >
      <dl>
        <dt>{t('card.tool')}</dt>
        <dd>{item.tool ?? item.function_name}</dd>
        {item.system_id && (
          <>
            <dt>{t('card.system')}</dt>
            <dd>{item.system_name ?? item.system_id}</dd>
            <dt>{t('card.account')}</dt>
            <dd>{item.account}</dd>
          </>
        )}
        <dt>{t('card.state')}</dt>
        <dd className={isProblemState(item.state) ? 'state-bad' : 'state-ok'} data-testid="tool-card-state">
          {label(item.state)}
        </dd>
        {item.invocation_id && (
          <>
            <dt>{t('card.invocation')}</dt>
            <dd>
              <code>{item.invocation_id}</code>
            </dd>
          </>
        )}
      </dl>
      {item.late && <p className="muted">{t('card.late')}</p>}
      {item.feedback && (
        <p className={item.feedback.category === 'storage_error' ? 'state-bad' : 'muted'}>
          <FeedbackText feedback={item.feedback} />
        </p>
      )}
      <div className="row">
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
      </div>
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
        {` · ${t('storage.journal')}: ${result.journal_state}`}
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
