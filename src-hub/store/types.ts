/**
 * The Hub's storage interface. Handlers and services only talk to `HubStore`. Two implementations
 * share every operation (store/sql/ops): SQLite (store/sqlite, the default: one file, writes
 * group-committed by a writer thread) and PostgreSQL (store/postgres: several Hub instances on one
 * database). Every method that changes more than one row does so in one transaction.
 */
import type {
  ApprovalState,
  AuthorizationState,
  SystemKind,
  DispatchEvidence,
  InvocationState,
  RunState,
  TaskState,
} from '../../src-shared/states.js';
import type {
  RateWindow,
  ReconciliationEvidence,
  SignedPathMode,
  SpecSigningMode,
  SpecDiagnostic,
  TaskBoundary,
  ToolOverlay,
} from '../../src-shared/hub-api.js';
import type { CompiledOperation } from '../acc/types.js';
import type { McpServerSettings, McpToolSource } from '../mcp/types.js';

export interface ClientRecord {
  client_id: string;
  name: string;
  token_hash: string;
  created_at: string;
}

/**
 * What a presented token is checked against, read in one snapshot: the configuration generation
 * (every write of a client or of the admin token sets a new one), the named client and the admin
 * token's salted hash.
 */
export interface CredentialRows {
  generation: string | null;
  client: ClientRecord | null;
  admin_token_hash: string | null;
}

export interface SystemRecord {
  system_id: string;
  name: string;
  base_url: string;
  spec_path: string;
  /**
   * Sealed (AES-256-GCM under the Hub's secret key, which is never in the store: src-hub/secrets);
   * never logged or returned by any route. A value the Hub has not sealed yet (older stores) is
   * sealed at start.
   */
  signing_secret: string;
  /** Whether the spec GET carries the signature headers (docs/business-systems.md). */
  spec_signing: SpecSigningMode;
  /** Which path a call's signature covers: the operation's path, or base-URL prefix + path. */
  signed_path: SignedPathMode;
  /** The admin allowed plain http to a non-loopback host (shown as a warning in every view). */
  allow_insecure_http: boolean;
  spec_revision: string | null;
  diagnostics: SpecDiagnostic[];
  refreshed_at: string | null;
  created_at: string;
  /** `http`, or `mcp`: an MCP server (docs/mcp.md); its secrets are in `signing_secret`. */
  kind: SystemKind;
  /** MCP: the connection settings without secrets; null for an HTTP system. */
  mcp: McpServerSettings | null;
  /** MCP: the tools the server last listed (normalized); null before the first list. */
  mcp_tools: McpToolSource[] | null;
  /** MCP: the operator's overlay by tool name (empty: every tool governed from its annotations). */
  mcp_overlays: Record<string, ToolOverlay>;
  /**
   * When the admin retired the system (docs/hub-api.md "Retiring a system"): no catalogue lists
   * it and no new call goes to it; registering the same id again clears it. Null: in service.
   */
  retired_at: string | null;
}

/** What registering a system writes: an HTTP system needs neither `kind` nor `mcp` (http, null). */
export type SystemInput = Omit<
  SystemRecord,
  | 'spec_revision'
  | 'diagnostics'
  | 'refreshed_at'
  | 'created_at'
  | 'mcp_tools'
  | 'mcp_overlays'
  | 'kind'
  | 'mcp'
  | 'retired_at'
> &
  Partial<Pick<SystemRecord, 'kind' | 'mcp'>>;

export type RetireSystemResult =
  | { kind: 'not_found' }
  | { kind: 'unresolved'; count: number }
  | { kind: 'retired'; system: SystemRecord; already: boolean };

/** What an MCP server's catalog change writes, with the operations compiled from it (one transaction). */
export interface McpCatalogChange {
  system_id: string;
  tools: McpToolSource[];
  overlays: Record<string, ToolOverlay>;
  operations: OperationRecord[];
  spec_revision: string;
  diagnostics: SpecDiagnostic[];
  /** Applies only if the system's spec_revision is still this (null: no catalog yet); else `false`. */
  expected_revision: string | null | undefined;
  at: string;
  audit: AuditInput;
}

