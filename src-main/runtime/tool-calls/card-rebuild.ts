/**
 * Rebuilds call cards from persisted archive events (after a restart the archive is the whole truth
 * of what was said and done). Each card ends in its last known state: the state it had when its
 * result was recorded (with the receipt kept beside it), then any later receipt (late answer,
 * inspect, resume, attest). A call whose request may have left (`call_sent`: fence saved, request
 * handed to the Hub) knows its invocation id even when the host stopped before the answer.
 *
 * Archives written before results carried their state fall back to the journal's
 * `last_known_state` for the call's invocation id; without either, the state is derived from the
 * recorded feedback, and a sent call with no evidence is `unknown` (never success, never "did not
 * happen"). A call without a recorded result outside the running turn was interrupted (a crash):
 * it takes the journal's Hub state when the journal knows one, else it reads "Result needs
 * checking", with its invocation id when the archive has it.
 */
import {
  CARD_PHASES,
  INVOCATION_STATES,
  type InvocationState,
  type JournalEntryState,
} from '../../../src-shared/states.js';
import type { ArchiveEvent, ToolCallCard } from '../desk-runtime.js';
import type { Feedback } from '../invocation-ports.js';
import { newCard } from './cards.js';

type ResultEvent = Extract<ArchiveEvent, { kind: 'tool_result' }>;

const isInvocationState = (s: string): s is InvocationState =>
  (INVOCATION_STATES as readonly string[]).includes(s);

/** The state of a call whose result event carries none (older archives). */
export function legacyResultState(
  e: Pick<ResultEvent, 'invocation_id' | 'feedback'>,
  journal: ReadonlyMap<string, JournalEntryState>,
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
    'The app stopped while this call was in progress, so its result was not recorded here. It may have been sent: inspect or resume the original call; do not send it again.',
  next_action: 'inspect_original',
  retryable: false,
  original_outcome: 'unknown',
};

/** Card states a crash can leave a call in (no result recorded): the host-side phases and `dispatching`. */
const IN_PROGRESS = new Set<string>([...CARD_PHASES.filter((p) => p !== 'refused'), 'dispatching']);

export interface CardFold {
  /** Applies one archive event; returns the card it created or changed (null when none). */
  apply(e: ArchiveEvent): ToolCallCard | null;
  /** After the last event: the cards a crash left without a result (outside the running turn), settled. */
  settleInterrupted(activeTurnId: string | null): ToolCallCard[];
  card(callId: string): ToolCallCard | undefined;
  /** The original call's card of an invocation (a later inspect/resume call naming it never takes it over). */
  callIdOf(invocationId: string): string | undefined;
}

export function createCardFold(journal: ReadonlyMap<string, JournalEntryState> = new Map()): CardFold {
  const cards = new Map<string, ToolCallCard>();
  const byInvocation = new Map<string, string>();
  const put = (card: ToolCallCard): ToolCallCard => {
    cards.set(card.callId, card);
    if (card.invocation_id && !byInvocation.has(card.invocation_id))
      byInvocation.set(card.invocation_id, card.callId);
    return card;
  };
  return {
    apply(e) {
      switch (e.kind) {
        case 'tool_call':
          return put(
            newCard({
              sessionId: e.sessionId,
              turnId: e.turnId,
              callId: e.callId,
              at: e.at,
              functionName: e.functionName,
              target: e.target,
              argumentsText: e.argumentsText,
              // Older archives mark an audit-sensitive call only by keeping no argument text.
              masked: e.sensitive ?? (e.target !== null && e.argumentsText === null),
            }),
          );
        case 'call_sent': {
          const prev = cards.get(e.callId);
          if (!prev) return null;
          return put({ ...prev, invocation_id: e.invocation_id, state: 'dispatching' });
        }
        case 'tool_result': {
          const prev = cards.get(e.callId);
          if (!prev) return null;
          return put({
            ...prev,
            invocation_id: e.invocation_id ?? prev.invocation_id,
            feedback: e.feedback,
            effect: e.effect ?? prev.effect,
            state: e.state ?? legacyResultState(e, journal),
            receipt: e.receipt ?? prev.receipt,
          });
        }
        case 'receipt': {
          const callId = e.callId ?? byInvocation.get(e.invocation_id);
          const prev = callId ? cards.get(callId) : undefined;
          if (!prev) return null;
          return put({
            ...prev,
            invocation_id: e.invocation_id,
            state: e.state,
            effect: e.receipt.effect,
            receipt: e.receipt,
            late: prev.late || e.late,
            // A receipt read later answers the call: the interruption it replaced is over.
            feedback: prev.feedback?.code === INTERRUPTED_FEEDBACK.code ? null : prev.feedback,
          });
        }
        default:
          return null;
      }
    },
    settleInterrupted(activeTurnId) {
      const changed: ToolCallCard[] = [];
      for (const c of cards.values()) {
        if (!IN_PROGRESS.has(c.state)) continue;
        if (c.turnId !== null && c.turnId === activeTurnId) continue;
        const known = c.invocation_id ? journal.get(c.invocation_id) : undefined;
        const state =
          known !== undefined && known !== 'pending_dispatch' && isInvocationState(known) ? known : 'unknown';
        changed.push(put({ ...c, state, feedback: INTERRUPTED_FEEDBACK }));
      }
      return changed;
    },
    card: (callId) => cards.get(callId),
    callIdOf: (invocationId) => byInvocation.get(invocationId),
  };
}

/** The card of one invocation's original call, rebuilt from a session's events (null when none). */
export function rebuildCardOf(
  events: readonly ArchiveEvent[],
  invocationId: string,
  journal: ReadonlyMap<string, JournalEntryState>,
  activeTurnId: string | null,
): ToolCallCard | null {
  const fold = createCardFold(journal);
  for (const e of events) fold.apply(e);
  fold.settleInterrupted(activeTurnId);
  const callId = fold.callIdOf(invocationId);
  return callId ? (fold.card(callId) ?? null) : null;
}
