/**
 * The host runtime's public API (what the desktop app and the browser host consume).
 * Plain Node, no Electron. Every DTO here is plain JSON (no functions, no Dates, no secrets), so it
 * can cross IPC / WebSocket unchanged. Implemented by `createDeskRuntime` (./create-desk-runtime.ts).
 *
 * Rules the implementation keeps (docs/design.md#invariants):
 * - every conversation event is saved in the archive BEFORE it is emitted as `archive.event`;
 * - ordinary chat and an empty scope make zero Hub requests;
 * - opening a session never creates a run, never invokes or resumes anything;
 * - the model API key is passed in by the settings provider per request and never stored.
 */
import type {
  ArchiveState,
  CardState,
  InvocationState,
  JournalState,
  MessageFinishState,
  ModelRetryReason,
  RecoveryAction,
  SessionAvailability,
  SystemKind,
  TurnOutcome,
  TurnState,
} from '../../src-shared/states.js';
import type { AttestRequest, Authorization, Receipt } from '../../src-shared/hub-api.js';
import type {
  Feedback,
  InvocationActionEnvelope,
  InvocationStatus,
  ScopeMember,
} from './invocation-ports.js';
import type { AttachmentMediaType } from '../../src-shared/ipc/views.js';
import type { ModelProviderId, ProviderQuirks } from '../../src-shared/model-providers.js';

// ---------- model settings (key supplied by the caller, e.g. from the keychain) ----------

export interface ModelSettings {
  baseUrl: string; // e.g. https://api.openai.com/v1 or http://127.0.0.1:PORT/v1
  model: string;
  /** Passed to the SDK for each request; never persisted, logged or emitted by the runtime. */
  apiKey: string | null;
  /** Use streaming chat completions (default true). Ignored when `quirks` is given (its `stream` wins). */
  stream?: boolean;
  temperature?: number;
  /** The provider preset the settings were made from (src-shared/model-providers.ts). */
  provider?: ModelProviderId;
  /** The provider's quirks (streaming, usage chunk, reasoning send-back, …); default: a plain server. */
  quirks?: ProviderQuirks;
}

export interface ModelSettingsProvider {
  get(): Promise<ModelSettings>;
}

// ---------- sessions ----------

/** Whether the session's whole scope is currently usable in this runtime (see SESSION_AVAILABILITIES). */
export type { SessionAvailability, TurnOutcome } from '../../src-shared/states.js';

export interface SessionSummary {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  hubId: string;
  members: ScopeMember[];
  /**
   * Authorization ref -> its system's name as the Hub listed it when the conversation was made
   * (kept in the archive; absent in older archives). Names a member whose system was retired since.
   */
  memberNames: Record<string, string>;
  scopeFingerprint: string;
  scopeRevision: number;
  taskId: string | null;
  /** Reuse cached declarations across turns of this living session (default true). */
  reuseDeclarations: boolean;
  availability: SessionAvailability;
  availabilityReason: string | null; // a code, e.g. authorization_revoked, hub_unreachable
  /** The member a blocked scope names (authorization_ref); null otherwise. */
  availabilityRef: string | null;
  activeTurnId: string | null;
  eventCount: number;
}

export interface CreateSessionInput {
  title?: string;
  /** Selected authorizations (may be empty: ordinary chat only). Resolved against the Hub once. */
  authorizationRefs: string[];
  /** Bind to a Hub task: every governed call then carries this task_id. */
  taskId?: string | null;
  reuseDeclarations?: boolean;
}

// ---------- archive (persisted conversation events) ----------

export interface ArchiveUnsavedEvent {
  eventId: string;
  kind: ArchiveEventKind;
  reason: string; // e.g. archive_store_unavailable
  since: string;
}

export interface ArchiveStatus {
  state: ArchiveState; // ready | storage_error | recovery_gap, independent of the journal
  unsavedEvents: ArchiveUnsavedEvent[];
  /** A hole found on load (e.g. sequence 7 followed by 9); kept visible, never "repaired". */
  recoveryGap: { afterSeq: number; nextSeq: number; detail: string } | null;
  reason: string | null;
}

