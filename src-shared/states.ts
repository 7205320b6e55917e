/**
 * The one home of every state and phase vocabulary shared by the Hub, the host runtime and the UI
 * (docs/design.md#vocabulary). Zod enums, TypeScript types and SQL lists are derived from the
 * arrays here; test/shared/states-fitness.test.ts fails on a literal set of state names anywhere
 * else. Every state machine is a table of allowed transitions checked in one place (`canTransition`).
 */

export const INVOCATION_STATES = [
  'not_dispatched',
  'awaiting_approval',
  'approved',
  'denied',
  'dispatching',
  'succeeded',
  'failed',
  'unknown',
  'unverified',
] as const;
export type InvocationState = (typeof INVOCATION_STATES)[number];

export const INVOCATION_STATE_LABELS: Readonly<Record<InvocationState, string>> = {
  not_dispatched: 'Not dispatched',
  awaiting_approval: 'Awaiting approval',
  approved: 'Approved, not yet run',
  denied: 'Denied',
  dispatching: 'Running',
  succeeded: 'Completed',
  failed: 'Failed',
  unknown: 'Result needs checking',
  unverified: 'Unverified',
};

/** States that still need someone's attention; they are listed in task views and the idle panel. */
export const UNRESOLVED_INVOCATION_STATES = [
  'awaiting_approval',
  'approved',
  'dispatching',
  'unknown',
  'unverified',
] as const satisfies readonly InvocationState[];
export type UnresolvedInvocationState = (typeof UNRESOLVED_INVOCATION_STATES)[number];

/**
 * States the Hub settles from business evidence on resume (its operations look-up), never by
 * sending again: a result not known, or checked without enough evidence to say.
 */
export const RECONCILABLE_INVOCATION_STATES = [
  'unknown',
  'unverified',
] as const satisfies readonly InvocationState[];

export function isReconcilable(state: string): state is (typeof RECONCILABLE_INVOCATION_STATES)[number] {
  return (RECONCILABLE_INVOCATION_STATES as readonly string[]).includes(state);
}

/**
 * States Resume is offered for: an approved call not yet run (the Hub sends it once), and the
 * reconcilable ones, `unknown` and `unverified` — the Hub accepts both and asks the business
 * system's look-up again, so new evidence can still settle an unverified call (docs/design.md#resume).
 */
export const RESUMABLE_INVOCATION_STATES = [
  'approved',
  ...RECONCILABLE_INVOCATION_STATES,
] as const satisfies readonly InvocationState[];

/**
 * States an operator may settle by recording what they checked in the business system themselves
 * (operator attestation, docs/hub-api.md "attest"): a result not known, or checked without enough
 * evidence. Nothing is sent; the evidence is of kind `operator_attested`.
 */
export const ATTESTABLE_INVOCATION_STATES = RECONCILABLE_INVOCATION_STATES;

export function isAttestable(state: string): boolean {
  return (ATTESTABLE_INVOCATION_STATES as readonly string[]).includes(state);
}

/** What an operator may attest about a call: it happened (`succeeded`) or it did not (`failed`). */
export const ATTESTATION_OUTCOMES = ['succeeded', 'failed'] as const satisfies readonly InvocationState[];
export type AttestationOutcome = (typeof ATTESTATION_OUTCOMES)[number];

/**
 * The evidence source (and the reason code of the settled call) of an operator's attestation: the
 * call was settled by a person, not by the business system's answer or look-up.
 */
export const OPERATOR_ATTESTED = 'operator_attested';

/** Where a receipt's evidence came from (a receipt's `reconciliation[].source`). */
export const EVIDENCE_SOURCES = [
  'operations_lookup',
  'dispatch_response',
  'startup_recovery',
  'lease_recovery',
  OPERATOR_ATTESTED,
  /** An MCP server's look-up tool answered for the idempotency key (docs/mcp.md#recovery). */
  'lookup_tool',
  /** An MCP server's task (tasks/get) said how the call ended (docs/mcp.md#recovery). */
  'task_status',
  'none',
] as const;
export type EvidenceSource = (typeof EVIDENCE_SOURCES)[number];

export function isResumable(state: string): state is ResumableInvocationState {
  return (RESUMABLE_INVOCATION_STATES as readonly string[]).includes(state);
}
export type ResumableInvocationState = (typeof RESUMABLE_INVOCATION_STATES)[number];

