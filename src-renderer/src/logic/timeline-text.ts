/**
 * The words for one timeline entry in the current language. The entry's kind, state and tool are
 * structured; its `label` is an English sentence made by the main process
 * (src-main/handlers/timeline.ts: "Task paused", "Approval approved", "Not dispatched (task_paused)").
 * The text is built from the structured fields where they say enough, and from the known label
 * shapes otherwise (a task action word, a refusal reason code in parentheses). A label of a shape
 * not known here is shown as it came, never dropped.
 */
import type { TimelineEntry } from '../../../src-shared/ipc/views.js';
import { en, type MessageKey } from '../i18n/en.js';
import type { Translate } from '../i18n/index.js';

const APPROVAL_STATES = new Set(['pending', 'approved', 'denied']);

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
      if (e.state === 'awaiting_approval' || e.label === 'Awaiting approval') return t('timeline.awaitingApproval');
      const state = e.state && APPROVAL_STATES.has(e.state) ? e.state : /^Approval (\w+)$/.exec(e.label)?.[1];
      const key = `approvalState.${state ?? ''}`;
      return state && isKey(key) ? t('timeline.approval', { state: t(key) }) : e.label;
    }
    case 'refusal': {
      const reason = /\(([^()]+)\)$/.exec(e.label)?.[1];
      return reason ? t('timeline.refusalReason', { reason }) : t('timeline.refusal');
    }
    case 'control': {
      const what = /^Task (\w+)$/.exec(e.label)?.[1];
      const key = `timeline.task.${what ?? ''}`;
      return what && isKey(key) ? t(key) : e.label;
    }
    default:
      return e.label;
  }
}
