/**
 * A call card brought up to a receipt of its call: its state, result, reason and settlement, derived
 * the way a card is built (src-shared/call-view.ts). Used by the renderer for a live receipt and by
 * the main process when it rebuilds a conversation (the last receipt the live stream brought), so a
 * card reads the same whichever way it got its facts.
 */
import type { Receipt } from './hub-api.js';
import type { ConversationItem } from './ipc/views.js';
import { receiptFacts } from './call-view.js';
import { canResume, isAttestable, isLaterInvocationState } from './states.js';

type ToolCallItem = Extract<ConversationItem, { kind: 'tool_call' }>;

/** The card after the receipt; unchanged (the same object) when the receipt says nothing new. */
export function withReceipt(it: ToolCallItem, r: Receipt): ToolCallItem {
  const facts = receiptFacts(r, it.masked ?? false);
  if (
    it.state === facts.state &&
    (it.result_json ?? null) === facts.result_json &&
    (it.settlement ?? null)?.at === facts.settlement?.at
  )
    return it;
  const targetKnown = it.authorization_ref !== null;
  return {
    ...it,
    state: facts.state,
    can_resume: canResume({
      invocationId: it.invocation_id,
      targetKnown,
      unsaved: false,
      state: facts.state,
    }),
    can_attest: targetKnown && isAttestable(facts.state),
    result_json: facts.result_json ?? it.result_json ?? null,
    result_truncated: facts.result_json ? facts.result_truncated : (it.result_truncated ?? false),
    reason: facts.reason,
    settlement: facts.settlement,
  };
}

/**
 * A rebuilt card brought up to the last receipt seen live, only where that receipt is later in the
 * call's life than what the archive recorded (the archive may be ahead of a stream event in flight).
 */
export function withLaterReceipt(it: ToolCallItem, r: Receipt | null): ToolCallItem {
  if (!r || r.invocation_id !== it.invocation_id) return it;
  return isLaterInvocationState(it.state, r.state) ? withReceipt(it, r) : it;
}
