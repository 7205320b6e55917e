/** Approvals: approval and execution are shown as two separate facts; approving runs nothing. */
import React, { useState } from 'react';
import type { ApprovalView, InvocationActionView } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';
import { useSessions } from '../store/sessions.js';
import { ActionResult } from './ToolCallCard.js';
import { StateBadge } from './StateBadge.js';
import { useT } from '../i18n/use-t.js';
import { hubUsable, useApp } from '../store/app.js';
import { useApprovals } from '../store/approvals.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { AuthorizationKindBadge } from './KindBadge.js';

export function ApprovalsView(): React.JSX.Element {
  const t = useT();
  const canApprove = useApprovals((s) => s.canApprove);
  const approvals = useApprovals((s) => s.approvals);
  return (
    <section aria-labelledby="approvals-title">
      <h2 id="approvals-title">{t('approvals.title')}</h2>
      {!canApprove ? (
        <p className="muted">{t('approvals.notAllowed')}</p>
      ) : (
        <>
          <p className="muted">{t('approvals.note')}</p>
          {approvals.length === 0 && <p className="muted">{t('approvals.empty')}</p>}
          <ul className="approvals">
            {approvals.map((a) => (
              <ApprovalRow key={a.approval_id} approval={a} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ApprovalRow({ approval }: { approval: ApprovalView }): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const execution = approval.execution_state;
  const [error, setError] = useState<ShownError | null>(null);
  const [result, setResult] = useState<InvocationActionView | null>(null);
  const [busy, setBusy] = useState(false);
  const sessionId = approval.session_id ?? null;
  const known = useSessions((s) => sessionId !== null && s.sessions.some((x) => x.session_id === sessionId));
  const resume = () => {
    if (!sessionId || busy) return;
    setBusy(true);
    setError(null);
    call('resumeInvocation', { session_id: sessionId, invocation_id: approval.invocation_id })
      .then(setResult, (e: unknown) => setError(caught(e)))
      .finally(() => setBusy(false));
  };
  const openConversation = () => {
    if (!sessionId) return;
    useApp.getState().setView('conversations');
    void useSessions.getState().open(sessionId);
  };
  const decide = (d: 'approve' | 'deny') => {
    setError(null);
    useApprovals
      .getState()
      .decide(approval.approval_id, d)
      .catch((e: unknown) => setError(caught(e)));
  };
  return (
    <li className="card" data-testid="approval">
      <div>
        <strong>{approval.tool}</strong> ·{' '}
        <span data-testid="approval-system">{approval.system_name ?? approval.authorization_ref}</span>{' '}
        <AuthorizationKindBadge authorizationRef={approval.authorization_ref} /> ·{' '}
        <code>{approval.invocation_id}</code>
        {known && (
          <>
            {' '}
            ·{' '}
            <button type="button" className="link" onClick={openConversation}>
              {t('idle.openConversation')}
            </button>
          </>
        )}
      </div>
      {approval.prompt && <p>{approval.prompt}</p>}
      {approval.arguments_preview && <pre>{JSON.stringify(approval.arguments_preview, null, 2)}</pre>}
      <p>{t('approvals.approval', { state: t(`approvalState.${approval.state}`) })}</p>
      <p data-testid="approval-execution-line">
        {execution ? (
          <>
            {t('approvals.executionLabel')}: <StateBadge state={execution} testId="approval-execution" />
          </>
        ) : (
          t('approvals.executionUnknown')
        )}
      </p>
      {approval.state === 'pending' && (
        <div className="row">
          <button type="button" onClick={() => decide('approve')} disabled={!usable}>
            {t('approvals.approve')}
          </button>
          <button type="button" className="danger" onClick={() => decide('deny')} disabled={!usable}>
            {t('approvals.deny')}
          </button>
        </div>
      )}
      {known && execution === 'approved' && (
        <div className="row">
          <button type="button" onClick={resume} disabled={!usable || busy}>
            {t('card.resume')}
          </button>
        </div>
      )}
      {result && <ActionResult result={result} />}
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </li>
  );
}
