/**
 * Turns persisted archive events into the typed DTOs the app sees and into the chat messages the
 * model sees. Rebuilding after a restart uses exactly these events: no user message is replayed
 * as a new turn, and a call without a recorded result is described as such (never as "did not happen").
 */
import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from 'openai/resources/chat/completions';
import type { StoredArchiveEvent } from '../archive/types.js';
import type { ArchiveEvent, ArchiveEventKind, ArchiveEventPayload } from './desk-runtime.js';
import type { SessionScope } from './invocation-ports.js';
import { userMessageContent, type AttachmentTextLookup } from './attachments.js';
import { legacyProviderCallId } from './call-ids.js';
import type { HistoryOptions } from './model-client.js';

const KINDS: readonly ArchiveEventKind[] = [
  'session_created',
  'user_message',
  'assistant_message',
  'tool_call',
  'tool_result',
  'receipt',
  'control',
  'turn_started',
  'turn_ended',
  'model_retry',
  'call_sent',
];

/** Stored row -> DTO. Rows of unknown kind are dropped by the caller's gap check (they are reported, not hidden). */
export function toArchiveEvent(e: StoredArchiveEvent): ArchiveEvent | null {
  if (!(KINDS as readonly string[]).includes(e.kind)) return null;
  return {
    seq: e.seq,
    eventId: e.eventId,
    sessionId: e.sessionId,
    turnId: e.turnId,
    at: e.at,
    ...(e.payload as object),
    kind: e.kind,
  } as ArchiveEvent;
}

export function payloadOf(p: ArchiveEventPayload): { kind: string; payload: Record<string, unknown> } {
  const { kind, ...rest } = p;
  return { kind, payload: rest as Record<string, unknown> };
}

export interface SystemPromptInput {
  scope: SessionScope;
  memberNames: Record<string, string>;
  extra?: string;
}

export function systemPrompt({ scope, memberNames, extra }: SystemPromptInput): string {
  const lines = [
    "You are Bailing Desk, an operator's assistant that performs business actions only through governed tools.",
  ];
  if (scope.members.length === 0) {
    lines.push(
      'This conversation has no selected business systems: answer in text only; no business tools are available.',
    );
  } else {
    lines.push('Selected business authorizations (the only possible targets):');
    for (const m of scope.members)
      lines.push(
        `- ${memberNames[m.authorization_ref] ?? m.system_id} (system ${m.system_id}, account ${m.account})`,
      );
    lines.push(
      'Call search_tools to load business tools; loaded tools stay available across searches and, when reuse is on, later messages.',
      'Each loaded function is bound to ONE system and account (its name starts with that authorization). Pick the function of the intended system; never put system, account or Hub names in arguments.',
      'Use a tool only with arguments that satisfy its full schema. Do not guess product mappings between systems: use an explicit mapping tool (such as an SKU look-up).',
      "If a call's result is unknown or awaiting approval, do not send it again: use inspect_governed_tool_invocation or, when asked to continue it, resume_governed_tool_invocation with its invocation_id.",
      'Ordinary conversation (greetings, thanks) needs no tools.',
    );
  }
  if (extra) lines.push(extra);
  return lines.join('\n');
}

const NO_RESULT =
  'No result was recorded for this call (the turn ended or the host restarted before it returned). Do not send it again; if it has an invocation_id, inspect that original invocation.';

/** Keeps the history bounded: the system prompt plus the most recent messages, cut at a user message. */
export const MAX_HISTORY_MESSAGES = 400;

/** A plain server: reasoning is never sent back. */
export const NO_REASONING_BACK: HistoryOptions = {
  reasoningSendBack: 'never',
  reasoningField: 'reasoning_content',
};

/**
 * `attachmentText` reads an attachment's text from the attachment space: a user message with
 * attachments reaches the model with each one appended as labelled data (./attachments.ts).
 * `history` says whether the reasoning archived with assistant messages goes back (the provider's
 * rule, src-shared/model-providers.ts). Tool calls carry the provider's own ids (the archive keeps
 * them beside the desk's host call ids), so a history rebuilt after a restart is the one the
 * provider saw.
 */
export function eventsToMessages(
  events: readonly ArchiveEvent[],
  system: string,
  maxMessages = MAX_HISTORY_MESSAGES,
  attachmentText: AttachmentTextLookup = () => null,
  history: HistoryOptions = NO_REASONING_BACK,
): ChatCompletionMessageParam[] {
  const all = buildMessages(events, system, attachmentText, history);
  if (all.length - 1 <= maxMessages) return all;
  for (let i = all.length - maxMessages; i < all.length; i++) {
    if (all[i]?.role === 'user') return [all[0] as ChatCompletionMessageParam, ...all.slice(i)];
  }
  // No user message in the window (one very long turn): keep from its last user message.
  for (let i = all.length - maxMessages - 1; i > 0; i--) {
    if (all[i]?.role === 'user') return [all[0] as ChatCompletionMessageParam, ...all.slice(i)];
  }
  return all;
}

