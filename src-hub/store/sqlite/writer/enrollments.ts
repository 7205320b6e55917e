/**
 * The session enrollments the writer thread read or wrote, kept so that a permit does not read its
 * session's enrollment again (sql/ops/invocation-change.ts KeptEnrollments), and the sessions it
 * read as not enrolled (null: a call without a task reads its session's enrollment too). An enrollment is
 * permanent once written, yet a kept one is served only while it is certainly the stored one, with
 * the discipline of the kept invocation rows (invocation-rows.ts):
 *   - invocation-change.ts is the only code that writes the session_enrollments table, and it puts
 *     every enrollment it writes, in the transaction that writes it;
 *   - the group committer forgets every kept enrollment when a transaction or a savepoint is rolled
 *     back (one put by a write that did not commit), and when another connection committed since
 *     its last transaction (`PRAGMA data_version`: the operator CLI's store, a restored row);
 *   - past KEPT_ENROLLMENTS the one put longest ago goes first.
 */
import type { KeptEnrollments } from '../../sql/ops/invocation-change.js';

/** The most enrollments kept (the sessions of a Hub's busy tasks, with room to spare). */
export const KEPT_ENROLLMENTS = 8192;

export interface EnrollmentRows extends KeptEnrollments {
  /** Forgets every kept enrollment (a rollback, another connection's commit). */
  forget(): void;
  readonly size: number;
}

export function createEnrollmentRows(limit = KEPT_ENROLLMENTS): EnrollmentRows {
  const rows = new Map<string, string | null>();
  // a client id has no NUL (hub-api.ts ClientIdSchema), so the first NUL ends it: one key per session
  const key = (clientId: string, agentSessionId: string) => `${clientId}\u0000${agentSessionId}`;
  return {
    get(clientId, agentSessionId) {
      return rows.get(key(clientId, agentSessionId));
    },
    put(clientId, agentSessionId, taskId) {
      const k = key(clientId, agentSessionId);
      if (!rows.has(k) && rows.size >= limit) rows.delete(rows.keys().next().value as string);
      rows.set(k, taskId);
    },
    forget() {
      rows.clear();
    },
    get size() {
      return rows.size;
    },
  };
}
