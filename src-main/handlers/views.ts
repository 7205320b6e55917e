/** Maps runtime DTOs to the IPC contract's view shapes (explicit field lists: nothing else passes). */
import type {
  ConversationItem,
  SessionSummary as SessionView,
  StorageView,
  ToolView,
} from '../../src-shared/ipc/views.js';
import type { FeedbackView, InvocationActionView } from '../../src-shared/ipc/views.js';
import type { Feedback, InvocationActionEnvelope, InvocationStatus } from '../runtime/invocation-ports.js';
import type {
  ArchiveEvent,
  ArchiveStatus,
  AttachmentRef,
  DeclarationView,
  SessionSummary,
  ToolCallCard,
} from '../runtime/desk-runtime.js';
import { ATTACHMENT_MEDIA_TYPES, MAX_REASONING_CHARS } from '../../src-shared/ipc/views.js';
import { canResume, isAttestable } from '../../src-shared/states.js';
import {
  boundedJsonText,
  keyArguments,
  MAX_CARD_ARGUMENTS_CHARS,
  receiptFacts,
} from '../../src-shared/call-view.js';

export function sessionView(s: SessionSummary): SessionView {
  return {
    session_id: s.sessionId,
    title: s.title,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    task_id: s.taskId,
    members: s.members.map((m) => ({
      authorization_ref: m.authorization_ref,
      system_id: m.system_id,
      // The ref stands in for a name the Hub did not list at creation: that is no name.
      system_name:
        s.memberNames[m.authorization_ref] !== m.authorization_ref
          ? (s.memberNames[m.authorization_ref] ?? null)
          : null,
      account: m.account,
    })),
    availability: s.availability,
    availability_reason: s.availabilityReason,
    availability_ref: s.availabilityRef,
    turn_running: s.activeTurnId !== null,
  };
}

export function storageView(journal: InvocationStatus, archive: ArchiveStatus): StorageView {
  return {
    journal: {
      state: journal.state,
      unsaved_records: journal.unsavedRecords.length,
      reason: journal.reason ?? journal.unsavedRecords[0]?.reason ?? null,
    },
    archive: {
      state: archive.state,
      unsaved_events: archive.unsavedEvents.length,
      reason: archive.reason ?? archive.recoveryGap?.detail ?? archive.unsavedEvents[0]?.reason ?? null,
    },
  };
}

export function feedbackView(f: Feedback | null): FeedbackView | null {
  return f
    ? {
        category: f.category,
        code: f.code,
        message: f.message,
        next_action: f.next_action,
        detail: f.detail ?? null,
      }
    : null;
}

/**
 * A call card as the conversation shows it: the same item live, after a manual run and after a
 * reopen — its arguments, what came back (or why not) and, when a person settled it, their
 * attestation (src-shared/call-view.ts).
 */
export function toolCallItem(card: ToolCallCard): Extract<ConversationItem, { kind: 'tool_call' }> {
  const t = card.target;
  const args = card.masked ? null : card.arguments;
  const facts = card.receipt ? receiptFacts(card.receipt, card.masked) : null;
  return {
    kind: 'tool_call',
    id: card.callId,
    at: card.at,
    invocation_id: card.invocation_id,
    function_name: card.functionName,
    tool: t?.tool ?? null,
    system_id: t?.system_id ?? null,
    system_name: t?.system_name ?? null,
    account: t?.account ?? null,
    authorization_ref: t?.authorization_ref ?? null,
    effect: card.effect,
    state: card.state,
    late: card.late,
    feedback: feedbackView(card.feedback),
    can_inspect: card.invocation_id !== null && t !== null,
    can_resume: canResume({
      invocationId: card.invocation_id,
      targetKnown: t !== null,
      unsaved: false,
      state: card.state,
    }),
    can_attest: card.invocation_id !== null && t !== null && isAttestable(card.state),
    arguments_json: args ? boundedJsonText(args, MAX_CARD_ARGUMENTS_CHARS).text : null,
    key_arguments: keyArguments(args),
    result_json: facts?.result_json ?? null,
    result_truncated: facts?.result_truncated ?? false,
    masked: card.masked,
    reason: facts?.reason ?? null,
    settlement: facts?.settlement ?? null,
  };
}

export function toolView(d: DeclarationView): ToolView {
  return {
    function_name: d.functionName,
    authorization_ref: d.target.authorization_ref,
    system_id: d.target.system_id,
    system_name: d.target.system_name,
    account: d.target.account,
    tool: d.target.tool,
    declaration_revision: d.target.declaration_revision,
    description: d.description,
    input_schema: d.input_schema,
    effect: d.effect,
    approval_required: d.approval_required,
    idempotent: d.idempotent,
    system_kind: d.system_kind,
  };
}

