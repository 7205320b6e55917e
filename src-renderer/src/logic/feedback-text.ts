/**
 * The words for a call's feedback, a conversation notice, a call's error and a reason, in the
 * current language, from their codes only (docs/design.md#errors). The main process writes an
 * English `message` for logs and developers; the renderer never reads it to decide anything:
 *
 * - a known code: the code's sentence in the current language, and beside it the words the code
 *   cannot carry — a feedback's `detail` (the Hub's or the business system's own words, the schema
 *   errors), an error's `cause.message` (the Hub's own message) — as they came;
 * - an unknown code (an older or newer main process): the original message, as it came (never dropped).
 *
 * A call whose outcome is unknown because of a transport failure (category
 * `invocation_outcome_unknown` with a code naming the cause, e.g. hub_timeout) leads with the
 * outcome sentence and names the cause after it.
 */
import type { AppErrorData } from '../../../src-shared/errors.js';
import { en, type MessageKey } from '../i18n/en.js';
import { translator, type Lang } from '../i18n/index.js';

export interface FeedbackLike {
  category: string;
  code: string;
  message: string;
  /** What the code cannot say (the Hub's own words, schema errors, names); null when nothing. */
  detail?: string | null;
}

export interface Words {
  /** The sentence to show, in the current language (or the original text for an unknown code). */
  text: string;
  /** Words from the source kept beside the sentence (the Hub's own message, ...); null when none. */
  detail: string | null;
  /** False when the renderer has no words for the code: `text` is then the original as it came. */
  known: boolean;
}

const isKey = (k: string): k is MessageKey => Object.prototype.hasOwnProperty.call(en, k);

/** Codes of category invocation_outcome_unknown whose own sentence already states the outcome. */
const STATES_OUTCOME = new Set([
  'invocation_not_found',
  'interrupted',
  'cancelled_after_send',
  'runtime_error',
]);

/** The catalog key of a feedback code, or null when the renderer has no words for it. */
export function codeKey(code: string): MessageKey | null {
  const key = `code.${code}`;
  return isKey(key) ? key : null;
}

const detailOf = (s: string | null | undefined): string | null => {
  const t = s?.trim();
  return t ? t : null;
};

export function feedbackWords(fb: FeedbackLike, lang: Lang): Words {
  const key = codeKey(fb.code);
  if (!key) return { text: fb.message || fb.code, detail: null, known: false };
  const t = translator(lang);
  const lead = fb.category === 'invocation_outcome_unknown' && !STATES_OUTCOME.has(fb.code);
  const text = lead
    ? t('feedback.withCause', { outcome: t('feedback.outcomeUnknown'), cause: t(key) })
    : t(key);
  return { text, detail: detailOf(fb.detail), known: true };
}

/** A conversation notice's fields (src-shared/ipc/views.ts, built by src-main/handlers/conversation.ts). */
export interface NoticeLike {
  text: string;
  code?: string | null;
  invocation_id?: string | null;
  detail?: string | null;
}

/**
 * A conversation notice, worded from its `code` (turn_cancelled, invocation_inspected, a turn's
 * error code such as model_error, …) with its invocation id in the sentence and its `detail` (the
 * model server's own words, say) kept beside it. A notice without a code, or with a code the
 * renderer has no words for, shows its `text` as it came (an older host, an older archive).
 */
export function noticeWords(notice: NoticeLike, lang: Lang): Words {
  const asCame: Words = { text: notice.text, detail: null, known: false };
  if (!notice.code) return asCame;
  const key = `notice.${notice.code}`;
  if (!isKey(key)) return asCame;
  // A sentence naming the invocation needs its id; without one the text says what it can.
  if (en[key].includes('{invocation_id}') && !notice.invocation_id) return asCame;
  const text = translator(lang)(key, { invocation_id: notice.invocation_id ?? '' });
  const detail = notice.detail?.trim();
  return { text, detail: detail ? detail : null, known: true };
}

/**
 * The words for an error a call to the main process returned (`{code, message, cause?}`): the
 * sentence of the Hub's own code when the Hub refused (its message kept beside it), else the
 * sentence of the error's code; an unknown code shows its message as it came.
 */
export function apiErrorWords(
  e: Pick<AppErrorData, 'message' | 'cause'> & { code: string },
  lang: Lang,
): Words {
  const t = translator(lang);
  const hubKey = e.cause ? codeKey(e.cause.error) : null;
  if (hubKey) return { text: t(hubKey), detail: detailOf(e.cause?.message), known: true };
  const key = `apiError.${e.code}`;
  if (!isKey(key)) return { text: e.message || e.code, detail: null, known: false };
  return { text: t(key), detail: detailOf(e.cause?.message), known: true };
}

/** An error as one line: the sentence, then the source's own words where there are any. */
export function apiErrorText(
  e: Pick<AppErrorData, 'message' | 'cause'> & { code: string },
  lang: Lang,
): string {
  const w = apiErrorWords(e, lang);
  if (!w.detail) return w.text;
  return `${w.text}${lang === 'zh' ? '' : ' '}${translator(lang)('feedback.original')}${w.detail}`;
}

/**
 * A reason a store or a scope is not usable, as the main process gives it (a journal or archive
 * code, a scope check's reason): its words in the current language followed by the code, or the
 * reason as it came when it is not a known code (e.g. an archive recovery gap's own description).
 */
export function reasonText(reason: string, lang: Lang): string {
  const key = `reason.${reason}`;
  if (!isKey(key)) return reason;
  const t = translator(lang);
  return t('reason.withCode', { reason: t(key), code: reason });
}