/** States that report what became of a sent call (the outcome entries of a task timeline). */
export const OUTCOME_INVOCATION_STATES = [
  'succeeded',
  'failed',
  'unknown',
  'unverified',
] as const satisfies readonly InvocationState[];

export const TERMINAL_INVOCATION_STATES = [
  'not_dispatched',
  'denied',
  'succeeded',
  'failed',
] as const satisfies readonly InvocationState[];

/**
 * Allowed invocation transitions. `null` is "no record yet".
 * - approval is not execution: awaiting_approval -> approved never reaches succeeded directly;
 * - an `unknown` call is only ever resolved by evidence (reconciliation), never by re-sending;
 * - `dispatching -> not_dispatched` only when the request provably never left the Hub (it failed
 *   before its first byte was written: header validation, DNS, connect, TLS handshake); its permit
 *   is given back in the same transaction (NOT_SENT_REASON_CODES). An approved call whose resume
 *   never left goes back to `approved` instead (`dispatching -> approved`): its approval stands and
 *   a later resume may send it;
 * - `unverified` may still be resolved later if new evidence appears.
 */
export const INVOCATION_TRANSITIONS: Readonly<Record<InvocationState | 'new', readonly InvocationState[]>> = {
  new: ['not_dispatched', 'awaiting_approval', 'dispatching'],
  awaiting_approval: ['approved', 'denied'],
  approved: ['dispatching'],
  dispatching: ['succeeded', 'failed', 'unknown', 'not_dispatched', 'approved'],
  unknown: ['succeeded', 'failed', 'unverified'],
  unverified: ['succeeded', 'failed'],
  not_dispatched: [],
  denied: [],
  succeeded: [],
  failed: [],
};

export function canTransitionInvocation(from: InvocationState | 'new', to: InvocationState): boolean {
  return INVOCATION_TRANSITIONS[from].includes(to);
}

/**
 * True when `to` can follow `from` in a call's life (reachable through INVOCATION_TRANSITIONS); a
 * card's host-side phase before dispatch counts as `new`, a host refusal is final.
 */
export function isLaterInvocationState(from: string, to: InvocationState): boolean {
  if (from === to) return false;
  const start: InvocationState | 'new' | null = isInvocationStateName(from)
    ? from
    : from === 'validating' || from === 'pending_dispatch'
      ? 'new'
      : null;
  if (start === null) return false;
  const seen = new Set<string>([start]);
  const queue: Array<InvocationState | 'new'> = [start];
  while (queue.length > 0) {
    const next = queue.shift() as InvocationState | 'new';
    for (const s of INVOCATION_TRANSITIONS[next]) {
      if (s === to) return true;
      if (!seen.has(s)) {
        seen.add(s);
        queue.push(s);
      }
    }
  }
  return false;
}

function isInvocationStateName(s: string): s is InvocationState {
  return (INVOCATION_STATES as readonly string[]).includes(s);
}

export function isUnresolved(state: InvocationState): state is UnresolvedInvocationState {
  return (UNRESOLVED_INVOCATION_STATES as readonly string[]).includes(state);
}

export function isOutcomeState(state: string): state is (typeof OUTCOME_INVOCATION_STATES)[number] {
  return (OUTCOME_INVOCATION_STATES as readonly string[]).includes(state);
}

/**
 * A journal entry's last state: the invocation states plus `pending_dispatch` (the dispatch fence
 * is saved, the Hub has not answered yet, or the host stopped before it could).
 */
export const JOURNAL_ENTRY_STATES = ['pending_dispatch', ...INVOCATION_STATES] as const;
export type JournalEntryState = (typeof JOURNAL_ENTRY_STATES)[number];

/**
 * Whether Resume is offered for a call — the one place this is decided (conversation cards, the
 * Needs attention list, the renderer when a live receipt arrives). It needs the original
 * invocation id and target, nothing of the call may be unsaved (restore first), and the call must be
 * in a resumable state, or be a saved dispatch fence the Hub never answered (`pending_dispatch`):
 * resume then asks the Hub with the original id and yields its authoritative answer; it never
 * sends a replacement invoke.
 */
export function canResume(call: {
  invocationId: string | null;
  targetKnown: boolean;
  unsaved: boolean;
  state: string | null;
}): boolean {
  if (call.invocationId === null || !call.targetKnown || call.unsaved || call.state === null) return false;
  return isResumable(call.state) || call.state === 'pending_dispatch';
}

