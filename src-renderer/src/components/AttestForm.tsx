/**
 * The operator's attestation of a call whose result is not known: what they found in the business
 * system ("it happened" / "it did not happen") and what they checked. The Hub settles the call from
 * it and sends nothing (docs/hub-api.md, attest). Shown on the card and in Needs attention.
 */
import React, { useState } from 'react';
import type { InvocationActionView } from '../../../src-shared/ipc/views.js';
import type { AttestationOutcome } from '../../../src-shared/states.js';
import { call } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { caught, message, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { hubUsable, useApp } from '../store/app.js';

export function AttestForm({
  sessionId,
  invocationId,
  onDone,
  onOpenChange,
}: {
  sessionId: string;
  invocationId: string;
  onDone: (result: InvocationActionView) => void;
  /** Told when the form opens and closes (a list row makes room for it). */
  onOpenChange?: (open: boolean) => void;
}): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const [open, setOpenState] = useState(false);
  const setOpen = (next: boolean) => {
    setOpenState(next);
    onOpenChange?.(next);
  };
  const [outcome, setOutcome] = useState<AttestationOutcome | null>(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ShownError | null>(null);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)} disabled={!usable}>
        {t('card.attest')}
      </button>
    );
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (busy || !outcome) return;
    if (note.trim() === '') {
      setError(message('attest.noteRequired'));
      return;
    }
    setBusy(true);
    setError(null);
    call('attestInvocation', {
      session_id: sessionId,
      invocation_id: invocationId,
      outcome,
      note: note.trim(),
    })
      .then(
        (r) => {
          setOpen(false);
          onDone(r);
        },
        (err: unknown) => setError(caught(err)),
      )
      .finally(() => setBusy(false));
  };
  const name = `attest-${invocationId}`;
  return (
    <form className="attest" onSubmit={submit} aria-label={t('attest.title')} data-testid="attest-form">
      <fieldset>
        <legend>{t('attest.title')}</legend>
        <label>
          <input
            type="radio"
            name={name}
            checked={outcome === 'succeeded'}
            onChange={() => setOutcome('succeeded')}
          />
          {t('attest.succeeded')}
        </label>
        <label>
          <input
            type="radio"
            name={name}
            checked={outcome === 'failed'}
            onChange={() => setOutcome('failed')}
          />
          {t('attest.failed')}
        </label>
      </fieldset>
      <label>
        {t('attest.note')}
        <textarea value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
      </label>
      <p className="muted">{t('attest.explain')}</p>
      <div className="row">
        <button type="submit" disabled={busy || !usable || !outcome}>
          {t('attest.confirm')}
        </button>
        <button type="button" onClick={() => setOpen(false)} disabled={busy}>
          {t('attest.cancel')}
        </button>
      </div>
      {error && <p role="alert">{t('common.error', { message: shownErrorText(error, t) })}</p>}
    </form>
  );
}
