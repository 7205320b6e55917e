/**
 * The words for a call's feedback and for a conversation notice, in the current language, from
 * their structured fields. The main process writes an English `message` for every feedback; the
 * renderer words the feedback from its `code` (and `category`) instead and keeps that message
 * wherever it says more than the code can (a business system's or the Hub's own words, an OS
 * error, names and numbers). It never parses the English:
 *
 * - unknown code: the original message, as it came (never dropped);
 * - known code whose message is the code's fixed text (the sentence in codes-en.ts or a listed
 *   variant, compared case-insensitively): the code's sentence in the current language only;
 * - known code whose message is anything else: in English the message itself (it is English
 *   already and the most specific), in other languages the code's sentence plus the message as
 *   the detail.
 *
 * A call whose outcome is unknown because of a transport failure (category
 * `invocation_outcome_unknown` with a code naming the cause, e.g. hub_timeout) leads with the
 * outcome sentence and names the cause after it.
 */
import { STORAGE_TEXT } from '../i18n/codes-en.js';
import { en, type MessageKey } from '../i18n/en.js';
import { translator, type Lang } from '../i18n/index.js';

export interface FeedbackLike {
  category: string;
  code: string;
  message: string;
}

export interface Words {
  /** The sentence to show, in the current language (or the original text for an unknown code). */
  text: string;
  /** The original text kept because it says more than the code; null when it says nothing more. */
  detail: string | null;
  /** False when the renderer has no words for the code: `text` is then the original as it came. */
  known: boolean;
}

const isKey = (k: string): k is MessageKey => Object.prototype.hasOwnProperty.call(en, k);

/** Codes of category invocation_outcome_unknown whose own sentence already states the outcome. */
const STATES_OUTCOME = new Set(['invocation_not_found', 'interrupted', 'cancelled_after_send', 'runtime_error']);

/** Other fixed texts written for a code that mean no more than the code's sentence. */
const VARIANTS: Readonly<Record<string, readonly string[]>> = {
  // storageFeedback() writes one text for every journal code.
  invocation_store_conflict: [STORAGE_TEXT],
  invocation_record_invalid: [STORAGE_TEXT],
  invocation_record_too_large: [STORAGE_TEXT],
  invocation_record_corrupt: [STORAGE_TEXT],
  // The Hub's task boundary check (before the permit policy's longer text).
  task_cancelled: ['the task is cancelled'],
  turn_cancelled: ['The turn was cancelled; this call was not sent.'],
};

/** The catalog key of a feedback code, or null when the renderer has no words for it. */
export function codeKey(code: string): MessageKey | null {
  const direct = `code.${code}`;
  if (isKey(direct)) return direct;
  // outcomeUnknownFeedback: `http_<status>` when the Hub's error body had no code; a scope check
  // that could not reach the Hub: `hub_http_<status>[_<code>]` (scope/revalidate.ts).
  if (/^(hub_)?http_(\d{3}|error)(_[a-z_]+)?$/.test(code)) return 'code.http_status';
  // A session's blocked reason is `<code>:<authorization_ref>` (create-desk-runtime.ts).
  const colon = code.indexOf(':');
  if (colon > 0) {
    const base = `code.${code.slice(0, colon)}`;
    if (isKey(base)) return base;
  }
  return null;
}

const norm = (s: string): string => s.trim().replace(/\s+/g, ' ').replace(/\.$/, '').toLowerCase();

export function feedbackWords(fb: FeedbackLike, lang: Lang): Words {
  const key = codeKey(fb.code);
  if (!key) return { text: fb.message || fb.code, detail: null, known: false };
  const t = translator(lang);
  const lead = fb.category === 'invocation_outcome_unknown' && !STATES_OUTCOME.has(fb.code);
  const text = lead ? t('feedback.withCause', { outcome: t('feedback.outcomeUnknown'), cause: t(key) }) : t(key);
  const message = norm(fb.message);
  const standards = [en[key], ...(VARIANTS[fb.code] ?? []), ...(lead ? [en['feedback.outcomeUnknown']] : [])];
  if (message === '' || standards.some((s) => norm(s) === message)) return { text, detail: null, known: true };
  if (lang === 'en') return { text: fb.message, detail: null, known: true };
  return { text, detail: fb.message, known: true };
}

/**
 * A conversation notice arrives as text only (src-main/handlers/conversation.ts, relay.ts). A turn
 * that failed carries its error code as that text — `archive_storage_error`, or `model_error: …`
 * with the model server's own words after the colon. Such a text is worded from the code and the
 * words after the colon are kept as the detail; any other text (an English sentence such as
 * "Turn cancelled.") is shown as it came.
 */
export function noticeWords(text: string, lang: Lang): Words {
  const m = /^([a-z][a-z0-9_]*)(?::\s*([\s\S]*))?$/.exec(text.trim());
  const key = m ? `notice.${m[1] ?? ''}` : '';
  if (!m || !isKey(key)) return { text, detail: null, known: false };
  const rest = m[2]?.trim();
  return { text: translator(lang)(key), detail: rest ? rest : null, known: true };
}

/**
 * A reason a store or a scope is not usable, as the main process gives it (a journal or archive
 * code, a scope check's reason, `<code>:<authorization_ref>` for a blocked conversation): its
 * words in the current language followed by the code, or the reason as it came when it is not a
 * known code (e.g. an archive recovery gap's own description).
 */
export function reasonText(reason: string, lang: Lang): string {
  const colon = reason.indexOf(':');
  const key = `reason.${colon > 0 ? reason.slice(0, colon) : reason}`;
  if (!isKey(key)) return reason;
  const t = translator(lang);
  return t('reason.withCode', { reason: t(key), code: reason });
}
