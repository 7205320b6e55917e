/**
 * View shapes carried over the IPC contract. They are built by the main process from the runtime,
 * the journal, the archive and the Hub, and contain no secret: schemas are strict objects, so a
 * field not listed here (a token, a key) can never pass the response check in the transports.
 */
import { z } from 'zod';
import {
  ApprovalSchema,
  AuthorizationSchema,
  InvocationStateSchema,
  ReceiptSchema,
  TaskViewSchema,
} from '../hub-api.js';
import { MAX_CARD_ARGUMENTS_CHARS, MAX_CARD_RESULT_CHARS, MAX_KEY_ARGUMENTS } from '../call-view.js';
import { UI_LANGUAGES, UI_THEMES } from '../preferences.js';
import {
  ARCHIVE_STATES,
  ATTESTATION_OUTCOMES,
  RECOVERY_ACTIONS,
  CARD_STATES,
  HUB_CONNECTION_STATES,
  HUB_PROBLEMS,
  HUB_TEST_STATES,
  JOURNAL_STATES,
  KEYCHAIN_STATES,
  KEYCHAIN_REASONS,
  CONNECTION_TEST_LIST_STATES,
  CONNECTION_TEST_STEP_STATES,
  MODEL_RETRY_REASONS,
  SESSION_AVAILABILITIES,
  SYSTEM_KINDS,
} from '../states.js';
import { MODEL_PROVIDER_IDS, REASONING_SEND_BACK } from '../model-providers.js';

export const JournalStateSchema = z.enum(JOURNAL_STATES);
export const ArchiveStateSchema = z.enum(ARCHIVE_STATES);

export const IdSchema = z.string().min(1).max(200);

export const ScopeMemberViewSchema = z.strictObject({
  authorization_ref: z.string(),
  system_id: z.string(),
  /** The system's name as the Hub listed it when the conversation was made; null when not known. */
  system_name: z.string().min(1).nullable(),
  account: z.string(),
});
export type ScopeMemberView = z.infer<typeof ScopeMemberViewSchema>;

export const StorageViewSchema = z.strictObject({
  journal: z.strictObject({
    state: JournalStateSchema,
    unsaved_records: z.number().int().min(0),
    reason: z.string().nullable(),
  }),
  archive: z.strictObject({
    state: ArchiveStateSchema,
    unsaved_events: z.number().int().min(0),
    reason: z.string().nullable(),
  }),
});
export type StorageView = z.infer<typeof StorageViewSchema>;

export const SessionSummarySchema = z.strictObject({
  session_id: IdSchema,
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  task_id: z.string().nullable(),
  members: z.array(ScopeMemberViewSchema),
  /** open | offline (Hub unreachable, retried) | blocked (a member revoked/rebound) | not_opened */
  availability: z.enum(SESSION_AVAILABILITIES),
  /** Why the scope is not open, as a code. */
  availability_reason: z.string().nullable(),
  /** The member a blocked scope names (its authorization_ref). */
  availability_ref: z.string().nullable(),
  turn_running: z.boolean(),
});
export type SessionSummary = z.infer<typeof SessionSummarySchema>;

export const ToolCallStateSchema = z.enum(CARD_STATES);
export type ToolCallState = z.infer<typeof ToolCallStateSchema>;

export const FeedbackViewSchema = z.strictObject({
  category: z.string(),
  code: z.string(),
  /** English, for logs and developers; the UI words the feedback from `code`. */
  message: z.string(),
  next_action: z.string(),
  /** The source's own words the code cannot carry (the Hub's message, schema errors, a name). */
  detail: z.string().nullable(),
});
export type FeedbackView = z.infer<typeof FeedbackViewSchema>;

/** Text files a user may attach to a message (the model reads them as data, never as instructions). */
export const ATTACHMENT_MEDIA_TYPES = [
  'text/plain',
  'text/csv',
  'text/markdown',
  'application/json',
] as const;
export const AttachmentMediaTypeSchema = z.enum(ATTACHMENT_MEDIA_TYPES);
export type AttachmentMediaType = z.infer<typeof AttachmentMediaTypeSchema>;
/** Characters of one attachment's text; a message carries at most MAX_ATTACHMENTS of them. */
export const MAX_ATTACHMENT_CHARS = 60_000;
export const MAX_ATTACHMENTS = 3;

/** What the conversation shows of an attachment (its text is read on demand: getAttachment). */
export const AttachmentViewSchema = z.strictObject({
  attachment_id: IdSchema,
  name: z.string().min(1).max(200),
  media_type: AttachmentMediaTypeSchema,
  size_bytes: z.number().int().nonnegative(),
});
export type AttachmentView = z.infer<typeof AttachmentViewSchema>;