export interface OperationRecord {
  system_id: string;
  tool: string;
  declaration_revision: string;
  operation: CompiledOperation;
}

export interface AuthorizationRecord {
  authorization_ref: string;
  system_id: string;
  account: string;
  on_behalf_of: string;
  state: AuthorizationState;
  revision: number;
  created_at: string;
  updated_at: string;
}

export interface RunRecord {
  run_id: string;
  client_id: string;
  agent_session_id: string;
  turn_id: string;
  authorization_ref: string;
  state: RunState;
  created_at: string;
  ended_at: string | null;
}

export interface InvocationRecord {
  invocation_id: string;
  client_id: string;
  run_id: string;
  agent_session_id: string;
  turn_id: string;
  authorization_ref: string;
  authorization_revision: number;
  system_id: string;
  tool: string;
  declaration_revision: string;
  /** The compiled operation as declared when the call was made: resume sends exactly this. */
  operation: CompiledOperation;
  /** The original arguments, kept server-side so an approved call runs with exactly them. */
  arguments: Record<string, unknown>;
  parameter_digest: string;
  host_call_id: string;
  task_id: string | null;
  effect: 'read' | 'write';
  state: InvocationState;
  dispatch: DispatchEvidence;
  reason_code: string | null;
  reason_message: string | null;
  retry_after_ms: number | null;
  result: unknown;
  result_truncated: boolean;
  business_status: number | null;
  approval_id: string | null;
  reconciliation: ReconciliationEvidence[];
  permit_id: string | null;
  /** The business system's own id of the call when it gave one (an MCP task id), saved with the answer that carried it. */
  remote_task_id?: string | null;
  /**
   * The Hub instance (and its incarnation) that moved the call to `dispatching` and sends it; while
   * its lease is live nobody else may turn the call `unknown` (see HubStore.listOrphanedDispatching).
   */
  owner_instance: string | null;
  owner_incarnation: number | null;
  created_at: string;
  updated_at: string;
}

export type InvocationPatch = Partial<
  Pick<
    InvocationRecord,
    | 'dispatch'
    | 'reason_code'
    | 'reason_message'
    | 'retry_after_ms'
    | 'result'
    | 'result_truncated'
    | 'business_status'
    | 'approval_id'
    | 'permit_id'
    | 'owner_instance'
    | 'owner_incarnation'
    | 'remote_task_id'
  >
> & { add_evidence?: ReconciliationEvidence };

export interface ApprovalRecord {
  approval_id: string;
  invocation_id: string;
  client_id: string;
  authorization_ref: string;
  tool: string;
  parameter_digest: string;
  arguments_preview: Record<string, unknown> | null;
  prompt: string | null;
  state: ApprovalState;
  decision_id: string | null;
  decided_by: string | null;
  note: string | null;
  created_at: string;
  decided_at: string | null;
}

export interface TaskRecord {
  task_id: string;
  client_id: string;
  title: string;
  state: TaskState;
  boundary: TaskBoundary;
  writes_used: number;
  permits_granted: number;
  created_at: string;
  updated_at: string;
  paused_at: string | null;
  cancelled_at: string | null;
}

export interface PermitRecord {
  permit_id: string;
  task_id: string;
  invocation_id: string;
  effect: 'read' | 'write';
  granted_at_ms: number;
  released_at_ms: number | null;
}

/** What the permit policy sees inside the dispatch transaction. */
export interface PermitSnapshot {
  task: TaskRecord;
  in_flight: number;
  used_in_window: number;
  window_start_ms: number;
  window_end_ms: number;
}

export type PermitDecision =
  { ok: true } | { ok: false; code: string; message: string; retry_after_ms: number | null };

export type PermitEvaluator = (
  snapshot: PermitSnapshot,
  effect: 'read' | 'write',
  nowMs: number,
) => PermitDecision;

/** What the operation rate check sees inside the dispatch transaction: one (authorization_ref, tool). */
export interface OperationRateSnapshot {
  authorization_ref: string;
  tool: string;
  limit: { count: number; window: RateWindow };
  used_in_window: number;
  window_end_ms: number;
}

