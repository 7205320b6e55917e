/**
 * Rebuilds the visible conversation from persisted archive events (after a restart the archive is
 * the whole truth of what was said). Each call card ends in its last known state: the state the
 * card had when its result was recorded, then any later receipt (late answer, inspect, resume).
 * Archives written before results carried their state fall back to the journal's
 * `last_known_state` for the call's invocation id; without either, the state is derived from the
 * recorded feedback, and a sent call with no evidence is `unknown` (never success, never "did not happen").
 */
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import { INVOCATION_STATES, type InvocationState } from '../../src-shared/states.js';
import type { Feedback, InvocationStatusEntry } from '../runtime/invocation-ports.js';
import type { ArchiveEvent, ToolCallCard } from '../runtime/desk-runtime.js';
import { newCard } from '../runtime/tool-calls/cards.js';
import { assistantItem, retryItem, toolCallItem, usageItem, userMessageItem } from './views.js';

type ResultEvent = Extract<ArchiveEvent, { kind: 'tool_result' }>;

const isInvocationState = (s: string): s is InvocationState =>
  (INVOCATION_STATES as readonly string[]).includes(s);

/** The state of a call whose result event carries none (older archives). */
export function legacyResultState(
  e: Pick<ResultEvent, 'invocation_id' | 'feedback'>,
  journal: ReadonlyMap<string, InvocationStatusEntry['last_known_state']>,
): ToolCallCard['state'] {
  const fromFeedback = (f: Feedback | null): ToolCallCard['state'] | null => {
    if (!f) return null;
    if (f.category === 'not_dispatched') return 'not_dispatched';
    if (f.category === 'invocation_outcome_unknown')
      return f.original_outcome === 'unverified' ? 'unverified' : 'unknown';
    return null;
  };
  if (e.invocation_id === null) {
    // Nothing reached the Hub: a built-in that answered, or a refusal on the host.
    if (e.feedback === null) return 'succeeded';
    return fromFeedback(e.feedback) ?? 'refused';
  }
  const known = journal.get(e.invocation_id);
  if (known !== undefined && known !== 'pending_dispatch' && isInvocationState(known)) return known;
  // A result with an id but no usable journal state: only the feedback can say more.
  return fromFeedback(e.feedback) ?? 'unknown';
}

/** Feedback shown on a call whose turn ended without its result being recorded (the host stopped mid-call). */
export const INTERRUPTED_FEEDBACK: Feedback = {
  category: 'invocation_outcome_unknown',
  code: 'interrupted',
  message:
    'The app stopped while this call was in progress, so its result was not recorded here. It may have been sent: see Needs attention and inspect the original call; do not send it again.',
  next_action: 'inspect_original',
  retryable: false,
  original_outcome: 'unknown',
};

export function conversationItems(
  events: readonly ArchiveEvent[],
  journalEntries: readonly InvocationStatusEntry[] = [],
  opts: { activeTurnId?: string | null } = {},
): ConversationItem[] {
  const journal = new Map(journalEntries.map((j) => [j.invocation_id, j.last_known_state]));
  const items: ConversationItem[] = [];
  const cards = new Map<string, { card: ToolCallCard; index: number }>();
  const byInvocation = new Map<string, string>();
  const put = (card: ToolCallCard) => {
    const existing = cards.get(card.callId);
    if (existing) {
      existing.card = card;
      items[existing.index] = toolCallItem(card);
    } else {
      cards.set(card.callId, { card, index: items.length });
      items.push(toolCallItem(card));
    }
    // The first card of an id is the original call; a later inspect/resume call naming it must not take it over.
    if (card.invocation_id && !byInvocation.has(card.invocation_id))
      byInvocation.set(card.invocation_id, card.callId);
  };
  for (const e of events) {
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
      case 'tool_call':
        put(
          newCard({
            sessionId: e.sessionId,
            turnId: e.turnId,
            callId: e.callId,
            at: e.at,
            functionName: e.functionName,
            target: e.target,
          }),
        );
        break;
      case 'tool_result': {
        const prev = cards.get(e.callId);
        if (!prev) break;
        put({
          ...prev.card,
          invocation_id: e.invocation_id ?? prev.card.invocation_id,
          feedback: e.feedback,
          effect: e.effect ?? prev.card.effect,
          state: e.state ?? legacyResultState(e, journal),
        });
        break;
      }
      case 'receipt': {
        const callId = e.callId ?? byInvocation.get(e.invocation_id);
        const prev = callId ? cards.get(callId) : undefined;
        if (!prev) break;
        put({
          ...prev.card,
          invocation_id: e.invocation_id,
          state: e.state,
          effect: e.receipt.effect,
          receipt: e.receipt,
          late: prev.card.late || e.late,
        });
        break;
      }
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
  // outcome is unknown, never "Checking" forever and never "did not happen".
  for (const c of cards.values()) {
    if (
      c.card.state === 'validating' &&
      (c.card.turnId === null || c.card.turnId !== (opts.activeTurnId ?? null))
    ) {
      put({ ...c.card, state: 'unknown', feedback: INTERRUPTED_FEEDBACK });
    }
  }
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
  if (e.action === 'restore')
    return {
      ...base,
      text: 'Journal restore requested.',
      code: 'journal_restore_requested',
      invocation_id: null,
    };
  return null;
}