export type ArchiveEventKind =
  | 'session_created'
  | 'user_message'
  | 'assistant_message'
  | 'tool_call'
  | 'tool_result'
  | 'receipt'
  | 'control'
  | 'turn_started'
  | 'turn_ended'
  | 'model_retry'
  | 'call_sent';

/** Tokens the provider reported (absent when it did not). */
export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  reasoning_tokens: number | null;
}

/** A turn's tokens: the sum over its model requests that reported usage. */
export interface TurnUsage extends TokenUsage {
  /** Model requests whose usage is counted. */
  requests: number;
}

/** Target identity of a tool call, always taken from the declaration cache, never from model text. */
export interface ToolTarget {
  hub_id: string;
  authorization_ref: string;
  system_id: string;
  system_name: string;
  account: string;
  tool: string;
  declaration_revision: string;
}

export type ArchiveEventPayload =
  | { kind: 'session_created'; title: string; members: ScopeMember[]; taskId: string | null }
  | {
      kind: 'user_message';
      text: string;
      /** Attached text files, by reference only: their text lives in the attachment space (absent in older archives). */
      attachments?: AttachmentRef[];
    }
  | {
      kind: 'assistant_message';
      messageId: string;
      text: string;
      /** `interrupted`: the stream broke after some of the reply arrived (its tool calls were dropped). */
      finish: MessageFinishState;
      /** What the model streamed before answering (DeepSeek/Qwen `reasoning_content`, OpenRouter `reasoning`). */
      reasoning?: { field: 'reasoning_content' | 'reasoning'; text: string };
      /** Tokens of this model request, when the provider reported them. */
      usage?: TokenUsage;
      /** Why an interrupted reply stopped (a model error code and the provider's words). */
      interruption?: { code: string; detail: string };
    }
  | {
      kind: 'tool_call';
      /** The desk's host call id (unique per session; the host_call_id of a governed call). */
      callId: string;
      /**
       * The id the provider gave this call (or the short one made where it gave none): the only id
       * sent back to the provider. Absent in archives written before it was kept.
       */
      providerCallId?: string;
      /** Position of the call in its reply, and the assistant message it belongs to. */
      index?: number;
      messageId?: string;
      functionName: string;
      /** Raw argument text as the model sent it (bounded); null for audit-sensitive tools. */
      argumentsText: string | null;
      target: ToolTarget | null; // null for search/inspect/resume/unknown functions
      /** The declaration is audit-sensitive: arguments and result are not kept for the card (absent in older archives). */
      sensitive?: boolean;
    }
  | {
      /**
       * The call's dispatch fence is saved and its request is about to leave: from here on it may
       * have been sent. Recorded before the request is handed to the Hub, so a conversation
       * reopened after a crash knows the call's invocation id (absent in older archives).
       */
      kind: 'call_sent';
      callId: string;
      invocation_id: string;
    }
  | {
      kind: 'tool_result';
      callId: string;
      functionName: string;
      /** What the model was told (bounded JSON text). */
      content: string;
      feedback: Feedback | null;
      invocation_id: string | null;
      /** The card's state when the result was recorded (absent in archives written before it existed). */
      state?: ToolCallCard['state'];
      /** The declaration's effect (null for built-in functions); absent in older archives. */
      effect?: 'read' | 'write' | null;
      /**
       * The Hub's receipt the call ended with (its result nulled for an audit-sensitive operation),
       * so a reopened conversation shows the card's result without asking the Hub (absent in older
       * archives and for calls that got no receipt).
       */
      receipt?: Receipt | null;
    }
  | {
      kind: 'receipt';
      callId: string | null;
      invocation_id: string;
      state: InvocationState;
      receipt: Receipt;
      late: boolean;
    }
  | {
      kind: 'control';
      action: 'cancel_turn' | 'open_session' | RecoveryAction | 'restore' | 'manual_tool_run' | 'scope_check';
      detail: Record<string, unknown>;
    }
  | { kind: 'turn_started'; turnId: string }
  | {
      kind: 'turn_ended';
      turnId: string;
      outcome: TurnOutcome;
      /** The code the turn ended with (model_rate_limited, step_limit_reached, ...); null when none. */
      error: string | null;
      /** The source's own words beside the code (the model server's message, the runs that did not end); absent in older archives. */
      detail?: string | null;
      /** Tokens of the turn's model requests (absent when no request reported usage). */
      usage?: TurnUsage;
    }
  | {
      /** A model request failed before any token arrived and is tried again after `waitMs`. */
      kind: 'model_retry';
      messageId: string;
      attempt: number;
      maxAttempts: number;
      waitMs: number;
      reason: ModelRetryReason;
      status: number | null;
      /** The wait is the one the provider asked for (retry-after). */
      fromProvider: boolean;
    };