export type OperationRateEvaluator = (snapshot: OperationRateSnapshot, nowMs: number) => PermitDecision;

/** enrolledTaskId: the task the call's agent session is enrolled in (null: not enrolled). */
export type EnrollmentEvaluator = (
  enrolledTaskId: string | null,
  call: { agent_session_id: string; task_id: string | null },
) => PermitDecision;

export interface SessionEnrollmentRecord {
  client_id: string;
  agent_session_id: string;
  task_id: string;
  /** The invocation whose creation enrolled the session. */
  invocation_id: string;
  enrolled_at: string;
}

export interface AuditInput {
  actor: string;
  kind: string;
  detail: Record<string, unknown>;
}

export interface AuditRecord {
  seq: number;
  at: string;
  actor: string;
  kind: string;
  invocation_id: string | null;
  task_id: string | null;
  from_state: string | null;
  to_state: string | null;
  detail: Record<string, unknown>;
}

export interface EventRecord {
  seq: number;
  client_id: string;
  type: string;
  payload: Record<string, unknown>;
  at: string;
}

/** An event as stored, for the SSE feed: the payload is the stored JSON text, never parsed. */
export interface StoredEventText {
  seq: number;
  type: string;
  payload_json: string;
}

export interface ApprovalDecisionInput {
  approval_id: string;
  decision_id: string;
  state: Exclude<ApprovalState, 'pending'>;
  decided_by: string;
  note: string | null;
}

/**
 * One atomic change of an invocation: the state move (compare-and-set on `from`), an optional
 * permit (checked and granted in the same transaction), optional approval rows, the audit entry
 * and the durable events (the receipt, and the task's view for a task-bound call), rendered by the
 * store's rules (rules.ts). Plain data. Built only by `transitionInvocation` (invocations/transition.ts).
 */
/** What POST /agent/v1/invocations reads before deciding (HubStore.invokeReads). */
export interface InvokeReadsQuery {
  invocation_id: string;
  run_id: string;
  authorization_ref: string;
  client_id: string;
  tool: string;
  task_id: string | null;
}

/**
 * The answer of HubStore.invokeReads. With `existing` (the id is taken) nothing else is answered. The
 * tool's declaration and the system are answered only for an authorization granted to the client.
 */
export interface InvokeReads {
  existing: InvocationRecord | null;
  run: RunRecord | null;
  authorization: AuthorizationRecord | null;
  granted: boolean;
  operation: OperationRecord | null;
  task: TaskRecord | null;
  system: SystemRecord | null;
  /**
   * The configuration generation, read before the other rows: a client token verified under it is
   * still the client's (http/auth.ts confirms a token it let through from memory against it).
   */
  config_generation: string | null;
}

export interface InvocationChange {
  invocation_id: string;
  from: InvocationState | 'new';
  to: InvocationState;
  at: string;
  /** Required when from === 'new': the full record (its state is overwritten with the outcome). */
  create?: InvocationRecord;
  patch?: InvocationPatch;
  /** Check and grant a task permit atomically with the move; refusals take `refused_to`. */
  permit?: {
    task_id: string;
    effect: 'read' | 'write';
    now_ms: number;
    window_ms: number | null;
    permit_id: string;
    /** State on refusal, or null to keep the current state (an approved call stays approved). */
    refused_to: InvocationState | null;
  };
  /**
   * The agent session's task enrollment, checked first (added by transitionInvocation to every
   * creation and every move to `dispatching`): a session enrolled in a task may only make calls
   * carrying that task_id; a call carrying a task_id enrolls a session that is not enrolled yet.
   */
  enrollment?: { refused_to: InvocationState | null };
  /**
   * The business system's declared per-operation rate limit (the record's operation.rate_limit),
   * counted per (authorization_ref, tool), checked after the task permit and recorded with it.
   * Added by transitionInvocation to every move to `dispatching`.
   */
  operation_rate?: { now_ms: number; refused_to: InvocationState | null };
  /**
   * Releases the call's permit (and ends its in-flight occupancy). With `refund`, the request
   * provably never left the Hub, so nothing is spent: the permit row is removed (freeing its
   * in-flight and rate-window slot), the task's write budget and permits_granted are given back,
   * and the dispatch is removed from the operation's declared-rate window — all in the same
   * transaction that records the outcome.
   */
  release_permit?: { now_ms: number; refund?: boolean };
  /**
   * Recovery by another instance: apply only if the call's owner no longer holds a live lease
   * (answers `stale` when it does), checked inside the transaction.
   */
  only_if_orphaned?: boolean;
  /**
   * A new call's system must not be retired: checked inside the transaction under a shared lock on
   * the system's row, which retiring takes exclusively (store/sql/ops/systems.ts). A retired system
   * fails the change with SystemRetiredError and nothing is written.
   */
  live_system?: string;
  create_approval?: ApprovalRecord;
  decide_approval?: ApprovalDecisionInput;
  audit: AuditInput;
}

