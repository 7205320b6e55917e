/**
 * The state an inspect/resume result shows. The receipt's state when there is one; without a
 * receipt, the state the feedback establishes: the Hub's authoritative `invocation_not_found`
 * means the original outcome is unverified (docs/journal.md#failure-rules-and-feedback), and a sent call with no confirmed answer is
 * unknown. Anything else concludes nothing (null): no state is invented, least of all success.
 */
import type { InvocationActionView } from '../../../src-shared/ipc/views.js';
import { en, type MessageKey } from '../i18n/en.js';
import type { Translate } from '../i18n/index.js';

export interface ActionState {
  state: string | null;
  source: 'receipt' | 'feedback' | 'none';
}

export function actionState(result: Pick<InvocationActionView, 'receipt' | 'feedback'>): ActionState {
  if (result.receipt) return { state: result.receipt.state, source: 'receipt' };
  const f = result.feedback;
  if (f && f.code === 'invocation_not_found') return { state: 'unverified', source: 'feedback' };
  if (f && f.category === 'invocation_outcome_unknown') return { state: 'unknown', source: 'feedback' };
  return { state: null, source: 'none' };
}

const isKey = (k: string): k is MessageKey => Object.prototype.hasOwnProperty.call(en, k);

/** "inspect_original" -> "inspect original" (or its words in the current language). An unknown code is shown as its words. */
export function nextActionText(nextAction: string, t?: Translate): string {
  const key = `next.${nextAction}`;
  return t && isKey(key) ? t(key) : nextAction.replace(/_/g, ' ');
}

/** The receipt's dispatch evidence (none / attempted / confirmed) in the current language. */
export function dispatchText(dispatch: string, t: Translate): string {
  const key = `dispatch.${dispatch}`;
  return isKey(key) ? t(key) : dispatch;
}