export type ArchiveEvent = {
  seq: number; // 1, 2, 3 ... per session
  eventId: string;
  sessionId: string;
  turnId: string | null;
  at: string;
} & ArchiveEventPayload;

// ---------- attachments (the conversation's attachment space, beside the archive) ----------

/** A text file the user attaches to a message (see src-shared/ipc/views.ts for the accepted types and bounds). */
export interface AttachmentInput {
  name: string;
  mediaType: AttachmentMediaType;
  text: string;
}

/** What a user_message event and the conversation keep of an attachment: never its text. */
export interface AttachmentRef {
  attachment_id: string;
  name: string;
  media_type: AttachmentMediaType;
  /** UTF-8 bytes of the stored text. */
  size_bytes: number;
}

export interface AttachmentContent {
  attachment: AttachmentRef;
  text: string;
  sha256: string;
  createdAt: string;
}

// ---------- turns ----------

export interface TurnResult {
  sessionId: string;
  turnId: string;
  outcome: TurnOutcome;
  /** Final assistant text of the turn (may be empty). */
  text: string;
  /** The code the turn ended with (null when it completed). */
  error: string | null;
  /** The source's own words beside the code (the provider's message, …), when there are any. */
  detail?: string | null;
}

/** A tool call as the UI shows it; updated as receipts arrive. */
export interface ToolCallCard {
  sessionId: string;
  turnId: string | null;
  callId: string;
  /** When the call was made: its `tool_call` event's time (the same live and after a reopen). */
  at: string;
  functionName: string;
  target: ToolTarget | null;
  /** The arguments the call was made with (null when masked, absent or not an object). */
  arguments: Record<string, unknown> | null;
  /** An audit-sensitive operation: its arguments and result are not shown. */
  masked: boolean;
  effect: 'read' | 'write' | null;
  invocation_id: string | null;
  /** Hub state, or a host-side phase before a receipt exists. */
  state: CardState;
  feedback: Feedback | null;
  receipt: Receipt | null;
  late: boolean; // a receipt that arrived after its turn was cancelled/ended
}

// ---------- tools for operators without a model ----------

export interface DeclarationView {
  functionName: string; // unique per authorization, e.g. shop_a__update_product
  target: ToolTarget;
  description: string;
  input_schema: Record<string, unknown>;
  effect: 'read' | 'write';
  approval_required: boolean;
  idempotent: boolean;
  /** The declaration's system kind (an older Hub that does not say: http). */
  system_kind: SystemKind;
}

export interface ManualToolRunResult {
  card: ToolCallCard;
}

// ---------- events to subscribers ----------

export type RuntimeEvent =
  | { type: 'session.changed'; session: SessionSummary }
  | { type: 'archive.event'; sessionId: string; event: ArchiveEvent } // emitted only after it was saved
  | { type: 'archive.state'; sessionId: string; archive: ArchiveStatus }
  | { type: 'journal.state'; sessionId: string; status: InvocationStatus }
  | {
      type: 'turn.state';
      sessionId: string;
      turnId: string;
      state: TurnState;
      error: string | null;
    }
  | {
      type: 'message.delta';
      sessionId: string;
      turnId: string;
      messageId: string;
      delta: string;
      /** `reasoning`: the model's thinking before its answer (absent: the answer's text). */
      channel?: 'text' | 'reasoning';
    }
  | { type: 'tool.card'; card: ToolCallCard };