/**
 * Host-side phases of a call card before (or instead of) a Hub state: `validating` (local checks),
 * `pending_dispatch` (run and dispatch fence being saved), `refused` (refused on the host, nothing sent).
 */
export const CARD_PHASES = ['validating', 'pending_dispatch', 'refused'] as const;
export type CardPhase = (typeof CARD_PHASES)[number];
export const CARD_STATES = [...CARD_PHASES, ...INVOCATION_STATES] as const;
export type CardState = (typeof CARD_STATES)[number];

/** Card states shown as a problem (red): the call failed, was refused, or its result is not known. */
export const CARD_PROBLEM_STATES = [
  'failed',
  'unknown',
  'unverified',
  'refused',
  'not_dispatched',
  'denied',
] as const satisfies readonly CardState[];

/** Card states of a call whose request never left for the business system (refused before dispatch). */
export const CARD_NOT_SENT_STATES = ['refused', 'not_dispatched'] as const satisfies readonly CardState[];

export function neverSent(state: string): boolean {
  return (CARD_NOT_SENT_STATES as readonly string[]).includes(state);
}

export function isProblemState(state: string): boolean {
  return (CARD_PROBLEM_STATES as readonly string[]).includes(state);
}

/**
 * How a card state is shown at a glance (colour and icon together, never colour alone): still in
 * progress or waiting, done, failed or refused, or a result that needs a person to check it.
 */
export const CARD_TONES = ['pending', 'done', 'failed', 'check'] as const;
export type CardTone = (typeof CARD_TONES)[number];
export const CARD_STATE_TONES: Readonly<Record<CardState, CardTone>> = {
  validating: 'pending',
  pending_dispatch: 'pending',
  refused: 'failed',
  not_dispatched: 'failed',
  awaiting_approval: 'pending',
  approved: 'pending',
  denied: 'failed',
  dispatching: 'pending',
  succeeded: 'done',
  failed: 'failed',
  unknown: 'check',
  unverified: 'check',
};
export function cardTone(state: string): CardTone {
  return (CARD_STATE_TONES as Record<string, CardTone>)[state] ?? 'check';
}

/** What the Hub knows about whether a request reached the business system. */
export const DISPATCH_EVIDENCE = ['none', 'attempted', 'confirmed'] as const;
export type DispatchEvidence = (typeof DISPATCH_EVIDENCE)[number];

export const TASK_STATES = ['active', 'paused', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TASK_TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  active: ['paused', 'cancelled'],
  paused: ['active', 'cancelled'],
  cancelled: [],
};

export function canTransitionTask(from: TaskState, to: TaskState): boolean {
  return TASK_TRANSITIONS[from].includes(to);
}

/** Why a task-bound call was refused a permit. A refused call is `not_dispatched` and spends nothing. */
export const TASK_REFUSAL_CODES = [
  'task_paused',
  'task_cancelled',
  'task_expired',
  'budget_exhausted',
  'in_flight_limit',
  'rate_limited',
  'tool_not_in_task',
  'authorization_not_in_task',
  'constraint_violation',
  /** The call's agent session is enrolled in a task and the call does not carry that task_id. */
  'task_required',
] as const;
export type TaskRefusalCode = (typeof TASK_REFUSAL_CODES)[number];

/**
 * Why a call that had its permit was still `not_dispatched`: the request failed before its first
 * byte was written, so the business system cannot have seen it. Nothing is spent (the permit, the
 * write budget and the rate-window slot are given back). A failure after the request was written
 * (a reset, a timeout) is never one of these: it stays `unknown`.
 */