export type InvocationChangeResult =
  | {
      kind: 'applied';
      record: InvocationRecord;
      approval: ApprovalRecord | null;
      permit: PermitRecord | null;
    }
  | {
      kind: 'refused';
      record: InvocationRecord;
      approval: ApprovalRecord | null;
      refusal: Extract<PermitDecision, { ok: false }>;
    }
  | { kind: 'stale'; current: InvocationRecord | null };

export interface TaskUsage {
  in_flight: number;
  used_in_window: number;
  window_start_ms: number | null;
  window_end_ms: number | null;
  counts: Partial<Record<InvocationState, number>>;
  /** Settled calls whose evidence is an operator's attestation, by the state they were settled to. */
  settled_by_operator: { succeeded: number; failed: number };
  /** The oldest unresolved calls, at most TASK_VIEW_UNRESOLVED_LIMIT (src-shared/hub-api.ts). */
  unresolved: Array<{
    invocation_id: string;
    state: InvocationState;
    tool: string;
    authorization_ref: string;
    updated_at: string;
  }>;
  /** How many calls are unresolved; `unresolved` lists the oldest TASK_VIEW_UNRESOLVED_LIMIT of them. */
  unresolved_total: number;
}

export interface TaskChange {
  task_id: string;
  from: TaskState;
  to: TaskState;
  at: string;
  audit: AuditInput;
}

/** One running Hub process: its lease says it is alive; its incarnation fences an earlier process of the same id. */
export interface InstanceRecord {
  instance_id: string;
  incarnation: number;
  host: string;
  pid: number;
  started_at: string;
  lease_expires_at_ms: number;
  stopped_at: string | null;
}

export interface MigrationStatus {
  version: number;
  name: string;
  checksum: string;
  applied_at: string;
}

/** A compare-and-set change of an authorization (revoke, rebind), with its audit entry and event. */
export interface AuthorizationChange {
  next: AuthorizationRecord;
  /** The revision `next` was derived from: the change applies only if it is still current. */
  expected_revision: number;
  audit: AuditInput;
  /** The `authorization.changed` payload, appended for every grantee. */
  event: Record<string, unknown>;
}

export interface HubStore {
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Several Hub instances may serve this store at once (PostgreSQL). False for SQLite: one serving
   * Hub per data directory (its lock file), so a starting Hub may treat every earlier instance as gone.
   */
  readonly shared: boolean;
  readonly durability: string;
  hubId(): string;
  tokenSalt(): string;
  getMeta(key: string): Promise<string | null>;
  /** Any meta key but the admin token's (setAdminTokenHash). */
  setMeta(key: string, value: string): Promise<void>;
  /** The admin token's salted hash; sets a new configuration generation in the same transaction. */
  setAdminTokenHash(hash: string): Promise<void>;
  /** The configuration generation (null while nothing has set one). */
  configGeneration(): Promise<string | null>;
  migrations(): Promise<MigrationStatus[]>;

