/**
 * The idle panel: every unresolved invocation across sessions, the journal state and the archive
 * state side by side, unsaved records in red until resolved. Virtualised so 10,000 rows stay fast.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import React, { useEffect, useRef, useState } from 'react';
import { create } from 'zustand';
import type { InvocationActionView, UnresolvedItem } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';
import { useStateLabel, useT } from '../i18n/use-t.js';
import type { Translate } from '../i18n/index.js';
import { reasonText } from '../logic/feedback-text.js';
import { hubUsable, useApp } from '../store/app.js';
import { useUnresolved } from '../store/unresolved.js';
import { ActionResult } from './ToolCallCard.js';
import { AttestForm } from './AttestForm.js';
import { StateBadge } from './StateBadge.js';
import { AuthorizationKindBadge } from './KindBadge.js';
import { useSessions } from '../store/sessions.js';
import { caught, shownErrorText, type ShownError } from '../logic/shown-error.js';

const ROW_HEIGHT = 64;
/** A row showing an action's result or the attestation form (it scrolls inside when longer). */
const OPEN_ROW_HEIGHT = 320;

/** Rows opened by an action (fixed heights keep the virtual window exact, also without layout). */
const useOpenRows = create<{ open: Record<string, boolean>; set(key: string, open: boolean): void }>(
  (set) => ({
    open: {},
    set: (key, open) => set((s) => (s.open[key] === open ? s : { open: { ...s.open, [key]: open } })),
  }),
);
const rowKey = (item: Pick<UnresolvedItem, 'session_id' | 'invocation_id'>) =>
  `${item.session_id}:${item.invocation_id}`;

export function IdlePanel(): React.JSX.Element {
  const t = useT();
  const items = useUnresolved((s) => s.items);
  const parentRef = useRef<HTMLDivElement>(null);
  const openRows = useOpenRows((s) => s.open);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => parentRef.current,
    estimateSize: (i) => {
      const item = items[i];
      return item && openRows[rowKey(item)] ? OPEN_ROW_HEIGHT : ROW_HEIGHT;
    },
    overscan: 8,
    initialRect: { width: 800, height: 600 },
  });
  // A row opened or closed: its height changed, so the window's offsets are recomputed.
  useEffect(() => virtualizer.measure(), [openRows, virtualizer]);
  return (
    <section className="idle" aria-labelledby="idle-title">
      <h2 id="idle-title">
        {t('idle.title')}{' '}
        <span className="badge" data-testid="idle-count">
          {t('idle.count', { n: items.length })}
        </span>
      </h2>
      {items.length === 0 ? (
        <p className="muted">{t('idle.empty')}</p>
      ) : (
        <div
          ref={parentRef}
          className="idle-scroll"
          role="list"
          aria-label={t('idle.title')}
          data-testid="idle-list"
        >
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative', width: '100%' }}>
            {virtualizer.getVirtualItems().map((row) => {
              const item = items[row.index];
              if (!item) return null;
              return (
                <div
                  key={`${item.session_id}:${item.invocation_id}`}
                  role="listitem"
                  className="idle-row-wrap"
                  style={{
                    position: 'absolute',
                    top: 0,
                    left: 0,
                    width: '100%',
                    height: row.size,
                    overflow: 'auto',
                    transform: `translateY(${row.start}px)`,
                  }}
                >
                  <IdleRow item={item} />
                </div>
              );
            })}
          </div>
        </div>
      )}
    </section>
  );
}

function IdleRow({ item }: { item: UnresolvedItem }): React.JSX.Element {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const label = useStateLabel();
  const usable = useApp(hubUsable);
  const [result, setResult] = useState<InvocationActionView | null>(null);
  const [error, setError] = useState<ShownError | null>(null);
  const [busy, setBusy] = useState(false);
  const [attesting, setAttesting] = useState(false);
  const setOpen = useOpenRows((s) => s.set);
  const key = rowKey(item);
  useEffect(() => setOpen(key, result !== null || attesting), [key, result, attesting, setOpen]);
  const act = (name: 'inspectInvocation' | 'resumeInvocation') => {
    if (busy) return;
    setBusy(true);
    setError(null);
    call(name, { session_id: item.session_id, invocation_id: item.invocation_id })
      .then(setResult, (e: unknown) => setError(caught(e)))
      .finally(() => setBusy(false));
  };
  const openConversation = () => {
    useApp.getState().setView('conversations');
    void useSessions.getState().open(item.session_id);
  };
  const bad = item.unsaved || item.journal_state === 'storage_error' || item.archive_state !== 'ready';
  return (
    <div className={`idle-row ${bad ? 'state-bad' : ''}`} data-testid="idle-row">
      <div className="idle-main">
        <strong>{item.tool || '—'}</strong>{' '}
        <AuthorizationKindBadge authorizationRef={item.authorization_ref} /> ·{' '}
        <StateBadge state={idleHeadlineState(item)} testId="idle-state" /> · <code>{item.invocation_id}</code>
        <div className="muted">
          {t('idle.session')}:{' '}
          <button
            type="button"
            className="link"
            onClick={openConversation}
            title={t('idle.openConversation')}
          >
            {item.session_title}
          </button>{' '}
          · {t('idle.journalEntry')}:{' '}
          <span data-testid="idle-journal-entry">
            {journalEntryWords(item.journal_entry_state, t, label)}
          </span>
          {item.unsaved && (
            <span className="state-bad">
              {' '}
              · {t('idle.unsaved', { reason: reasonText(item.unsaved_reason ?? '', lang) })}
            </span>
          )}
        </div>
      </div>
      <div className="idle-states">
        <span className={item.journal_state === 'ready' ? 'state-ok' : 'state-bad'}>
          {t('storage.journal')}: {t(`journalState.${item.journal_state}`)}
        </span>
        <span className={item.archive_state === 'ready' ? 'state-ok' : 'state-bad'}>
          {t('storage.archive')}: {t(`archiveState.${item.archive_state}`)}
        </span>
      </div>
      <div className="idle-actions">
        {item.can_inspect && (
          <button type="button" onClick={() => act('inspectInvocation')} disabled={!usable || busy}>
            {t('card.inspect')}
          </button>
        )}
        {item.can_resume && (
          <button type="button" onClick={() => act('resumeInvocation')} disabled={!usable || busy}>
            {t('card.resume')}
          </button>
        )}
        {item.can_attest && (
          <AttestForm
            sessionId={item.session_id}
            invocationId={item.invocation_id}
            onDone={setResult}
            onOpenChange={setAttesting}
          />
        )}
      </div>
      {result && <ActionResult result={result} />}
      {error && <span role="alert">{shownErrorText(error, t)}</span>}
    </div>
  );
}

/** The journal entry's state in words: a saved fence no receipt answered may have left the host. */
export function journalEntryWords(state: string, t: Translate, label: (state: string) => string): string {
  if (state === 'pending_dispatch') return t('idle.fenceSaved');
  if (state === 'unsaved') return t('idle.entryUnsaved');
  return label(state);
}

/**
 * The state an idle row leads with. A saved dispatch fence that no Hub receipt has answered is not
 * "saving" any more: the host stopped before it knew whether the request reached the Hub, so the
 * honest headline is "Result needs checking" (the journal detail line still says pending_dispatch).
 */
export function idleHeadlineState(item: Pick<UnresolvedItem, 'hub_state' | 'journal_entry_state'>): string {
  if (item.hub_state) return item.hub_state;
  return item.journal_entry_state === 'pending_dispatch' ? 'unknown' : item.journal_entry_state;
}