export const NOT_SENT_REASON_CODES = [
  /** A header value (e.g. the authorization's on-behalf-of subject) cannot travel in HTTP. */
  'not_sent_invalid_header',
  /** The request could not be built from the stored arguments (e.g. a missing path parameter). */
  'not_sent_invalid_request',
  /** The business system's host name did not resolve. */
  'not_sent_dns_failed',
  /** The business system refused the connection. */
  'not_sent_connect_refused',
  /** No connection could be made (unreachable network or host, reset before connecting). */
  'not_sent_connect_failed',
  /** The connection was not established within the call's timeout. */
  'not_sent_connect_timeout',
  /** The TLS handshake failed (certificate, protocol): nothing was written over it. */
  'not_sent_tls_failed',
  /** The Hub was shutting down before the connection was made. */
  'not_sent_aborted',
  /** The system or authorization disappeared between the permit and the send. */
  'not_sent_target_missing',
  /** The Hub could not read its store just before sending (e.g. PostgreSQL went away). */
  'not_sent_store_unavailable',
  /**
   * An MCP server was not connected (its process could not be started, it did not answer
   * `initialize`, or its session was gone): the `tools/call` was never written (docs/mcp.md).
   */
  'not_sent_not_connected',
  /** The system's signing secret could not be opened with the Hub's secret key (docs/operations.md). */
  'not_sent_credentials_unavailable',
  /**
   * The destination is refused: the host resolved to a link-local or cloud-metadata address, or
   * plain http to a host that is not loopback without the system's `allow_insecure_http`.
   */
  'not_sent_destination_refused',
] as const;
export type NotSentReasonCode = (typeof NOT_SENT_REASON_CODES)[number];

/**
 * What kind of business system the Hub governs (docs/mcp.md): `http`, an HTTP service compiled from
 * OpenAPI + ACC, or `mcp`, an MCP server whose tools are compiled from `tools/list` and an overlay.
 */
export const SYSTEM_KINDS = ['http', 'mcp'] as const;
export type SystemKind = (typeof SYSTEM_KINDS)[number];

/**
 * Whether a business system is in service or retired (docs/hub-api.md "Retiring a system"): the
 * Hub says it with `system_retired_at` (null: in service); the desk words the state from its code.
 */
export const SYSTEM_SERVICE_STATES = ['in_service', 'retired'] as const;
export type SystemServiceState = (typeof SYSTEM_SERVICE_STATES)[number];
export const systemServiceState = (retiredAt: string | null | undefined): SystemServiceState =>
  retiredAt ? 'retired' : 'in_service';

