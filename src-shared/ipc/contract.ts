/**
 * The IPC contract: every call the renderer may make and every event it may receive, each with a
 * zod schema. Both transports (Electron IPC through the preload, and the browser host's
 * WebSocket) carry exactly this table and hand it to one handler table in the main process.
 */
import { ATTESTATION_OUTCOMES, TURN_STATES } from '../states.js';
import { UI_LANGUAGES, UI_THEMES } from '../preferences.js';
import { z } from 'zod';
import type { AppErrorData } from '../errors.js';
import {
  AttestRequestSchema,
  CreateTaskRequestSchema,
  RateWindowSchema,
  HubEventSchema,
} from '../hub-api.js';
import {
  AppInfoSchema,
  ApprovalViewSchema,
  AttachmentMediaTypeSchema,
  AttachmentViewSchema,
  AuthorizationSchema,
  AuthorizationToolSchema,
  ConnectionTestViewSchema,
  HubTestViewSchema,
  ConversationItemSchema,
  HubConnectionSchema,
  IdSchema,
  InvocationActionViewSchema,
  MAX_ATTACHMENT_CHARS,
  MAX_ATTACHMENTS,
  SessionSummarySchema,
  SettingsViewSchema,
  StorageViewSchema,
  TaskViewSchema,
  TimelineEntrySchema,
  ToolViewSchema,
  UnresolvedItemSchema,
} from './views.js';
import { JournalStateSchema } from './views.js';
import {
  AddMcpServerInputSchema,
  McpOverlayInputSchema,
  McpServerItemSchema,
  McpServerRemovedSchema,
  McpSystemRefSchema,
  McpToolItemSchema,
  McpToolRefSchema,
} from './mcp.js';
import { MODEL_PROVIDER_IDS, REASONING_SEND_BACK } from '../model-providers.js';
import {
  DemoDataResetRequestSchema,
  DemoDataResetViewSchema,
  DemoDataViewSchema,
} from './demo-data-views.js';