type Reasoning = { field: 'reasoning_content' | 'reasoning'; text: string };

function buildMessages(
  events: readonly ArchiveEvent[],
  system: string,
  attachmentText: AttachmentTextLookup,
  history: HistoryOptions,
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  const reasoningOf = new Map<ChatCompletionMessageParam, Reasoning | null>();
  // Turns refused before the model saw them (their user message could not be saved at the time):
  // the message is in the transcript, but it was never an instruction the model received.
  const refusedTurns = new Set(
    events
      .filter((e) => e.kind === 'turn_ended' && e.outcome === 'refused' && e.turnId !== null)
      .map((e) => e.turnId as string),
  );
  /** Calls of the last assistant message: host call id -> the id the provider knows. */
  let openCalls: { hostId: string; providerId: string }[] = [];
  let answered = new Set<string>();
  const closeOpenCalls = () => {
    for (const c of openCalls)
      if (!answered.has(c.hostId)) out.push({ role: 'tool', tool_call_id: c.providerId, content: NO_RESULT });
    openCalls = [];
    answered = new Set();
  };
  let assistantIndex = -1;
  let assistantTurn: string | null = null;
  for (const e of events) {
    switch (e.kind) {
      case 'user_message':
        closeOpenCalls();
        assistantIndex = -1;
        if (e.turnId !== null && refusedTurns.has(e.turnId)) break;
        out.push({ role: 'user', content: userMessageContent(e.text, e.attachments, attachmentText) });
        break;
      case 'assistant_message': {
        closeOpenCalls();
        const msg: ChatCompletionMessageParam = {
          role: 'assistant',
          content: e.text.length > 0 ? e.text : null,
        };
        out.push(msg);
        reasoningOf.set(msg, e.reasoning ?? null);
        assistantIndex = out.length - 1;
        assistantTurn = e.turnId;
        break;
      }
      case 'tool_call': {
        const msg = out[assistantIndex];
        // Calls an operator ran by hand (no assistant message of that turn) are not part of the model's history.
        if (!msg || msg.role !== 'assistant' || e.turnId !== assistantTurn) break;
        const providerId = e.providerCallId ?? legacyProviderCallId(e.callId);
        const call: ChatCompletionMessageToolCall = {
          id: providerId,
          type: 'function',
          function: { name: e.functionName, arguments: e.argumentsText ?? '{}' },
        };
        msg.tool_calls = [...(msg.tool_calls ?? []), call];
        openCalls.push({ hostId: e.callId, providerId });
        break;
      }
      case 'tool_result': {
        const open = openCalls.find((c) => c.hostId === e.callId);
        if (!open || answered.has(e.callId)) break;
        out.push({ role: 'tool', tool_call_id: open.providerId, content: e.content });
        answered.add(e.callId);
        break;
      }
      case 'turn_ended':
        closeOpenCalls();
        assistantIndex = -1;
        if (e.outcome === 'cancelled')
          out.push({
            role: 'system',
            content: 'The user cancelled the previous turn. Its remaining calls were not sent.',
          });
        break;
      default:
        break;
    }
  }
  closeOpenCalls();
  for (const m of out)
    if (m.role === 'assistant' && m.content === null && !m.tool_calls?.length) m.content = '';
  applyReasoning(out, reasoningOf, history);
  return out;
}

/**
 * Reasoning goes back only where the provider's rule says: `tool_call_turns` — every assistant
 * message between two user messages in which the model called tools (an empty string where none
 * was archived, so the field is never missing); `always` — each message that has some.
 */
function applyReasoning(
  out: ChatCompletionMessageParam[],
  reasoningOf: ReadonlyMap<ChatCompletionMessageParam, Reasoning | null>,
  history: HistoryOptions,
): void {
  if (history.reasoningSendBack === 'never') return;
  const put = (m: ChatCompletionMessageParam, r: Reasoning | null) => {
    (m as unknown as Record<string, unknown>)[r?.field ?? history.reasoningField] = r?.text ?? '';
  };
  if (history.reasoningSendBack === 'always') {
    for (const [m, r] of reasoningOf) if (r) put(m, r);
    return;
  }
  let stretch: ChatCompletionMessageParam[] = [];
  const flush = () => {
    if (stretch.some((m) => m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0))
      for (const m of stretch) put(m, reasoningOf.get(m) ?? null);
    stretch = [];
  };
  for (const m of out) {
    if (m.role === 'user') flush();
    else if (m.role === 'assistant') stretch.push(m);
  }
  flush();
}