/** How the Hub reaches an MCP server: a process it starts and supervises, or a URL. */
export const MCP_TRANSPORTS = ['stdio', 'streamable_http'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** The Hub's connection to one MCP server, as its supervisor reports it. */
export const MCP_CONNECTION_STATES = ['connecting', 'connected', 'disconnected'] as const;
export type McpConnectionState = (typeof MCP_CONNECTION_STATES)[number];

/**
 * Where a governed value of an MCP tool comes from (Settings' tool table, docs/mcp.md#the-overlay):
 * the operator's overlay, the server's annotations (hints, with MCP's defaults for absent ones), or
 * the Hub's default (a timeout, no rate limit, no look-up tool, enabled).
 */
export const MCP_VALUE_ORIGINS = ['overlay', 'annotations', 'default'] as const;
export type McpValueOrigin = (typeof MCP_VALUE_ORIGINS)[number];

/**
 * What asking for business evidence found about a call whose answer was lost (reconcile.ts; an
 * HTTP system's operations look-up, an MCP server's look-up tool or task — docs/mcp.md#recovery):
 * settled (`succeeded`, `failed`), or not (`not_found`, `unavailable`, `unsupported`: nothing can
 * be asked, `pending`: an MCP task still running).
 */
export const EVIDENCE_CHECK_OUTCOMES = [
  'succeeded',
  'failed',
  'not_found',
  'unavailable',
  'unsupported',
  'pending',
] as const;
export type EvidenceCheckOutcome = (typeof EVIDENCE_CHECK_OUTCOMES)[number];

/** The statuses of an MCP task (`tasks/get`), and those it ends in. */
export const MCP_TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
export type McpTaskStatus = (typeof MCP_TASK_STATUSES)[number];
export const MCP_TASK_END_STATUSES: readonly McpTaskStatus[] = ['completed', 'failed', 'cancelled'];

/** What an MCP server's look-up tool answers about an idempotency key (docs/mcp.md#look-up-tools). */
export const MCP_LOOKUP_STATUSES = ['succeeded', 'failed', 'not_found'] as const;
export type McpLookupStatus = (typeof MCP_LOOKUP_STATUSES)[number];

export const AUTHORIZATION_STATES = ['active', 'revoked', 'rebound'] as const;
export type AuthorizationState = (typeof AUTHORIZATION_STATES)[number];

export const APPROVAL_STATES = ['pending', 'approved', 'denied'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** Host-side invocation journal states (docs/journal.md#states). */
export const JOURNAL_STATES = ['ready', 'inactive', 'unsupported', 'blocked', 'storage_error'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

/** Host-side conversation archive states (independent of the journal's). */
export const ARCHIVE_STATES = ['ready', 'storage_error', 'recovery_gap'] as const;
export type ArchiveState = (typeof ARCHIVE_STATES)[number];

export const RUN_STATES = ['open', 'ended'] as const;
export type RunState = (typeof RUN_STATES)[number];

/**
 * Whether a session's whole scope is usable in this runtime: `open` (revalidated, or an empty
 * scope), `offline` (the Hub was unreachable at the last check: closed, re-checked lazily),
 * `blocked` (a member revoked, rebound or missing: the whole group), `not_opened` (persisted, not
 * checked in this runtime yet; checked lazily like offline).
 */
export const SESSION_AVAILABILITIES = ['open', 'offline', 'blocked', 'not_opened'] as const;
export type SessionAvailability = (typeof SESSION_AVAILABILITIES)[number];

/** Availabilities whose scope is checked lazily, when something first needs the Hub (invariant 8). */
export const LAZILY_CHECKED_AVAILABILITIES = [
  'offline',
  'not_opened',
] as const satisfies readonly SessionAvailability[];

export function needsScopeCheck(availability: SessionAvailability): boolean {
  return (LAZILY_CHECKED_AVAILABILITIES as readonly string[]).includes(availability);
}

/** The last whole-scope check a journal status reports. */
export const SCOPE_CHECK_STATES = ['ok', 'blocked', 'offline'] as const;
export type ScopeCheckState = (typeof SCOPE_CHECK_STATES)[number];

/** How a turn ended; with `running`, the states a turn goes through (runtime events and the IPC event alike). */
export const TURN_OUTCOMES = ['completed', 'cancelled', 'failed', 'refused'] as const;
export type TurnOutcome = (typeof TURN_OUTCOMES)[number];
export const TURN_STATES = ['running', ...TURN_OUTCOMES] as const;
export type TurnState = (typeof TURN_STATES)[number];

/** How a model reply ended, as the archive keeps it (`interrupted`: the stream broke after some of it arrived). */
export const MESSAGE_FINISH_STATES = [
  'stop',
  'tool_calls',
  'length',
  'cancelled',
  'error',
  'interrupted',
] as const;
export type MessageFinishState = (typeof MESSAGE_FINISH_STATES)[number];

/**
 * Why a model request is tried again (429, 500–504, a connection error, a timeout; only before any
 * token). A code list like TASK_REFUSAL_CODES: `rate_limited` is also a Hub error code.
 */
export const MODEL_RETRY_REASONS = ['rate_limited', 'server_error', 'connection', 'timeout'] as const;
export type ModelRetryReason = (typeof MODEL_RETRY_REASONS)[number];

/** Settings' Test connection: the model list (`not_offered`: the provider has no GET /models) and the one-token completion. */
export const CONNECTION_TEST_LIST_STATES = ['listed', 'not_offered', 'failed'] as const;
export type ConnectionTestListState = (typeof CONNECTION_TEST_LIST_STATES)[number];
export const CONNECTION_TEST_STEP_STATES = ['ok', 'failed', 'skipped'] as const;
export type ConnectionTestStepState = (typeof CONNECTION_TEST_STEP_STATES)[number];

/** The desktop app's connection to the Hub (its event stream). */
export const HUB_CONNECTION_STATES = ['connected', 'connecting', 'disconnected'] as const;
export type HubConnectionState = (typeof HUB_CONNECTION_STATES)[number];

/**
 * Why the chosen Hub cannot be used at all this launch (the app opens offline and says so, with
 * a way to Settings): a remote Hub without its URL or client token (e.g. a token kept for one
 * session only), or a remote Hub that did not answer when the app started and has never been met.
 */
export const HUB_PROBLEMS = ['remote_not_configured', 'remote_unreachable'] as const;
export type HubProblem = (typeof HUB_PROBLEMS)[number];

/** Settings' Test connection for a remote Hub: what the address and the token turned out to be. */
export const HUB_TEST_STATES = [
  'ok',
  'unreachable',
  'not_a_hub',
  'no_token',
  'unauthorized',
  'failed',
] as const;
export type HubTestState = (typeof HUB_TEST_STATES)[number];

/** The Hub client's event stream (SSE). */
export const EVENT_STREAM_STATES = ['open', 'reconnecting', 'closed'] as const;
export type EventStreamState = (typeof EVENT_STREAM_STATES)[number];

/** The renderer's link to the browser host (WebSocket). */
export const HOST_LINK_STATES = [
  'connecting',
  'open',
  'reconnecting',
  'unreachable',
  'rejected',
  'no_token',
  /** The access link was already used (by another tab or window): it opens the app once. */
  'link_used',
] as const;
export type HostLinkState = (typeof HOST_LINK_STATES)[number];

/** The OS keychain as the app found it. */
export const KEYCHAIN_STATES = ['available', 'unavailable'] as const;
export type KeychainState = (typeof KEYCHAIN_STATES)[number];
/** Why the OS keychain is unavailable, as a code the UI words (the technical detail is kept beside it). */
export const KEYCHAIN_REASONS = ['keytar_missing', 'secret_service_unavailable'] as const;
export type KeychainReason = (typeof KEYCHAIN_REASONS)[number];

/** What a reconciliation step found in the business system's evidence (a receipt's `reconciliation`). */
export const RECONCILIATION_OUTCOMES = [
  'succeeded',
  'failed',
  'not_found',
  'unavailable',
  'inconclusive',
] as const;
export type ReconciliationOutcome = (typeof RECONCILIATION_OUTCOMES)[number];

/**
 * What a business system's operations look-up says of an operation it recorded
 * (docs/business-systems.md#operations-look-up).
 */
export const BUSINESS_OPERATION_STATUSES = ['succeeded', 'failed'] as const;
export type BusinessOperationStatus = (typeof BUSINESS_OPERATION_STATUSES)[number];

/** The operator's actions on one original call: read it, continue or reconcile it, or settle it from what they checked. */
export const RECOVERY_ACTIONS = ['inspect', 'resume', 'attest'] as const;
export type RecoveryAction = (typeof RECOVERY_ACTIONS)[number];

/**
 * Why a sent call ended as it did: a receipt's `reason_code` on `failed`, `unknown` and
 * `unverified` (and `operator_attested` on a call a person settled). The UI words each of them.
 */
export const OUTCOME_REASON_CODES = [
  'business_rejected',
  'business_server_error',
  'no_response_timeout',
  'no_response_connection_lost',
  'no_response_aborted',
  /** An MCP server's process exited while the call was in flight (docs/mcp.md). */
  'no_response_server_exited',
  'lookup_not_found',
  'lookup_unavailable',
  'hub_restarted',
  'hub_instance_lost',
  OPERATOR_ATTESTED,
] as const;
export type OutcomeReasonCode = (typeof OUTCOME_REASON_CODES)[number];

/** What the Hub did on a resume. */
export const RESUME_ACTIONS = ['dispatched', 'reconciled', 'unchanged', 'refused'] as const;
export type ResumeAction = (typeof RESUME_ACTIONS)[number];

/**
 * The category of a call's feedback (host and Hub refusals, storage errors, unknown outcomes;
 * docs/journal.md#failure-rules).
 */
export const FEEDBACK_CATEGORIES = [
  'storage_error',
  'blocked',
  'unsupported',
  'invocation_outcome_unknown',
  'not_dispatched',
  'declaration_changed',
  'tool_not_loaded',
  'arguments_invalid',
  'hub_unavailable',
  'hub_error',
] as const;
export type FeedbackCategory = (typeof FEEDBACK_CATEGORIES)[number];

/**
 * The demo systems' business data file (docs/business-systems.md#where-the-demo-data-lives):
 * `ok`, or why the file cannot be used (then that system refuses every call `demo_data_unavailable` and
 * writes nothing until the operator resets its data; the file is set aside, never overwritten).
 */
export const DEMO_DATA_STATES = ['ok', 'unreadable', 'corrupt', 'incompatible'] as const;
export type DemoDataState = (typeof DEMO_DATA_STATES)[number];
export const DEMO_DATA_PROBLEMS = [
  'unreadable',
  'corrupt',
  'incompatible',
] as const satisfies readonly Exclude<DemoDataState, 'ok'>[];
export type DemoDataProblem = (typeof DEMO_DATA_PROBLEMS)[number];
/** Where a demo system keeps its business data: in memory (tests) or in a file of the data folder. */
export const DEMO_DATA_STORAGES = ['memory', 'file'] as const;
export type DemoDataStorage = (typeof DEMO_DATA_STORAGES)[number];
