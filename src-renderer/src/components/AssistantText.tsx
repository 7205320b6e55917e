/**
 * An assistant message: its text, its reasoning collapsed under "Thinking" (open it to read; it
 * says "Thinking…" while the model is still thinking), and, for a reply that broke off mid-stream,
 * why — worded from the code, the provider's words kept beside it.
 */
import React from 'react';
import type { ConversationItem } from '../../../src-shared/ipc/views.js';
import { useT } from '../i18n/use-t.js';
import { noticeWords } from '../logic/feedback-text.js';
import { useApp } from '../store/app.js';
import { MarkdownText } from './MarkdownText.js';

type Item = Extract<ConversationItem, { kind: 'assistant_text' }>;

export function AssistantText({ item }: { item: Item }): React.JSX.Element {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const thinkingNow = item.streaming && item.text.length === 0;
  const broke = item.interrupted
    ? noticeWords(
        { text: item.interrupted.code, code: item.interrupted.code, detail: item.interrupted.detail },
        lang,
      )
    : null;
  return (
    <>
      {item.reasoning && (
        <details className="thinking" data-testid="thinking">
          <summary>{thinkingNow ? t('conv.thinkingNow') : t('conv.thinking')}</summary>
          <p className="thinking-text" data-testid="thinking-text">
            {item.reasoning}
          </p>
        </details>
      )}
      {(item.text.length > 0 || !item.reasoning) && (
        <div aria-busy={item.streaming} className="assistant-text">
          <strong>{t('conv.assistant')}:</strong> <MarkdownText text={item.text} />
        </div>
      )}
      {broke && (
        <p className="state-bad" role="status" data-testid="reply-interrupted">
          {broke.text}
          {broke.detail && (
            <span className="feedback-detail">
              {t('feedback.original')}
              <span lang="en">{broke.detail}</span>
            </span>
          )}
        </p>
      )}
    </>
  );
}
