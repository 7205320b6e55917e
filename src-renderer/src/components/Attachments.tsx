/**
 * Attachments in the conversation: the composer's pending files as removable chips, a message's
 * attachments as chips, and a chip's preview (the text fetched with getAttachment, shown as text
 * in a scrollable monospace dialog; Escape or Close closes it and focus returns to the chip).
 */
import React, { useEffect, useId, useRef, useState } from 'react';
import type { AttachmentView } from '../../../src-shared/ipc/views.js';
import { call, errorText } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { sizeText } from '../logic/attachment-text.js';
import type { PendingAttachment } from '../logic/attachments.js';

export function PendingAttachments(props: {
  items: readonly PendingAttachment[];
  onRemove: (key: string) => void;
}): React.JSX.Element | null {
  const t = useT();
  if (props.items.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label={t('attach.pending')} data-testid="pending-attachments">
      {props.items.map((a) => (
        <li key={a.key} className="chip" data-testid="pending-chip">
          <span className="chip-name">{a.name}</span>{' '}
          <span className="muted">{sizeText(a.size_bytes, t)}</span>
          <button
            type="button"
            className="chip-remove"
            aria-label={t('attach.remove', { name: a.name })}
            onClick={() => props.onRemove(a.key)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

export function MessageAttachments(props: {
  sessionId: string;
  items: readonly AttachmentView[];
}): React.JSX.Element | null {
  const t = useT();
  const [open, setOpen] = useState<AttachmentView | null>(null);
  const chips = useRef(new Map<string, HTMLButtonElement>());
  if (props.items.length === 0) return null;
  const close = () => {
    const id = open?.attachment_id;
    setOpen(null);
    if (id) chips.current.get(id)?.focus();
  };
  return (
    <>
      <ul className="attachment-chips" aria-label={t('attach.list')}>
        {props.items.map((a) => (
          <li key={a.attachment_id}>
            <button
              type="button"
              className="chip"
              data-testid="attachment-chip"
              aria-haspopup="dialog"
              title={t('attach.open', { name: a.name })}
              ref={(el) => {
                if (el) chips.current.set(a.attachment_id, el);
                else chips.current.delete(a.attachment_id);
              }}
              onClick={() => setOpen(a)}
            >
              <span className="chip-name">{a.name}</span> · {a.media_type} · {sizeText(a.size_bytes, t)}
            </button>
          </li>
        ))}
      </ul>
      {open && <AttachmentPreview sessionId={props.sessionId} attachment={open} onClose={close} />}
    </>
  );
}

type Loaded = { state: 'loading' } | { state: 'text'; text: string } | { state: 'error'; error: unknown };

export function AttachmentPreview(props: {
  sessionId: string;
  attachment: AttachmentView;
  onClose: () => void;
}): React.JSX.Element {
  const t = useT();
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement>(null);
  const dialogRef = useRef<HTMLDivElement>(null);
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const { sessionId, attachment, onClose } = props;
  const attachmentId = attachment.attachment_id;

  useEffect(() => {
    let live = true;
    setLoaded({ state: 'loading' });
    call('getAttachment', { session_id: sessionId, attachment_id: attachmentId }).then(
      (r) => live && setLoaded({ state: 'text', text: r.text }),
      (error: unknown) => live && setLoaded({ state: 'error', error }),
    );
    return () => {
      live = false;
    };
  }, [sessionId, attachmentId]);

  // The latest onClose, so a parent's re-render (a streamed reply) neither re-runs nor refocuses.
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  useEffect(() => {
    closeRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        onCloseRef.current();
        return;
      }
      // A modal dialog: Tab and Shift+Tab cycle through its own controls.
      const box = dialogRef.current;
      if (e.key !== 'Tab' || !box) return;
      const stops = [...box.querySelectorAll<HTMLElement>('button, [tabindex="0"]')];
      const first = stops[0];
      const last = stops[stops.length - 1];
      if (!first || !last) return;
      const at = document.activeElement;
      if (e.shiftKey && (at === first || !box.contains(at))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (at === last || !box.contains(at))) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const title = t('attach.preview', { name: attachment.name });
  return (
    <div className="attachment-backdrop">
      <div
        ref={dialogRef}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        className="attachment-dialog"
        data-testid="attachment-preview"
      >
        <header className="attachment-dialog-head">
          <h3 id={titleId}>{title}</h3>
          <span className="muted">
            {attachment.media_type} · {sizeText(attachment.size_bytes, t)}
          </span>
          <button type="button" ref={closeRef} onClick={onClose}>
            {t('common.close')}
          </button>
        </header>
        {loaded.state === 'loading' && <p role="status">{t('attach.loading')}</p>}
        {loaded.state === 'error' && (
          <p role="alert">{t('common.error', { message: errorText(loaded.error) })}</p>
        )}
        {loaded.state === 'text' && (
          // The text as text: React escapes it; never parsed as HTML or Markdown.
          <pre className="attachment-text" tabIndex={0} aria-label={title} data-testid="attachment-text">
            {loaded.text}
          </pre>
        )}
      </div>
    </div>
  );
}