/** Largest serialized request or event payload either transport accepts (bytes of JSON). */
// Room for a message with MAX_ATTACHMENTS attachments of MAX_ATTACHMENT_CHARS characters of
// non-Latin text (3 bytes each in UTF-8), below the browser host's 1 MiB WebSocket frame.
export const MAX_PAYLOAD_BYTES = 900 * 1024;
/** Largest serialized response (a session's conversation, 10,000 unresolved calls). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const Empty = z.strictObject({});
const Ok = z.strictObject({ ok: z.literal(true) });
const SessionRef = z.strictObject({ session_id: IdSchema });
const TaskRef = z.strictObject({ task_id: IdSchema });
const InvocationRef = z.strictObject({ session_id: IdSchema, invocation_id: z.string().min(8).max(128) });

const call = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O) => ({ input, output });

export const CALLS = {
  getAppInfo: call(Empty, AppInfoSchema),

  listSessions: call(Empty, z.strictObject({ sessions: z.array(SessionSummarySchema) })),
  createSession: call(
    z.strictObject({
      title: z.string().min(1).max(200),
      authorization_refs: z.array(IdSchema).max(64),
      task_id: IdSchema.nullable(),
    }),
    SessionSummarySchema,
  ),
  /** Opens the session in this runtime (revalidating its scope; no run, no invoke, no resume). */
  getConversation: call(
    SessionRef,
    z.strictObject({
      session: SessionSummarySchema,
      items: z.array(ConversationItemSchema),
      storage: StorageViewSchema,
    }),
  ),
  sendMessage: call(
    z.strictObject({
      session_id: IdSchema,
      text: z.string().min(1).max(20_000),
      /** Text files for this message: kept in the conversation's attachment space, never in the journal. */
      attachments: z
        .array(
          z.strictObject({
            // A file name, without control characters (it labels the data the model reads).
            name: z
              .string()
              .min(1)
              .max(200)
              // eslint-disable-next-line no-control-regex
              .regex(/^[^\u0000-\u001f\u007f]+$/, 'a file name may not contain control characters'),
            media_type: AttachmentMediaTypeSchema,
            // Any text is fine, also one not valid for its declared type; NUL marks a binary file.
            text: z
              .string()
              .max(MAX_ATTACHMENT_CHARS)
              .refine((t) => !t.includes('\u0000'), 'an attachment may not contain NUL characters'),
          }),
        )
        .max(MAX_ATTACHMENTS)
        .optional(),
    }),
    z.strictObject({ turn_id: z.string() }),
  ),
  /** An attachment's text, from the conversation's attachment space. */
  getAttachment: call(
    z.strictObject({ session_id: IdSchema, attachment_id: IdSchema }),
    z.strictObject({ attachment: AttachmentViewSchema, text: z.string() }),
  ),
  cancelTurn: call(SessionRef, Ok),

  getJournalStatus: call(
    SessionRef,
    z.strictObject({
      state: JournalStateSchema,
      entries: z.number().int(),
      unsaved_records: z.number().int(),
      reason: z.string().nullable(),
    }),
  ),
  restoreJournal: call(
    SessionRef,
    z.strictObject({
      state: JournalStateSchema,
      entries: z.number().int(),
      unsaved_records: z.number().int(),
      reason: z.string().nullable(),
    }),
  ),
  inspectInvocation: call(InvocationRef, InvocationActionViewSchema),
  resumeInvocation: call(InvocationRef, InvocationActionViewSchema),
  /**
   * The operator's attestation of a call whose result is not known: what they checked in the
   * business system ("it happened" / "it did not happen") and a note. The Hub settles the call and
   * sends nothing (docs/hub-api.md, attest).
   */
  attestInvocation: call(
    InvocationRef.extend({ outcome: z.enum(ATTESTATION_OUTCOMES), note: AttestRequestSchema.shape.note }),
    InvocationActionViewSchema,
  ),
  listUnresolved: call(Empty, z.strictObject({ items: z.array(UnresolvedItemSchema) })),

  listAuthorizations: call(Empty, z.strictObject({ authorizations: z.array(AuthorizationSchema) })),
  /** Every tool of every active authorization (no conversation needed): the task form's choices. */
  listAuthorizationTools: call(Empty, z.strictObject({ tools: z.array(AuthorizationToolSchema) })),
  searchTools: call(
    z.strictObject({ session_id: IdSchema, query: z.string().max(500) }),
    z.strictObject({ tools: z.array(ToolViewSchema) }),
  ),
  runToolManually: call(
    z.strictObject({
      session_id: IdSchema,
      function_name: z.string().min(1).max(300),
      arguments: z.record(z.string(), z.unknown()),
    }),
    z.strictObject({ item: ConversationItemSchema }),
  ),

  listTasks: call(Empty, z.strictObject({ tasks: z.array(TaskViewSchema) })),
  createTask: call(CreateTaskRequestSchema.strict(), TaskViewSchema),
  pauseTask: call(TaskRef, TaskViewSchema),
  continueTask: call(TaskRef, TaskViewSchema),
  cancelTask: call(TaskRef, TaskViewSchema),
  getTaskTimeline: call(TaskRef, z.strictObject({ entries: z.array(TimelineEntrySchema) })),

  listApprovals: call(
    Empty,
    z.strictObject({ can_approve: z.boolean(), approvals: z.array(ApprovalViewSchema) }),
  ),
  decideApproval: call(
    z.strictObject({ approval_id: IdSchema, decision: z.enum(['approve', 'deny']) }),
    ApprovalViewSchema,
  ),

  getSettings: call(Empty, SettingsViewSchema),
  /** Settings' "Demo data": where the embedded demo systems keep their data, and whether it can be used. */
  getDemoData: call(Empty, DemoDataViewSchema),
  /** Products and stock of the embedded demo systems back to the seed (their ledger and the Hub untouched). */
  resetDemoData: call(DemoDataResetRequestSchema, DemoDataResetViewSchema),
  setHubSettings: call(
    z.discriminatedUnion('mode', [
      z.strictObject({ mode: z.literal('local') }),
      z.strictObject({
        mode: z.literal('remote'),
        url: z.string().url().max(2000),
        /** Written only into the keychain; never echoed back. */
        client_token: z.string().min(8).max(4096).optional(),
        session_only: z.boolean().optional(),
      }),
    ]),
    SettingsViewSchema,
  ),
  /**
   * Saves the model settings. A base URL on another origin than the stored key's clears that key
   * unless `api_key` is given in the same call (the key is never sent anywhere it was not entered for).
   */
  setModelSettings: call(
    z.strictObject({
      provider: z.enum(MODEL_PROVIDER_IDS).optional(),
      base_url: z.string().url().max(2000),
      model: z.string().min(1).max(200),
      /** Written only into the keychain; never echoed back. */
      api_key: z.string().min(1).max(4096).optional(),
      session_only: z.boolean().optional(),
      /** null: the preset's default. */
      stream: z.boolean().nullable().optional(),
      send_reasoning: z.enum(REASONING_SEND_BACK).nullable().optional(),
    }),
    SettingsViewSchema,
  ),
  /**
   * Settings' Test connection with the form's values (not saved): GET /models, then a one-token
   * completion. Sends the key typed in the form, else the stored key only if the base URL is on its
   * origin, else none.
   */
  testModelConnection: call(
    z.strictObject({
      provider: z.enum(MODEL_PROVIDER_IDS),
      base_url: z.string().url().max(2000),
      model: z.string().max(200),
      api_key: z.string().min(1).max(4096).optional(),
    }),
    ConnectionTestViewSchema,
  ),
  clearModelKey: call(Empty, SettingsViewSchema),
  /** The operator's language and theme, kept in the settings file (they survive reloads and restarts). */
  setPreferences: call(
    z.strictObject({ lang: z.enum(UI_LANGUAGES), theme: z.enum(UI_THEMES) }),
    SettingsViewSchema,
  ),
  /**
   * Settings' Test connection for a remote Hub with the form's values (not saved): GET /health,
   * then the token's authorizations. Sends the token typed in the form, else the stored one only if
   * the URL is on its origin, else none.
   */
  testHubConnection: call(
    z.strictObject({ url: z.string().url().max(2000), token: z.string().min(1).max(4096).optional() }),
    HubTestViewSchema,
  ),

  /*
   * MCP servers (Settings, local Hub only; docs/mcp.md#in-the-desk). `can_manage` is false where
   * the desk holds no admin credential (a remote Hub): then nothing else here may be called.
   * Secret environment values and bearer tokens go to the Hub only; no answer carries them.
   */
  listMcpServers: call(
    Empty,
    z.strictObject({ can_manage: z.boolean(), servers: z.array(McpServerItemSchema) }),
  ),
  /** Registers the server (the Hub connects and reads its tools first) and grants it to this desk. */
  addMcpServer: call(AddMcpServerInputSchema, McpServerItemSchema),
  /** Reads the server's tools again now (new declaration revisions where they changed). */
  refreshMcpServer: call(McpSystemRefSchema, McpServerItemSchema),
  /**
   * Removes the server: the Hub retires it (its process stopped, its tools out of every catalogue,
   * its calls kept). Refused while one of its calls is unresolved (`system_has_unresolved_invocations`).
   */
  removeMcpServer: call(McpSystemRefSchema, McpServerRemovedSchema),
  listMcpTools: call(
    McpSystemRefSchema,
    z.strictObject({ system_id: z.string(), tools: z.array(McpToolItemSchema) }),
  ),
  setMcpToolOverlay: call(
    z.strictObject({ ...McpToolRefSchema.shape, overlay: McpOverlayInputSchema }),
    McpToolItemSchema,
  ),
  clearMcpToolOverlay: call(McpToolRefSchema, McpToolItemSchema),
} as const;