  createClient(c: ClientRecord, audit: AuditInput): Promise<void>;
  upsertClient(c: ClientRecord, audit: AuditInput): Promise<void>;
  getClient(clientId: string): Promise<ClientRecord | null>;
  /** The generation, the client (when named) and the admin token's hash, in one snapshot. */
  credentialRows(clientId: string | null): Promise<CredentialRows>;
  listClients(): Promise<ClientRecord[]>;

  upsertSystem(s: SystemInput, at: string, audit: AuditInput): Promise<SystemRecord>;
  getSystem(systemId: string): Promise<SystemRecord | null>;
  listSystems(): Promise<SystemRecord[]>;
  /**
   * Retires the system in one transaction: refused while any of its calls is unresolved
   * (UNRESOLVED_INVOCATION_STATES); a system already retired is answered as it is (no new audit).
   */
  retireSystem(systemId: string, at: string, audit: AuditInput): Promise<RetireSystemResult>;
  /**
   * Replaces the sealed signing secrets of the named systems and sets the meta values, in one
   * transaction (sealing older plain values, rotating the secret key).
   */
  resealSecrets(
    secrets: ReadonlyArray<{ system_id: string; signing_secret: string }>,
    meta: Readonly<Record<string, string>>,
    audit: AuditInput,
  ): Promise<void>;
  /** Replace the system's current operations (and its search index) in one transaction. */
  replaceOperations(
    systemId: string,
    ops: OperationRecord[],
    specRevision: string,
    diagnostics: SpecDiagnostic[],
    at: string,
    audit: AuditInput,
  ): Promise<void>;
  recordDiagnostics(systemId: string, diagnostics: SpecDiagnostic[], audit: AuditInput): Promise<void>;
  /**
   * Replaces an MCP server's listed tools, overlays and current operations in one transaction, if the
   * system's spec_revision is still `expected_revision` (a concurrent refresh or overlay edit wins
   * otherwise: false, nothing written).
   */
  replaceMcpCatalog(change: McpCatalogChange): Promise<boolean>;
  currentOperation(systemId: string, tool: string): Promise<OperationRecord | null>;
  currentOperations(systemIds: string[]): Promise<OperationRecord[]>;
  /** Ranked search over the systems' current operations; every word is a prefix term, OR-ed. */
  searchOperations(
    words: string[],
    systemIds: string[],
    limit: number,
  ): Promise<Array<{ op: OperationRecord; score: number }>>;

  createAuthorization(a: AuthorizationRecord, audit: AuditInput): Promise<void>;
  getAuthorization(ref: string): Promise<AuthorizationRecord | null>;
  listAuthorizations(clientId?: string): Promise<AuthorizationRecord[]>;
  grant(ref: string, clientId: string, audit: AuditInput): Promise<void>;
  isGranted(ref: string, clientId: string): Promise<boolean>;
  grantees(ref: string): Promise<string[]>;
  /** Compare-and-set on the revision; audits it and appends the event for every grantee. False when it moved. */
  updateAuthorization(change: AuthorizationChange): Promise<boolean>;

  createRun(r: RunRecord): Promise<void>;
  getRun(runId: string): Promise<RunRecord | null>;
  endRun(runId: string, at: string): Promise<RunRecord | null>;

  getInvocation(invocationId: string): Promise<InvocationRecord | null>;
  /** Every row an invoke reads before deciding, read together (see InvokeReads). */
  invokeReads(q: InvokeReadsQuery): Promise<InvokeReads>;
  applyInvocationChange(change: InvocationChange): Promise<InvocationChangeResult>;
  listInvocationsInState(state: InvocationState): Promise<InvocationRecord[]>;

  getApproval(approvalId: string): Promise<ApprovalRecord | null>;
  listApprovals(state?: ApprovalState): Promise<ApprovalRecord[]>;

  appendAudit(
    entry: AuditInput & {
      invocation_id?: string | null;
      task_id?: string | null;
      from_state?: string | null;
      to_state?: string | null;
    },
    at: string,
  ): Promise<void>;
  listAudit(filter: {
    invocation_id?: string;
    task_id?: string;
    kind?: string;
    after_seq?: number;
    limit?: number;
  }): Promise<AuditRecord[]>;

