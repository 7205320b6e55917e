/** Journal and archive state side by side; a failure is red and stays until it is resolved. */
import React, { useState } from 'react';
import type { StorageView } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { reasonText } from '../logic/feedback-text.js';
import { useApp } from '../store/app.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';

export function StorageBar({
  sessionId,
  storage,
}: {
  sessionId: string;
  storage: StorageView | null;
}): React.JSX.Element | null {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const [error, setError] = useState<ShownError | null>(null);
  if (!storage) return null;
  const jBad = storage.journal.state === 'storage_error' || storage.journal.unsaved_records > 0;
  const aBad = storage.archive.state !== 'ready' || storage.archive.unsaved_events > 0;
  const restore = () => {
    setError(null);
    call('restoreJournal', { session_id: sessionId }).catch((e: unknown) => setError(caught(e)));
  };
  return (
    <div className="storage-bar" aria-label={`${t('storage.journal')} / ${t('storage.archive')}`}>
      <div className={`storage-cell ${jBad ? 'state-bad' : 'state-ok'}`} data-testid="journal-state">
        <strong>{t('storage.journal')}</strong> {t(`journalState.${storage.journal.state}`)}
        {storage.journal.unsaved_records > 0 && (
          <span> · {t('storage.unsaved', { count: storage.journal.unsaved_records })}</span>
        )}
        {jBad && (
          <>
            <div role="alert">
              {t('storage.error', {
                reason: reasonText(storage.journal.reason ?? storage.journal.state, lang),
              })}
            </div>
            <button type="button" onClick={restore}>
              {t('storage.restore')}
            </button>
          </>
        )}
      </div>
      <div className={`storage-cell ${aBad ? 'state-bad' : 'state-ok'}`} data-testid="archive-state">
        <strong>{t('storage.archive')}</strong> {t(`archiveState.${storage.archive.state}`)}
        {storage.archive.unsaved_events > 0 && (
          <span> · {t('storage.unsaved', { count: storage.archive.unsaved_events })}</span>
        )}
        {aBad && (
          <div role="alert">
            {t('storage.error', {
              reason: reasonText(storage.archive.reason ?? storage.archive.state, lang),
            })}
          </div>
        )}
      </div>
      {error && <div role="alert">{t('common.error', { message: shownErrorText(error, t) })}</div>}
    </div>
  );
}
