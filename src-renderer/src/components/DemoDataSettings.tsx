/**
 * Settings' "Demo data" (only when the app runs its embedded local Hub with the demo systems):
 * where their business data is kept, any system whose data file cannot be used, and "Reset demo
 * data" — which says what it does, asks for confirmation, and answers next to its button.
 */
import React, { useEffect, useState } from 'react';
import type { DemoDataResetView, DemoDataView } from '../../../src-shared/ipc/demo-data-views.js';
import { call, errorText } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { ConfirmPanel } from './ConfirmPanel.js';

type Answer = { ok: boolean; lines: string[] };

export function DemoDataSettings(): React.JSX.Element | null {
  const t = useT();
  const [view, setView] = useState<DemoDataView | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);

  useEffect(() => {
    let live = true;
    call('getDemoData', {}).then(
      (v) => live && setView(v),
      () => live && setView(null),
    );
    return () => {
      live = false;
    };
  }, []);
  if (!view?.available) return null;

  const describe = (r: DemoDataResetView): Answer => {
    const done = r.systems.filter((s) => s.reset).map((s) => s.name);
    const failed = r.systems.filter((s) => !s.reset).map((s) => s.name);
    return {
      ok: failed.length === 0,
      lines: [
        ...(done.length > 0 ? [t('demoData.done', { systems: done.join(', ') })] : []),
        ...(failed.length > 0 ? [t('demoData.failed', { systems: failed.join(', ') })] : []),
        ...r.systems
          .filter((s) => s.set_aside)
          .map((s) => t('demoData.setAside', { system: s.name, file: s.set_aside ?? '' })),
      ],
    };
  };
  const reset = () => {
    setConfirming(false);
    setBusy(true);
    setAnswer(null);
    call('resetDemoData', { confirm: true })
      .then(
        (r) => {
          setAnswer(describe(r));
          return call('getDemoData', {}).then(setView);
        },
        (e: unknown) => setAnswer({ ok: false, lines: [t('common.error', { message: errorText(e) })] }),
      )
      .finally(() => setBusy(false));
  };
  const problems = view.systems.filter((s) => s.state !== 'ok');

  return (
    <section className="card" aria-labelledby="demo-data-title" data-testid="demo-data">
      <h3 id="demo-data-title">{t('demoData.title')}</h3>
      <p className="muted">{t('demoData.where', { dir: view.dir ?? '' })}</p>
      {problems.map((s) => (
        <p key={s.system_id} className="state-bad" role="status" data-testid="demo-data-problem">
          {t('demoData.problem', { system: s.name, state: t(`demoData.state.${s.state}`) })}
          {s.detail && (
            <>
              {' '}
              <code lang="en">{s.detail}</code>
            </>
          )}
        </p>
      ))}
      <div className="row">
        <button
          type="button"
          onClick={() => setConfirming(true)}
          disabled={busy || confirming}
          aria-expanded={confirming}
        >
          {t('demoData.reset')}
        </button>
        {busy && <span role="status">{t('demoData.resetting')}</span>}
        {answer && (
          <span role="status" className={answer.ok ? 'state-ok' : 'state-bad'} data-testid="demo-data-answer">
            {answer.lines.join(' ')}
          </span>
        )}
      </div>
      {confirming && (
        <ConfirmPanel
          label={t('demoData.reset')}
          text={t('demoData.confirmText')}
          confirmLabel={t('demoData.confirm')}
          cancelLabel={t('demoData.cancel')}
          onConfirm={reset}
          onCancel={() => setConfirming(false)}
          testId="demo-data-confirm"
        />
      )}
    </section>
  );
}
