/**
 * The invocation rows the writer thread wrote itself, kept so that the next change of a call (its
 * outcome, after the change that granted its permit) finds the row without reading it again and
 * decoding its JSON columns (sql/ops/invocation-change.ts; ~4 % of the writer's CPU per governed
 * write). A kept row is served only while it is certainly the stored one:
 *   - invocation-change.ts is the only code that writes the invocations table, and it puts every
 *     row it writes, in the transaction that writes it;
 *   - the group committer forgets every kept row when a transaction or a savepoint is rolled back
 *     (a row put by a write that did not commit), and when another connection committed since its
 *     last transaction (`PRAGMA data_version`: the operator CLI's store, a second Hub process);
 *   - a call in a terminal state is not kept (nothing changes it again in the normal course), and
 *     past KEPT_INVOCATIONS the row written longest ago goes first.
 * A row is kept as the record the change wrote it from (not copied, so keeping it costs a permit
 * nothing more than a map entry), and served as a read would decode it: a fresh copy with
 * the same fields in the same order, the ones the record left unset null; its JSON fields are the
 * very values the stored text was rendered from.
 */
import { TERMINAL_INVOCATION_STATES } from '../../../../src-shared/states.js';
import type { KeptInvocations } from '../../sql/ops/invocations.js';
import type { InvocationRecord } from '../../types.js';

/** The most rows kept (a Hub's calls in flight at organisation scale, with room to spare). */
export const KEPT_INVOCATIONS = 8192;

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_INVOCATION_STATES);

/** The record as a read of its row decodes it (sql/rows.ts toInvocation; JSON fields apart, see above). */
function asStored(r: InvocationRecord): InvocationRecord {
  return {
    invocation_id: r.invocation_id,
    client_id: r.client_id,
    run_id: r.run_id,
    agent_session_id: r.agent_session_id,
    turn_id: r.turn_id,
    authorization_ref: r.authorization_ref,
    authorization_revision: r.authorization_revision,
    system_id: r.system_id,
    tool: r.tool,
    declaration_revision: r.declaration_revision,
    operation: r.operation,
    arguments: r.arguments ?? {},
    parameter_digest: r.parameter_digest,
    host_call_id: r.host_call_id,
    task_id: r.task_id ?? null,
    effect: r.effect,
    state: r.state,
    dispatch: r.dispatch,
    reason_code: r.reason_code ?? null,
    reason_message: r.reason_message ?? null,
    retry_after_ms: r.retry_after_ms ?? null,
    result: r.result ?? null,
    result_truncated: r.result_truncated === true,
    business_status: r.business_status ?? null,
    approval_id: r.approval_id ?? null,
    reconciliation: r.reconciliation ?? [],
    permit_id: r.permit_id ?? null,
    owner_instance: r.owner_instance ?? null,
    owner_incarnation: r.owner_incarnation ?? null,
    remote_task_id: r.remote_task_id ?? null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export interface InvocationRows extends KeptInvocations {
  /** Forgets every kept row (a rollback, another connection's commit). */
  forget(): void;
  readonly size: number;
}

export function createInvocationRows(limit = KEPT_INVOCATIONS): InvocationRows {
  const rows = new Map<string, InvocationRecord>();
  return {
    get(invocationId) {
      const kept = rows.get(invocationId);
      return kept === undefined ? undefined : asStored(kept);
    },
    put(record) {
      rows.delete(record.invocation_id); // written again: the newest
      if (TERMINAL.has(record.state)) return;
      if (rows.size >= limit) rows.delete(rows.keys().next().value as string);
      // the record the change answers (which nothing changes after: slim-answer.ts makes copies),
      // not frozen: V8 reads a frozen record's fields more slowly for the rest of its write
      rows.set(record.invocation_id, record);
    },
    forget() {
      rows.clear();
    },
    get size() {
      return rows.size;
    },
  };
}