export function actionView(env: InvocationActionEnvelope): InvocationActionView {
  return {
    action: env.action,
    invocation_id: env.invocation_id,
    journal_state: env.state,
    resume_dispatched: env.resume_dispatched,
    receipt: env.receipt,
    feedback: feedbackView(env.feedback),
    unsaved_records: env.unsavedRecords.length,
  };
}

export function journalSummary(s: InvocationStatus): {
  state: InvocationStatus['state'];
  entries: number;
  unsaved_records: number;
  reason: string | null;
} {
  return {
    state: s.state,
    entries: s.entries.length,
    unsaved_records: s.unsavedRecords.length,
    reason: s.reason ?? null,
  };
}

type UserMessageEvent = Extract<ArchiveEvent, { kind: 'user_message' }>;

/** A user message as the conversation shows it: its text and its attachments by reference (never their text). */
export function userMessageItem(
  e: Pick<UserMessageEvent, 'eventId' | 'at' | 'text' | 'attachments'>,
): Extract<ConversationItem, { kind: 'user_message' }> {
  const item: Extract<ConversationItem, { kind: 'user_message' }> = {
    kind: 'user_message',
    id: e.eventId,
    at: e.at,
    text: e.text,
  };
  const list = Array.isArray(e.attachments) ? e.attachments.filter(isAttachmentRef) : [];
  if (list.length > 0) {
    item.attachments = list.map((a) => ({
      attachment_id: a.attachment_id,
      name: a.name,
      media_type: a.media_type,
      size_bytes: a.size_bytes,
    }));
  }
  return item;
}

/** Archived payloads are read back from disk: keep only well-formed references. */
function isAttachmentRef(a: unknown): a is AttachmentRef {
  if (!a || typeof a !== 'object') return false;
  const r = a as Record<string, unknown>;
  return (
    typeof r.attachment_id === 'string' &&
    r.attachment_id.length > 0 &&
    typeof r.name === 'string' &&
    r.name.length > 0 &&
    typeof r.media_type === 'string' &&
    (ATTACHMENT_MEDIA_TYPES as readonly string[]).includes(r.media_type) &&
    typeof r.size_bytes === 'number' &&
    Number.isInteger(r.size_bytes) &&
    r.size_bytes >= 0
  );
}

type AssistantEvent = Extract<ArchiveEvent, { kind: 'assistant_message' }>;
type RetryEvent = Extract<ArchiveEvent, { kind: 'model_retry' }>;
type TurnEndedEvent = Extract<ArchiveEvent, { kind: 'turn_ended' }>;

/** Reasoning as the renderer gets it: bounded, the cut marked. */
export function reasoningView(text: string | undefined | null): string | null {
  if (!text) return null;
  return text.length <= MAX_REASONING_CHARS ? text : `${text.slice(0, MAX_REASONING_CHARS - 1)}…`;
}

/** A saved assistant message as the conversation shows it (null when it has nothing to show). */
export function assistantItem(
  e: AssistantEvent,
): Extract<ConversationItem, { kind: 'assistant_text' }> | null {
  const reasoning = reasoningView(e.reasoning?.text);
  const interrupted =
    e.finish === 'interrupted' && e.interruption
      ? { code: e.interruption.code.slice(0, 100), detail: e.interruption.detail.slice(0, 1000) }
      : null;
  if (e.text.length === 0 && reasoning === null && interrupted === null) return null;
  return {
    kind: 'assistant_text',
    id: e.messageId,
    at: e.at,
    text: e.text,
    streaming: false,
    reasoning,
    interrupted,
  };
}

export function retryItem(e: RetryEvent): Extract<ConversationItem, { kind: 'model_retry' }> {
  return {
    kind: 'model_retry',
    id: e.eventId,
    at: e.at,
    attempt: e.attempt,
    max_attempts: e.maxAttempts,
    wait_ms: e.waitMs,
    reason: e.reason,
    status: e.status,
    from_provider: e.fromProvider,
  };
}

/** The tokens of a turn, when the provider reported any (null otherwise). */
export function usageItem(e: TurnEndedEvent): Extract<ConversationItem, { kind: 'turn_usage' }> | null {
  if (!e.usage) return null;
  return {
    kind: 'turn_usage',
    id: `${e.eventId}:usage`,
    at: e.at,
    prompt_tokens: e.usage.prompt_tokens,
    completion_tokens: e.usage.completion_tokens,
    total_tokens: e.usage.total_tokens,
    reasoning_tokens: e.usage.reasoning_tokens,
    requests: e.usage.requests,
  };
}
