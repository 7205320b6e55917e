/** Journal entries: building the dispatch fence, applying a receipt, comparing bindings. */
import type { Receipt } from '../../../src-shared/hub-api.js';
import { INVOCATION_TRANSITIONS, type InvocationState } from '../../../src-shared/states.js';
import type { JournalEntry } from '../../journal/index.js';
import type { SessionScope } from '../invocation-ports.js';

const HEX64 = /^[0-9a-f]{64}$/;

/** The fields that identify a call forever; a different value under the same id is a binding conflict. */
const BINDING_FIELDS = [
  'invocation_id',
  'agent_session_id',
  'hub_id',
  'client_id',
  'workspace_id',
  'connection_key',
  'scope_fingerprint',
  'scope_revision',
  'authorization_ref',
  'run_id',
  'tool',
  'declaration_revision',
  'host_call_id',
  'parameter_digest',
  'task_id',
] as const satisfies readonly (keyof JournalEntry)[];

export function sameBinding(a: JournalEntry, b: JournalEntry): boolean {
  return BINDING_FIELDS.every((k) => a[k] === b[k]);
}

/** The recorded outcome part of an entry (what post-dispatch saves change). */
export function outcomeKey(e: Pick<JournalEntry, 'last_state' | 'receipt_digest' | 'retry_at'>): string {
  return `${e.last_state}|${e.receipt_digest ?? ''}|${e.retry_at ?? ''}`;
}

export function sameEntry(a: JournalEntry, b: JournalEntry): boolean {
  return sameBinding(a, b) && outcomeKey(a) === outcomeKey(b);
}

/** The entry is bound to this session's fixed scope (same connection, fingerprint, revision; a member's authorization). */
export function bindingMatchesScope(e: JournalEntry, scope: SessionScope): boolean {
  return (
    e.agent_session_id === scope.sessionId &&
    e.hub_id === scope.hubId &&
    e.client_id === scope.clientId &&
    e.workspace_id === scope.workspaceId &&
    e.connection_key === scope.connectionKey &&
    e.scope_fingerprint === scope.fingerprint &&
    e.scope_revision === scope.revision &&
    scope.members.some((m) => m.authorization_ref === e.authorization_ref)
  );
}

/** The receipt is about this very call (same id, run, authorization, tool, revision, parameters, host call). */
export function receiptMatchesEntry(r: Receipt, e: JournalEntry): boolean {
  return (
    r.invocation_id === e.invocation_id &&
    r.run_id === e.run_id &&
    r.authorization_ref === e.authorization_ref &&
    r.tool === e.tool &&
    r.declaration_revision === e.declaration_revision &&
    r.parameter_digest === e.parameter_digest &&
    r.host_call_id === e.host_call_id &&
    r.agent_session_id === e.agent_session_id
  );
}

export function withReceipt(e: JournalEntry, r: Receipt, now: Date): JournalEntry {
  return {
    ...e,
    last_state: r.state,
    receipt_digest: HEX64.test(r.receipt_digest) ? r.receipt_digest : null,
    retry_at:
      r.retry_after_ms !== null && r.retry_after_ms >= 0
        ? new Date(now.getTime() + r.retry_after_ms).toISOString()
        : null,
  };
}

export function withState(e: JournalEntry, state: JournalEntry['last_state']): JournalEntry {
  return { ...e, last_state: state };
}

/** True when `to` can follow `from` in the invocation state machine (pending_dispatch precedes everything). */
export function isLaterState(from: JournalEntry['last_state'], to: JournalEntry['last_state']): boolean {
  if (from === to) return false;
  if (to === 'pending_dispatch') return false;
  if (from === 'pending_dispatch') return true;
  const seen = new Set<InvocationState>();
  const queue: InvocationState[] = [...INVOCATION_TRANSITIONS[from]];
  while (queue.length) {
    const s = queue.shift()!;
    if (s === to) return true;
    if (seen.has(s)) continue;
    seen.add(s);
    queue.push(...INVOCATION_TRANSITIONS[s]);
  }
  return false;
}
