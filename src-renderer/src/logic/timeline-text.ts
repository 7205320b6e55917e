/**
 * The words for one timeline entry in the current language, from its structured fields (kind,
 * state, task_action, reason_code; src-main/handlers/timeline.ts). Its `label` is the main
 * process's English sentence, shown as it came only when a field holds a value not known here
 * (never dropped).
 */
import type { TimelineEntry } from '../../../src-shared/ipc/views.js';
import { APPROVAL_STATES } from '../../../src-shared/states.js';
import { en, type MessageKey } from '../i18n/en.js';
import type { Translate } from '../i18n/index.js';

const isKey = (k: string): k is MessageKey => Object.prototype.hasOwnProperty.call(en, k);

export function timelineText(e: TimelineEntry, t: Translate, stateLabel: (state: string) => string): string {
  switch (e.kind) {
    case 'outcome':
      return e.state ? stateLabel(e.state) : e.label;
    case 'permit':
      return t('timeline.permit');
    case 'dispatch':
      return t('timeline.dispatch');
    case 'approval': {
      if (e.state === 'awaiting_approval') return t('timeline.awaitingApproval');
      const key = `approvalState.${e.state ?? ''}`;
      return e.state && (APPROVAL_STATES as readonly string[]).includes(e.state) && isKey(key)
        ? t('timeline.approval', { state: t(key) })
        : e.label;
    }
    case 'refusal':
      return e.reason_code ? t('timeline.refusalReason', { reason: e.reason_code }) : t('timeline.refusal');
    case 'control': {
      const key = `timeline.task.${e.task_action ?? ''}`;
      return e.task_action && isKey(key) ? t(key) : e.label;
    }
    default:
      return e.label;
  }
}