  listEvents(clientId: string, afterSeq: number, limit: number): Promise<EventRecord[]>;
  /**
   * One page of a client's events after `afterSeq`, in seq order, as stored text: at most
   * `maxEvents`, and no more once `maxBytes` of payload text have been read (the event that crosses
   * the bound is included, so a page is never empty while events remain). Seqs are assigned in
   * commit order: no event with a seq at or below one already returned can appear later.
   */
  readEventPage(
    clientId: string,
    afterSeq: number,
    limits: { maxEvents: number; maxBytes: number },
  ): Promise<StoredEventText[]>;
  /**
   * The newest event seq (0 when there are none) and the clients with events after `afterSeq`:
   * one cheap read that tells the SSE streams of this process about events other processes (the
   * operator CLI) appended.
   */
  eventClientsAfter(afterSeq: number): Promise<{ latest: number; clients: string[] }>;
  /**
   * Deletes each client's events older than `before` (ISO time) and all but its newest
   * `keepPerClient`, in one transaction, and raises that client's horizon to the last seq deleted.
   */
  pruneEvents(opts: { before: string; keepPerClient: number }): Promise<{ deleted: number; clients: number }>;
  /** The highest seq pruned for this client (0 when none): a stream resuming below it missed events. */
  eventHorizon(clientId: string): Promise<number>;
  appendEvent(clientId: string, type: string, payload: Record<string, unknown>, at: string): Promise<void>;

  createTask(t: TaskRecord, audit: AuditInput): Promise<void>;
  getTask(taskId: string): Promise<TaskRecord | null>;
  listTasks(clientId?: string): Promise<TaskRecord[]>;
  /** Compare-and-set the task state; null when the task moved meanwhile. */
  changeTaskState(change: TaskChange): Promise<TaskRecord | null>;
  taskUsage(taskId: string, nowMs: number, windowMs: number | null): Promise<TaskUsage>;
  listPermits(taskId: string): Promise<PermitRecord[]>;
  /** The task an agent session is enrolled in, if any (enrollments are permanent). */
  getEnrollment(clientId: string, agentSessionId: string): Promise<SessionEnrollmentRecord | null>;

  /**
   * Registers a starting instance with a lease of `lease_ms` on the database's clock. An instance
   * id seen before gets the next incarnation: calls owned by its earlier incarnations are orphaned
   * at once (that process is gone or fenced).
   */
  registerInstance(input: {
    instance_id: string;
    host: string;
    pid: number;
    started_at: string;
    lease_ms: number;
  }): Promise<InstanceRecord>;
  /** Extends the lease; false when this incarnation was replaced or stopped (it must stop dispatching). */
  renewInstanceLease(instanceId: string, incarnation: number, leaseMs: number): Promise<boolean>;
  /** A clean stop: the lease ends now. */
  stopInstance(instanceId: string, incarnation: number, at: string): Promise<void>;
  /** Ends the lease of every instance but this one (SQLite at start: the data-directory lock proves they are gone). */
  expireOtherInstances(instanceId: string): Promise<void>;
  listInstances(): Promise<InstanceRecord[]>;
  /**
   * `dispatching` calls whose owner holds no live lease (no owner, an unknown or replaced
   * incarnation, an expired or stopped lease): the calls recovery may turn `unknown`.
   */
  listOrphanedDispatching(): Promise<InvocationRecord[]>;
  /**
   * Tells as soon as the store knows about events appended by other processes or instances
   * (PostgreSQL: LISTEN/NOTIFY); 'some' when it cannot say which clients. Optional: the SSE
   * streams' shared poll covers a store without it, only later.
   */
  onEvents?(listener: (clients: string[] | 'some') => void): () => void;
  /**
   * Resolves once every event committed before the call has its seq (PostgreSQL sequences events
   * just after their transaction commits; SQLite at once).
   */
  flushEvents(): Promise<void>;
  /** Transactions (SQLite: each one fsync; PostgreSQL: this instance's) and the writes they carried since the store opened — group commit at work. */
  commitStats?(): Promise<{ batches: number; writes: number }>;

  close(): Promise<void>;
}
