/**
 * The invocation ports: what the session runtime (sessions, model loop, cache, archive) asks of
 * the invocation runtime (journal, dispatch fence, recovery, scope store), and what that one
 * promises back. Names and shapes follow the recovery contract (docs/design.md#the-recovery-contract,
 * docs/journal.md).
 */
import type {
  FeedbackCategory,
  InvocationState,
  JournalEntryState,
  JournalState,
  RecoveryAction,
  ScopeCheckState,
} from '../../src-shared/states.js';
import type { AttestRequest, Declaration, Receipt } from '../../src-shared/hub-api.js';

// ---------- session scope (fixed at session creation) ----------

export interface ScopeMember {
  authorization_ref: string;
  authorization_revision: number;
  system_id: string;
  account: string;
}

export interface SessionScope {
  sessionId: string;
  hubId: string;
  clientId: string;
  workspaceId: string;
  /** Identifies the Hub connection (hub URL + client id), never the token. */
  connectionKey: string;
  members: ScopeMember[]; // empty = no selected business scope (journal state `inactive`)
  fingerprint: string; // sha256 over the sorted members and the connection
  revision: number; // starts at 1
  taskId: string | null;
}

export interface ScopeStore {
  load(sessionId: string): Promise<SessionScope | null>;
  save(scope: SessionScope): Promise<void>;
}

// ---------- feedback (docs/journal.md#failure-rules-and-feedback) ----------

export type { FeedbackCategory } from '../../src-shared/states.js';

export interface Feedback {
  category: FeedbackCategory;
  code: string; // e.g. invocation_store_unavailable, invocation_not_found, task_paused
  message: string;
  next_action: string; // e.g. restore_invocations, inspect_original, search_tools, wait, none
  /**
   * What the code's words cannot carry, as it came: the Hub's or the business system's own
   * message, schema errors, the member or the cause named. The UI shows it beside the sentence it
   * words from `code`; it never decides anything from it.
   */
  detail?: string;
  retryable: boolean;
  original_outcome?: Extract<InvocationState, 'unverified' | 'unknown'>;
  invocation_id?: string;
}

// ---------- journal status (getSessionInvocationStatus / restoreSessionInvocations) ----------

export interface InvocationStatusEntry {
  invocation_id: string;
  authorization_ref: string;
  tool: string;
  original_run_id: string;
  last_known_state: JournalEntryState;
  retry_at: string | null;
  result_verified: false;
}

export interface UnsavedRecord {
  invocation_id: string;
  reason: string; // invocation_store_unavailable | invocation_store_conflict | ...
  since: string;
  /** On a conflict: the unsaved local state and the different state found stored (both kept for inspection). */
  local_state?: string;
  stored_state?: string;
}

export interface InvocationStatus {
  state: JournalState;
  entries: InvocationStatusEntry[];
  unsavedRecords: UnsavedRecord[];
  revision?: number;
  reason?: string;
  /** 'offline': the last whole-scope check in this runtime could not reach the Hub (closed, recoverable). */
  scope_state?: ScopeCheckState;
  scope_reason?: string;
  /** The member a blocked scope names (authorization_ref), when known. */
  scope_ref?: string;
  /** File store only: a lock left behind by a writer that may have crashed. Never removed automatically. */
  lock?: { owner: string; pid: number; since: string } | null;
}

// ---------- remote actions (inspect / resume / attest) ----------

/** The operator's recovery actions on one original call (attest: record what they checked; sends nothing). */
export type InvocationAction = RecoveryAction;

export interface InvocationActionEnvelope {
  schema: 'bailing.agent-session-invocation-action.v1';
  /** `ready` = the interface returned normally; NOT that the business action succeeded. */
  state: JournalState;
  action: InvocationAction;
  invocation_id: string;
  /** Whether the runtime submitted resume to the Hub client; not whether the business action ran. */
  resume_dispatched: boolean;
  receipt: Receipt | null; // the original server receipt when obtained
  feedback: Feedback | null;
  unsavedRecords: UnsavedRecord[];
}

/** The live session handle the two remote actions require (a real, reopened session). */
export interface SessionHandle {
  sessionId: string;
  scope: SessionScope;
  /** Current turn's id when a recovery happens inside a turn (audit association only). */
  turnId: string | null;
}

// ---------- the governed call (dispatch fence) ----------

export interface GovernedCallRequest {
  declaration: Declaration;
  arguments: Record<string, unknown>;
  runId: string;
  turnId: string;
  hostCallId: string;
}

export type GovernedCallOutcome =
  | { kind: 'receipt'; invocation_id: string; receipt: Receipt; feedback: Feedback | null }
  | { kind: 'not_sent'; invocation_id: string | null; feedback: Feedback }
  | { kind: 'sent_unconfirmed'; invocation_id: string; feedback: Feedback };

/** Hooks and the abort signal of one governed call. */
export interface GovernedCallOptions {
  /**
   * Before the request leaves: nothing is sent. After it left: the call returns `sent_unconfirmed`
   * at once, the HTTP request is left to finish, and its late receipt is still recorded in the
   * journal and handed to `onLateReceipt` (a cancelled turn keeps late receipts without re-enabling
   * its tools).
   */
  signal?: AbortSignal;
  onLateReceipt?: (receipt: Receipt, feedback: Feedback | null) => void;
  /**
   * Called once, right after the fence was saved and right before the request is handed to the
   * Hub: from here on the call may have been sent (the card reads "Running"). Never called for a
   * call that is refused before that point. A throwing hook does not stop the call.
   */
  onSent?: (invocationId: string) => void;
}

export interface InvocationRuntime {
  /** Save the fence with CAS, then invoke; never retries a write. */
  invokeGoverned(
    session: SessionHandle,
    call: GovernedCallRequest,
    opts?: GovernedCallOptions,
  ): Promise<GovernedCallOutcome>;
  getSessionInvocationStatus(sessionId: string): Promise<InvocationStatus>;
  restoreSessionInvocations(sessionId: string): Promise<InvocationStatus>;
  inspectSessionInvocation(
    session: SessionHandle,
    invocationId: string,
    opts?: { signal?: AbortSignal },
  ): Promise<InvocationActionEnvelope>;
  resumeSessionInvocation(
    session: SessionHandle,
    invocationId: string,
    opts?: { signal?: AbortSignal },
  ): Promise<InvocationActionEnvelope>;
  /**
   * The operator's attestation of an unresolved call (unknown / unverified): the Hub settles it
   * from what they checked in the business system and sends nothing; the journal records the new
   * state like any receipt.
   */
  attestSessionInvocation(
    session: SessionHandle,
    invocationId: string,
    attestation: AttestRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<InvocationActionEnvelope>;
  /** Whole-scope revalidation against the Hub: every member must be active at its original revision. */
  revalidateScope(scope: SessionScope, opts?: { signal?: AbortSignal }): Promise<ScopeCheck>;
}

/** Why one member blocks a whole scope, as a value: the code and the member it names. */
export interface ScopeBlock {
  /** `system_retired`: a run or call of the member was refused because the Hub retired its system. */
  reason:
    | 'authorization_revoked'
    | 'authorization_rebound'
    | 'authorization_missing'
    | 'binding_conflict'
    | 'system_retired';
  authorization_ref: string;
}

export type ScopeCheck =
  { state: 'ok' } | ({ state: 'blocked' } & ScopeBlock) | { state: 'offline'; reason: string };