/** Characters of a message's reasoning carried to the renderer (longer reasoning is cut, with a mark). */
export const MAX_REASONING_CHARS = 100_000;

/** One visible item of a conversation; items are upserted by `id` (streamed text grows in place). */
export const ConversationItemSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('user_message'),
    id: IdSchema,
    at: z.string(),
    text: z.string(),
    /** Files attached to this message (absent in conversations archived before attachments existed). */
    attachments: z.array(AttachmentViewSchema).max(MAX_ATTACHMENTS).optional(),
  }),
  z.strictObject({
    kind: z.literal('assistant_text'),
    id: IdSchema,
    at: z.string(),
    text: z.string(),
    streaming: z.boolean(),
    /** What the model thought before answering (shown collapsed as "Thinking"); absent when it streamed none. */
    reasoning: z.string().max(MAX_REASONING_CHARS).nullable().optional(),
    /** The reply broke off mid-stream: the code and the provider's words (the text is what arrived). */
    interrupted: z
      .strictObject({ code: z.string().max(100), detail: z.string().max(1000) })
      .nullable()
      .optional(),
  }),
  z.strictObject({
    kind: z.literal('tool_call'),
    id: IdSchema,
    at: z.string(),
    invocation_id: z.string().nullable(),
    function_name: z.string(),
    /** Target from the declaration (null for search/inspect/resume functions). */
    tool: z.string().nullable(),
    system_id: z.string().nullable(),
    system_name: z.string().nullable(),
    account: z.string().nullable(),
    authorization_ref: z.string().nullable(),
    effect: z.enum(['read', 'write']).nullable(),
    state: ToolCallStateSchema,
    late: z.boolean(),
    feedback: FeedbackViewSchema.nullable(),
    can_inspect: z.boolean(),
    can_resume: z.boolean(),
    /** Attest is offered: the result is not known (unknown / unverified) and the call's record is saved. */
    can_attest: z.boolean().optional(),
    /** The arguments as sent, as pretty JSON (bounded; null when masked or unknown). See src-shared/call-view.ts. */
    arguments_json: z.string().max(MAX_CARD_ARGUMENTS_CHARS).nullable().optional(),
    /** Up to three scalar arguments that tell cards of one tool apart (the card's one-line summary). */
    key_arguments: z
      .array(z.strictObject({ name: z.string().max(200), value: z.string().max(100) }))
      .max(MAX_KEY_ARGUMENTS)
      .optional(),
    /** What came back, as pretty JSON (bounded); null before a result or when masked. */
    result_json: z.string().max(MAX_CARD_RESULT_CHARS).nullable().optional(),
    result_truncated: z.boolean().optional(),
    /** Audit-sensitive operation: arguments and result are not shown (as the Hub keeps them out of its audit). */
    masked: z.boolean().optional(),
    /** Why a sent call ended as it did (the receipt's reason code and the Hub's words), when it says more than the state. */
    reason: z
      .strictObject({ code: z.string().max(100), message: z.string().max(2000).nullable() })
      .nullable()
      .optional(),
    /** Settled by a person: the operator's attestation (what they found, their note, when). */
    settlement: z
      .strictObject({
        outcome: z.enum(ATTESTATION_OUTCOMES),
        note: z.string().max(2000),
        at: z.string(),
      })
      .nullable()
      .optional(),
  }),
  z.strictObject({
    kind: z.literal('notice'),
    id: IdSchema,
    at: z.string(),
    level: z.enum(['info', 'warning', 'error']),
    /** An English sentence for logs, older archives and fallbacks; the UI words the notice from `code`. */
    text: z.string(),
    /**
     * A stable snake_case code: turn_cancelled, turn_failed, turn_refused, invocation_inspected,
     * resume_requested, journal_restore_requested, or the error code a turn ended with
     * (archive_storage_error, step_limit_reached, model_error, run_end_failed). Null or absent when
     * the notice has no code (then only `text` is shown).
     */
    code: z.string().max(100).nullable().optional(),
    /** The invocation an inspect or resume notice is about. */
    invocation_id: z.string().max(200).nullable().optional(),
    /** The free text after a code (e.g. the model server's words for model_error), as the runtime recorded it (redacted). */
    detail: z.string().max(1000).nullable().optional(),
  }),
  z.strictObject({
    /** A model request failed before any token arrived and is tried again after `wait_ms`. */
    kind: z.literal('model_retry'),
    id: IdSchema,
    at: z.string(),
    attempt: z.number().int().min(1),
    max_attempts: z.number().int().min(1),
    wait_ms: z.number().int().min(0),
    reason: z.enum(MODEL_RETRY_REASONS),
    status: z.number().int().nullable(),
    /** The wait is the provider's own (retry-after), not the desk's backoff. */
    from_provider: z.boolean(),
  }),
  z.strictObject({
    /** Tokens a turn used, when the provider reported them. */
    kind: z.literal('turn_usage'),
    id: IdSchema,
    at: z.string(),
    prompt_tokens: z.number().int().min(0),
    completion_tokens: z.number().int().min(0),
    total_tokens: z.number().int().min(0),
    reasoning_tokens: z.number().int().min(0).nullable(),
    requests: z.number().int().min(0),
  }),
]);
export type ConversationItem = z.infer<typeof ConversationItemSchema>;

