/**
 * An error a component shows, kept as what happened (the caught error, or a message key) rather
 * than as words, so it is worded at render time in the current language: switching the language
 * re-words an error already on screen.
 */
import { errorText } from '../api-client.js';
import type { MessageKey } from '../i18n/en.js';
import type { Translate } from '../i18n/index.js';

export type ShownError =
  | { kind: 'caught'; error: unknown }
  | { kind: 'message'; key: MessageKey; params?: Record<string, string | number> };

export const caught = (error: unknown): ShownError => ({ kind: 'caught', error });

export const message = (key: MessageKey, params?: Record<string, string | number>): ShownError => ({
  kind: 'message',
  key,
  ...(params ? { params } : {}),
});

/** The words for the error in the language `t` speaks (errorText reads the current language too). */
export function shownErrorText(e: ShownError, t: Translate): string {
  return e.kind === 'caught' ? errorText(e.error) : t(e.key, e.params);
}
