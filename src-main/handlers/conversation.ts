/**
 * Rebuilds the visible conversation from persisted archive events (after a restart the archive is
 * the whole truth of what was said; receipts give each call's last known state).
 */
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import type { ArchiveEvent, ToolCallCard } from '../runtime/desk-runtime.js';
import { toolCallItem } from './views.js';

export function conversationItems(events: readonly ArchiveEvent[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  const cards = new Map<string, { card: ToolCallCard; at: string; index: number }>();
  const byInvocation = new Map<string, string>();
  const put = (card: ToolCallCard, at: string) => {
    const existing = cards.get(card.callId);
    if (existing) {
      existing.card = card;
      items[existing.index] = toolCallItem(card, existing.at);
    } else {
      cards.set(card.callId, { card, at, index: items.length });
      items.push(toolCallItem(card, at));
    }
    if (card.invocation_id) byInvocation.set(card.invocation_id, card.callId);
  };
  for (const e of events) {
    switch (e.kind) {
      case 'user_message':
        items.push({ kind: 'user_message', id: e.eventId, at: e.at, text: e.text });
        break;
      case 'assistant_message':
        if (e.text.length > 0) items.push({ kind: 'assistant_text', id: e.messageId, at: e.at, text: e.text, streaming: false });
        break;
      case 'tool_call':
        put(
          {
            sessionId: e.sessionId,
            turnId: e.turnId,
            callId: e.callId,
            functionName: e.functionName,
            target: e.target,
            effect: null,
            invocation_id: null,
            state: 'validating',
            feedback: null,
            receipt: null,
            late: false,
          },
          e.at,
        );
        break;
      case 'tool_result': {
        const prev = cards.get(e.callId);
        if (!prev) break;
        const refused = e.invocation_id === null && e.feedback !== null;
        put(
          {
            ...prev.card,
            invocation_id: e.invocation_id ?? prev.card.invocation_id,
            feedback: e.feedback,
            state: refused ? 'refused' : prev.card.state,
          },
          prev.at,
        );
        break;
      }
      case 'receipt': {
        const callId = e.callId ?? byInvocation.get(e.invocation_id);
        const prev = callId ? cards.get(callId) : undefined;
        if (!prev) break;
        put(
          {
            ...prev.card,
            invocation_id: e.invocation_id,
            state: e.state,
            effect: e.receipt.effect,
            receipt: e.receipt,
            late: prev.card.late || e.late,
          },
          prev.at,
        );
        break;
      }
      case 'turn_ended':
        if (e.outcome === 'failed' || e.outcome === 'refused') {
          items.push({ kind: 'notice', id: e.eventId, at: e.at, level: 'error', text: e.error ?? `Turn ${e.outcome}.` });
        } else if (e.outcome === 'cancelled') {
          items.push({ kind: 'notice', id: e.eventId, at: e.at, level: 'warning', text: 'Turn cancelled.' });
        }
        break;
      case 'control':
        if (e.action === 'inspect' || e.action === 'resume' || e.action === 'restore') {
          items.push({ kind: 'notice', id: e.eventId, at: e.at, level: 'info', text: controlText(e.action, e.detail) });
        }
        break;
      default:
        break;
    }
  }
  return items;
}

function controlText(action: string, detail: Record<string, unknown>): string {
  const id = typeof detail.invocation_id === 'string' ? ` ${detail.invocation_id}` : '';
  if (action === 'inspect') return `Inspected${id}.`;
  if (action === 'resume') return `Resume requested for${id}.`;
  return 'Journal restore requested.';
}