export const UnresolvedItemSchema = z.strictObject({
  invocation_id: z.string(),
  session_id: z.string(),
  session_title: z.string(),
  tool: z.string(),
  authorization_ref: z.string(),
  /** The Hub's last known state (null when only the local journal knows the call). */
  hub_state: InvocationStateSchema.nullable(),
  /** The journal entry's last known state, or `pending_dispatch` for an unconfirmed fence. */
  journal_entry_state: z.string(),
  journal_state: JournalStateSchema,
  archive_state: ArchiveStateSchema,
  unsaved: z.boolean(),
  unsaved_reason: z.string().nullable(),
  can_inspect: z.boolean(),
  can_resume: z.boolean(),
  /** Record what the operator checked is offered: the Hub's state says the result is not known. */
  can_attest: z.boolean(),
  updated_at: z.string(),
});
export type UnresolvedItem = z.infer<typeof UnresolvedItemSchema>;

export const TimelineEntrySchema = z.strictObject({
  at: z.string(),
  kind: z.enum(['permit', 'dispatch', 'outcome', 'refusal', 'approval', 'control']),
  invocation_id: z.string().nullable(),
  tool: z.string().nullable(),
  state: z.string().nullable(),
  /** kind 'control': the task state it moved to (created, paused, active, cancelled, expired). */
  task_action: z.string().nullable(),
  /** kind 'refusal': the Hub's reason code (task_paused, write_budget_exhausted, …). */
  reason_code: z.string().nullable(),
  /** The call's authorization (its system's name and kind come from the authorizations list). */
  authorization_ref: z.string().nullable().optional(),
  /** An English sentence for logs and fallbacks; the UI words it from the structured fields. */
  label: z.string(),
});
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;

export const KeychainViewSchema = z.strictObject({
  state: z.enum(KEYCHAIN_STATES),
  /** The technical detail (developer words, e.g. a module path); the UI leads with `reason_code`. */
  reason: z.string().nullable(),
  reason_code: z.enum(KEYCHAIN_REASONS).nullable().optional(),
  /** true when secrets are being held in memory for this run only (keychain unavailable). */
  session_only: z.boolean(),
});
export type KeychainView = z.infer<typeof KeychainViewSchema>;

export const HubConnectionSchema = z.strictObject({
  state: z.enum(HUB_CONNECTION_STATES),
  mode: z.enum(['local', 'remote']),
  url: z.string().nullable(),
  reason: z.string().nullable(),
  since: z.string(),
  can_approve: z.boolean(),
  /** The chosen Hub cannot be used this launch (the app runs offline until it is fixed in Settings). */
  problem: z.enum(HUB_PROBLEMS).nullable().optional(),
});
export type HubConnection = z.infer<typeof HubConnectionSchema>;

/** Why a stored key or token was removed (it is never sent to an origin it was not entered for). */
export const SecretClearedSchema = z.enum(['origin_changed']);

