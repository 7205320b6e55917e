/**
 * Rebuilds the visible conversation from persisted archive events (after a restart the archive is
 * the whole truth of what was said). Call cards are rebuilt by the runtime's card fold
 * (src-main/runtime/tool-calls/card-rebuild.ts), the same one an inspect, resume or attest after a
 * reopen uses, so a card reads the same whichever way it reached the UI.
 */
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import type { InvocationStatusEntry } from '../runtime/invocation-ports.js';
import type { ArchiveEvent, ToolCallCard } from '../runtime/desk-runtime.js';
import { createCardFold } from '../runtime/tool-calls/card-rebuild.js';
import { assistantItem, retryItem, toolCallItem, usageItem, userMessageItem } from './views.js';

export { INTERRUPTED_FEEDBACK, legacyResultState } from '../runtime/tool-calls/card-rebuild.js';

export function conversationItems(
  events: readonly ArchiveEvent[],
  journalEntries: readonly InvocationStatusEntry[] = [],
  opts: { activeTurnId?: string | null } = {},
): ConversationItem[] {
  const journal = new Map(journalEntries.map((j) => [j.invocation_id, j.last_known_state]));
  const items: ConversationItem[] = [];
  const index = new Map<string, number>();
  const fold = createCardFold(journal);
  const put = (card: ToolCallCard) => {
    const at = index.get(card.callId);
    if (at === undefined) {
      index.set(card.callId, items.length);
      items.push(toolCallItem(card));
    } else items[at] = toolCallItem(card);
  };
  for (const e of events) {
    const card = fold.apply(e);
    if (card) {
      put(card);
      continue;
    }
    switch (e.kind) {
      case 'user_message':
        items.push(userMessageItem(e));
        break;
      case 'assistant_message': {
        const item = assistantItem(e);
        if (item) items.push(item);
        break;
      }
      case 'model_retry':
        items.push(retryItem(e));
        break;
      case 'turn_ended': {
        const usage = usageItem(e);
        if (usage) items.push(usage);
        const notice = turnEndedNotice(e);
        if (notice) items.push(notice);
        break;
      }
      case 'control': {
        const notice = controlNotice(e);
        if (notice) items.push(notice);
        break;
      }
      default:
        break;
    }
  }
  // A call without a recorded result outside the running turn was interrupted (a crash): its
  // outcome is unknown (or what the journal knows), never "Checking" forever and never "did not happen".
  for (const card of fold.settleInterrupted(opts.activeTurnId ?? null)) put(card);
  return items;
}

type NoticeItem = Extract<ConversationItem, { kind: 'notice' }>;
type TurnEndedEvent = Extract<ArchiveEvent, { kind: 'turn_ended' }>;
type ControlEvent = Extract<ArchiveEvent, { kind: 'control' }>;

/**
 * The codes a notice carries besides a turn's own error code (turn-loop.ts: archive_storage_error,
 * step_limit_reached, model_error, run_end_failed). The renderer words each of them.
 */
export const NOTICE_CODES = [
  'turn_cancelled',
  'turn_failed',
  'turn_refused',
  'invocation_inspected',
  'resume_requested',
  'attestation_recorded',
  'journal_restore_requested',
] as const;
export type NoticeCode = (typeof NOTICE_CODES)[number];

/**
 * Archives written before a turn's error was stored as a code with its detail beside it held one
 * string, `code` or `code: free text`: read that way only when no detail is stored.
 */
const LEGACY_CODED_ERROR = /^([a-z][a-z0-9_]{0,99})(?::\s*([\s\S]*))?$/;
const MAX_DETAIL = 1000;
const MAX_ID = 200;

const detailOf = (s: string | null | undefined): string | null => {
  const t = s?.trim();
  return t ? t.slice(0, MAX_DETAIL) : null;
};

/** The notice for a turn that did not complete (null for a completed turn). Its text stays the English of older builds. */
export function turnEndedNotice(
  e: Pick<TurnEndedEvent, 'eventId' | 'at' | 'outcome' | 'error' | 'detail'>,
): NoticeItem | null {
  if (e.outcome === 'completed') return null;
  const base = { kind: 'notice' as const, id: e.eventId, at: e.at, invocation_id: null };
  if (e.outcome === 'cancelled')
    return { ...base, level: 'warning', text: 'Turn cancelled.', code: 'turn_cancelled', detail: null };
  const fallback: NoticeCode = e.outcome === 'refused' ? 'turn_refused' : 'turn_failed';
  if (e.error === null)
    return { ...base, level: 'error', text: `Turn ${e.outcome}.`, code: fallback, detail: null };
  if (e.detail !== undefined) {
    const detail = detailOf(e.detail);
    return {
      ...base,
      level: 'error',
      text: detail ? `${e.error}: ${detail}` : e.error,
      code: e.error,
      detail,
    };
  }
  const m = LEGACY_CODED_ERROR.exec(e.error.trim());
  // An error that is not a code (none was ever written) is kept whole as the detail of the outcome.
  const code = m?.[1] ?? fallback;
  const detail = m ? detailOf(m[2]) : detailOf(e.error);
  return { ...base, level: 'error', text: e.error, code, detail };
}

/** The notice for an inspect, resume or journal restore the operator asked for (null for other controls). */
export function controlNotice(
  e: Pick<ControlEvent, 'eventId' | 'at' | 'action' | 'detail'>,
): NoticeItem | null {
  const raw = e.detail.invocation_id;
  const invocationId = typeof raw === 'string' && raw.length > 0 && raw.length <= MAX_ID ? raw : null;
  const id = invocationId ? ` ${invocationId}` : '';
  const base = { kind: 'notice' as const, id: e.eventId, at: e.at, level: 'info' as const, detail: null };
  if (e.action === 'inspect')
    return { ...base, text: `Inspected${id}.`, code: 'invocation_inspected', invocation_id: invocationId };
  if (e.action === 'resume')
    return {
      ...base,
      text: `Resume requested for${id}.`,
      code: 'resume_requested',
      invocation_id: invocationId,
    };
  if (e.action === 'attest')
    return {
      ...base,
      text: `Attestation recorded for${id}.`,
      code: 'attestation_recorded',
      invocation_id: invocationId,
    };
  if (e.action === 'restore')
    return {
      ...base,
      text: 'Journal restore requested.',
      code: 'journal_restore_requested',
      invocation_id: null,
    };
  return null;
}
