/** A call's feedback and a conversation notice, worded in the current language (logic/feedback-text.ts). */
import React from 'react';
import { useT } from '../i18n/use-t.js';
import {
  feedbackWords,
  noticeWords,
  type FeedbackLike,
  type NoticeLike,
  type Words,
} from '../logic/feedback-text.js';
import { useApp } from '../store/app.js';

function Detail({ words, lang }: { words: Words; lang?: string }): React.JSX.Element | null {
  const t = useT();
  if (!words.detail) return null;
  return (
    <span className="feedback-detail" data-testid="feedback-detail">
      {t('feedback.original')}
      <span lang={lang}>{words.detail}</span>
    </span>
  );
}

/**
 * The sentence for a call's feedback, then the original message where it says more than the code.
 * The code itself is shown only when the renderer has no words for it (the original message then
 * stands as it came); otherwise it is kept on the element (`data-code`, its tooltip) for support,
 * so no English identifier sits in a sentence of another language.
 */
export function FeedbackText({ feedback }: { feedback: FeedbackLike }): React.JSX.Element {
  const lang = useApp((s) => s.lang);
  const words = feedbackWords(feedback, lang);
  return (
    <span className="feedback" data-testid="feedback" data-code={feedback.code} title={feedback.code}>
      {!words.known && (
        <>
          <span className="feedback-code">{feedback.code}</span>:{' '}
        </>
      )}
      <span data-testid="feedback-text">{words.text}</span>
      {/* The main process writes its messages in English. */}
      <Detail words={words} lang="en" />
    </span>
  );
}

/** A notice worded from its code (with its invocation id and detail), or its text as it came. */
export function NoticeText({ notice }: { notice: NoticeLike }): React.JSX.Element {
  const lang = useApp((s) => s.lang);
  const words = noticeWords(notice, lang);
  return (
    <span data-testid="notice">
      {words.text}
      <Detail words={words} />
    </span>
  );
}