export type CallName = keyof typeof CALLS;
export const CALL_NAMES = Object.keys(CALLS) as CallName[];
export type CallInput<K extends CallName> = z.input<(typeof CALLS)[K]['input']>;
export type CallOutput<K extends CallName> = z.output<(typeof CALLS)[K]['output']>;

export const EVENTS = {
  /** A conversation item was added or changed (streamed text grows in place). */
  conversationItem: z.strictObject({ session_id: IdSchema, item: ConversationItemSchema }),
  turnState: z.strictObject({
    session_id: IdSchema,
    turn_id: z.string(),
    state: z.enum(TURN_STATES),
    message: z.string().nullable(),
  }),
  sessionChanged: SessionSummarySchema,
  storageChanged: z.strictObject({ session_id: IdSchema, storage: StorageViewSchema }),
  taskChanged: TaskViewSchema,
  invocationChanged: HubEventSchema.options[0].shape.receipt,
  approvalsChanged: z.strictObject({ pending: z.number().int().min(0) }),
  /** A hint that the idle panel's list changed; the renderer re-reads it once (no polling). */
  unresolvedChanged: z.strictObject({ source: z.enum(['journal', 'invocation', 'tool_call']) }),
  hubConnection: HubConnectionSchema,
} as const;

export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
export type EventPayload<K extends EventName> = z.output<(typeof EVENTS)[K]>;

/** The coded error both transports answer a failed call with (src-shared/errors.ts). */
export { APP_ERROR_CODES, AppErrorSchema, type AppErrorCode, type AppErrorData } from '../errors.js';

export type CallResult<K extends CallName> =
  { ok: true; value: CallOutput<K> } | { ok: false; error: AppErrorData };

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(CALLS, name);
}
export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(EVENTS, name);
}

export { channelOf, eventChannelOf } from './channels.js';

export { RateWindowSchema };
