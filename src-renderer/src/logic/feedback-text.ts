/**
 * The words for a call's feedback, a conversation notice and a call's error, in the current language, from
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
const STATES_OUTCOME = new Set([
  'invocation_not_found',
  'interrupted',
  'cancelled_after_send',
  'runtime_error',
]);

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
  const text = lead
    ? t('feedback.withCause', { outcome: t('feedback.outcomeUnknown'), cause: t(key) })
    : t(key);
  const message = norm(fb.message);
  const standards = [en[key], ...(VARIANTS[fb.code] ?? []), ...(lead ? [en['feedback.outcomeUnknown']] : [])];
  if (message === '' || standards.some((s) => norm(s) === message))
    return { text, detail: null, known: true };
  if (lang === 'en') return { text: fb.message, detail: null, known: true };
  return { text, detail: fb.message, known: true };
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

/** Fixed texts of the main process and the transports that say more than their error code. */
const SPECIFIC_ERRORS: Readonly<Record<string, MessageKey>> = {
  [norm(en['apiError.text.no_such_conversation'])]: 'apiError.text.no_such_conversation',
  [norm(en['apiError.text.turn_running'])]: 'apiError.text.turn_running',
  [norm(en['apiError.text.hub_needed'])]: 'apiError.text.hub_needed',
  [norm(en['apiError.text.cannot_approve'])]: 'apiError.text.cannot_approve',
  [norm(en['apiError.text.host_closed'])]: 'apiError.text.host_closed',
  [norm(en['apiError.text.no_such_attachment'])]: 'apiError.text.no_such_attachment',
};

/** Other fixed texts written for an error code that mean no more than the code's sentence. */
const ERROR_VARIANTS: Readonly<Record<string, readonly string[]>> = {
  // dispatch.ts and the browser host's frame checks.
  invalid_payload: [
    'The payload is not plain JSON.',
    'Text frames only.',
    'Not JSON.',
    'Malformed call frame.',
  ],
  payload_too_large: ['The response is too large to send.'],
};

/** Error codes whose message starts with the Hub's own code (`task_state_conflict: …`, src-main/handlers/errors.ts). */
const HUB_PREFIXED = new Set(['conflict', 'not_found', 'hub_error']);

/**
 * The words for an error a call to the main process returned (`{error, message}`), by the same
 * rule as a feedback: an unknown code shows its message as it came; a known code whose message is
 * a fixed text shows its sentence in the current language; a message that says more is kept — in
 * English as it came (it is English already), in other languages as the detail of the code's
 * sentence. A Hub code at the head of the message is worded as that code.
 */
export function apiErrorWords(code: string, message: string, lang: Lang): Words {
  const t = translator(lang);
  const english = lang === 'en' && message.trim() !== '';
  const hub = HUB_PREFIXED.has(code) ? /^([a-z][a-z0-9_]*): ([\s\S]+)$/.exec(message) : null;
  if (hub?.[1] && hub[2] && codeKey(hub[1])) {
    if (english) return { text: message, detail: null, known: true };
    return feedbackWords({ category: '', code: hub[1], message: hub[2] }, lang);
  }
  const specific = SPECIFIC_ERRORS[norm(message)];
  if (specific) return { text: english ? message : t(specific), detail: null, known: true };
  const key = `apiError.${code}`;
  if (!isKey(key)) return { text: message || code, detail: null, known: false };
  if (english) return { text: message, detail: null, known: true };
  const m = norm(message);
  if (m === '' || [en[key], ...(ERROR_VARIANTS[code] ?? [])].some((s) => norm(s) === m))
    return { text: t(key), detail: null, known: true };
  return { text: t(key), detail: message, known: true };
}

/** An error as one line: the sentence, then the original message where it says more. */
export function apiErrorText(code: string, message: string, lang: Lang): string {
  const w = apiErrorWords(code, message, lang);
  if (!w.detail) return w.text;
  return `${w.text}${lang === 'zh' ? '' : ' '}${translator(lang)('feedback.original')}${w.detail}`;
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