export type RuntimeListener = (event: RuntimeEvent) => void;

export interface OpenedSession {
  session: SessionSummary;
  events: ArchiveEvent[];
  archive: ArchiveStatus;
  journal: InvocationStatus;
}

export interface DeskRuntime {
  listSessions(): Promise<SessionSummary[]>;
  /** Resolves the selected authorizations against the Hub (unless empty) and persists scope + first event. */
  createSession(input: CreateSessionInput): Promise<SessionSummary>;
  /**
   * Open a persisted session (after a restart or first use in this runtime): rebuild from events and
   * scope, reuse its journal, revalidate every scope member. No run, no invoke, no resume, no replay.
   * Calling it again on an offline/blocked session re-checks (recovery in the same runtime).
   * Other calls that load a session read local data only (availability `not_opened`).
   */
  openSession(sessionId: string): Promise<OpenedSession>;
  /**
   * Run one turn. Resolves when the turn ends; progress arrives through `subscribe`. Makes no Hub
   * request of its own (not even a scope check): an offline / not yet checked scope is re-checked
   * only when a tool call of the turn needs the Hub.
   *
   * Attachments (up to MAX_ATTACHMENTS text files) are validated first (size, media type, no NUL,
   * no known secret: `attachment_contains_secret`, nothing saved or sent), then saved in the
   * attachment space before the user message event, which refers to them by id. The model reads
   * each one appended to the message as delimited, labelled data.
   */
  sendMessage(sessionId: string, text: string, attachments?: AttachmentInput[]): Promise<TurnResult>;
  /** An attachment of this session (null for an unknown id or another session's). Local read only. */
  getAttachment(sessionId: string, attachmentId: string): Promise<AttachmentContent | null>;
  /** Cancel the running turn (if any): stops the model stream; further calls of the turn are refused. */
  cancelTurn(sessionId: string): Promise<void>;
  setReuseDeclarations(sessionId: string, reuse: boolean): Promise<SessionSummary>;
  archiveEvents(sessionId: string, opts?: { afterSeq?: number; limit?: number }): Promise<ArchiveEvent[]>;
  archiveStatus(sessionId: string): Promise<ArchiveStatus>;
  // the journal and original-call recovery (docs/journal.md)
  journalStatus(sessionId: string): Promise<InvocationStatus>;
  restoreJournal(sessionId: string): Promise<InvocationStatus>;
  inspectInvocation(sessionId: string, invocationId: string): Promise<InvocationActionEnvelope>;
  resumeInvocation(sessionId: string, invocationId: string): Promise<InvocationActionEnvelope>;
  /**
   * The operator's attestation of an unresolved call (what they checked in the business system):
   * the Hub settles it and sends nothing; the card and Needs attention follow (docs/hub-api.md, attest).
   */
  attestInvocation(
    sessionId: string,
    invocationId: string,
    attestation: AttestRequest,
  ): Promise<InvocationActionEnvelope>;
  // operator tools without a model
  searchTools(sessionId: string, query: string): Promise<DeclarationView[]>;
  cachedDeclarations(sessionId: string): Promise<DeclarationView[]>;
  runToolManually(
    sessionId: string,
    functionName: string,
    args: Record<string, unknown>,
  ): Promise<ManualToolRunResult>;
  /**
   * Feed an `authorization.changed` Hub event (the app owns the event stream). A revoked or rebound
   * member, or one whose system was retired, blocks every living session that holds it and drops
   * their declarations, with no Hub request. A member whose system is in service again (revived)
   * has the sessions its retire blocked (`system_retired`) checked again (one scope check each); resolves once done.
   */
  authorizationChanged(authorization: Authorization): Promise<void>;
  subscribe(listener: RuntimeListener): () => void;
  /** Cancel running turns, end open runs, flush archive and journal. */
  close(): Promise<void>;
}

export type { JournalState };
