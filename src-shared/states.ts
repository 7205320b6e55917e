/**
 * The state vocabulary shared by the Hub, the host runtime and the UI.
 * Every state machine is a table of allowed transitions checked in one place (`canTransition`).
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
 * - `unverified` may still be resolved later if new evidence appears.
 */
export const INVOCATION_TRANSITIONS: Readonly<Record<InvocationState | 'new', readonly InvocationState[]>> = {
  new: ['not_dispatched', 'awaiting_approval', 'dispatching'],
  awaiting_approval: ['approved', 'denied'],
  approved: ['dispatching'],
  dispatching: ['succeeded', 'failed', 'unknown'],
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

export function isUnresolved(state: InvocationState): state is UnresolvedInvocationState {
  return (UNRESOLVED_INVOCATION_STATES as readonly string[]).includes(state);
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

export const AUTHORIZATION_STATES = ['active', 'revoked', 'rebound'] as const;
export type AuthorizationState = (typeof AUTHORIZATION_STATES)[number];

export const APPROVAL_STATES = ['pending', 'approved', 'denied'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** Host-side invocation journal states, exactly as seed 001 defines them. */
export const JOURNAL_STATES = ['ready', 'inactive', 'unsupported', 'blocked', 'storage_error'] as const;
export type JournalState = (typeof JOURNAL_STATES)[number];

/** Host-side conversation archive states (independent of the journal's). */
export const ARCHIVE_STATES = ['ready', 'storage_error', 'recovery_gap'] as const;
export type ArchiveState = (typeof ARCHIVE_STATES)[number];

export const RUN_STATES = ['open', 'ended'] as const;
export type RunState = (typeof RUN_STATES)[number];