export const SettingsViewSchema = z.strictObject({
  hub: z.strictObject({
    mode: z.enum(['local', 'remote']),
    remote_url: z.string().nullable(),
    token_configured: z.boolean(),
    /** The saved Hub choice differs from the running connection; it applies at the next start. */
    restart_required: z.boolean(),
    /** Why no token is stored: the URL moved to another origin, so the token must be entered again. */
    token_cleared: SecretClearedSchema.nullable(),
  }),
  model: z.strictObject({
    /** The provider preset (src-shared/model-providers.ts); `custom` for any other server. */
    provider: z.enum(MODEL_PROVIDER_IDS),
    base_url: z.string().nullable(),
    model: z.string().nullable(),
    key_configured: z.boolean(),
    /** Why no key is stored: the base URL moved to another origin, so the key must be entered again. */
    key_cleared: SecretClearedSchema.nullable(),
    /** Streamed completions (the preset's default unless the operator chose). */
    stream: z.boolean(),
    /** When the model's reasoning is sent back (the preset's default unless the operator chose). */
    send_reasoning: z.enum(REASONING_SEND_BACK),
  }),
  keychain: KeychainViewSchema,
  data_dir: z.string(),
  /** Language and theme (null until the operator chose; the app's defaults apply). */
  preferences: z
    .strictObject({ lang: z.enum(UI_LANGUAGES), theme: z.enum(UI_THEMES) })
    .nullable()
    .optional(),
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

const ConnectionStepFailureSchema = z.strictObject({
  /** A model error code (model_auth_failed, model_not_found, model_unreachable, …), worded by the renderer. */
  code: z.string().max(100),
  status: z.number().int().nullable(),
  /** The provider's own words (secrets masked), bounded. */
  detail: z.string().max(1000),
});

/** Settings' Test connection: the model list, then a one-token completion, each with its outcome. */
export const ConnectionTestViewSchema = z.strictObject({
  models: z.strictObject({
    state: z.enum(CONNECTION_TEST_LIST_STATES),
    ids: z.array(z.string().max(300)).max(500),
    failure: ConnectionStepFailureSchema.nullable(),
  }),
  completion: z.strictObject({
    state: z.enum(CONNECTION_TEST_STEP_STATES),
    failure: ConnectionStepFailureSchema.nullable(),
  }),
  /** Whether the chosen model is in the list (null when there is no list or no model). */
  model_listed: z.boolean().nullable(),
  /** Which key the test sent: the one typed in the form, the stored one (same origin only), or none. */
  key_used: z.enum(['entered', 'stored', 'none']),
});
export type ConnectionTestView = z.infer<typeof ConnectionTestViewSchema>;

/** Settings' Test connection for a remote Hub (src-main/settings/hub-test.ts). */
export const HubTestViewSchema = z.strictObject({
  state: z.enum(HUB_TEST_STATES),
  hub_id: z.string().max(300).nullable(),
  /** How many authorizations the token is granted (null when not asked). */
  authorizations: z.number().int().nullable(),
  /** Which token the test sent: the one typed in the form, the stored one (same origin only), or none. */
  token_used: z.enum(['entered', 'stored', 'none']),
});
export type HubTestView = z.infer<typeof HubTestViewSchema>;

export const AppInfoSchema = z.strictObject({
  version: z.string(),
  transport: z.enum(['electron', 'browser']),
  hub: HubConnectionSchema,
  settings: SettingsViewSchema,
  /** The session the app opens by default (the embedded demo conversation), if any. */
  default_session_id: z.string().nullable(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const ToolViewSchema = z.strictObject({
  function_name: z.string(),
  authorization_ref: z.string(),
  system_id: z.string(),
  system_name: z.string(),
  account: z.string(),
  tool: z.string(),
  declaration_revision: z.string(),
  description: z.string(),
  input_schema: z.record(z.string(), z.unknown()),
  effect: z.enum(['read', 'write']),
  approval_required: z.boolean(),
  idempotent: z.boolean(),
  /** `http` or `mcp`, as the Hub's declaration says (an older Hub: http). */
  system_kind: z.enum(SYSTEM_KINDS),
});
export type ToolView = z.infer<typeof ToolViewSchema>;

/** One tool an authorization may call, as the task form lists it (system, then tool). */
export const AuthorizationToolSchema = z.strictObject({
  authorization_ref: z.string(),
  tool: z.string(),
  description: z.string(),
  effect: z.enum(['read', 'write']),
  /** The argument names its input schema declares (for rules on fields). */
  fields: z.array(z.string().max(200)).max(200),
});
export type AuthorizationTool = z.infer<typeof AuthorizationToolSchema>;

export const InvocationActionViewSchema = z.strictObject({
  action: z.enum(RECOVERY_ACTIONS),
  invocation_id: z.string(),
  journal_state: JournalStateSchema,
  resume_dispatched: z.boolean(),
  receipt: ReceiptSchema.nullable(),
  feedback: FeedbackViewSchema.nullable(),
  unsaved_records: z.number().int().min(0),
});
export type InvocationActionView = z.infer<typeof InvocationActionViewSchema>;

/** An approval and, as a separate fact, what is known about the call's execution. */
export const ApprovalViewSchema = ApprovalSchema.extend({
  execution_state: InvocationStateSchema.nullable(),
  /** The business system's name ("Shop A (homeware)"), null when the Hub did not say. */
  system_name: z.string().nullable().optional(),
  /** The conversation the call belongs to, when this desk has seen its receipt. */
  session_id: z.string().nullable().optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

export { ApprovalSchema, AuthorizationSchema, TaskViewSchema, ReceiptSchema };
