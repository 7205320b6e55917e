/** Reading invocations and approvals (they are written only by invocation-change.ts). */
import type { ApprovalState, InvocationState } from '../../../../src-shared/states.js';
import type { ApprovalRecord, InvocationRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toApproval, toInvocation } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';

/** An invocation's row, read after its lock (`invocation:<id>`): PostgreSQL batches read it ahead (postgres/outcome-reads.ts). */
export const READ_INVOCATION_SQL = 'SELECT * FROM invocations WHERE invocation_id = ?';

/**
 * The invocation rows a single writer (SQLite's writer thread) wrote itself, kept so that its next
 * change of a call (the outcome after the permit) does not read and decode the row again. The
 * keeper answers a row only while it is the stored one: invocation-change.ts is the only code that
 * writes the invocations table and puts every row it writes, and the writer forgets them all when
 * anything else may have changed one (a rollback, another connection: writer/invocation-rows.ts).
 */
export interface KeptInvocations {
  /** The row as this writer last wrote it, or undefined: not kept, read it. */
  get(invocationId: string): InvocationRecord | undefined;
  /** The row as just written in the running transaction. */
  put(record: InvocationRecord): void;
}

export function* readInvocation(s: SqlSession, invocationId: string): Step<InvocationRecord | null> {
  const row = yield* io(s.get<Row>(READ_INVOCATION_SQL, [invocationId]));
  return row ? toInvocation(row) : null;
}

export function* readApproval(s: SqlSession, approvalId: string): Step<ApprovalRecord | null> {
  const row = yield* io(s.get<Row>('SELECT * FROM approvals WHERE approval_id = ?', [approvalId]));
  return row ? toApproval(row) : null;
}

export function* getInvocation({ sql }: OpEnv, invocationId: string): Step<InvocationRecord | null> {
  return yield* readInvocation(sql, invocationId);
}

export function* listInvocationsInState({ sql }: OpEnv, state: InvocationState): Step<InvocationRecord[]> {
  const rows = yield* io(
    sql.all<Row>('SELECT * FROM invocations WHERE state = ? ORDER BY created_at, invocation_id', [state]),
  );
  return rows.map(toInvocation);
}

export function* getApproval({ sql }: OpEnv, approvalId: string): Step<ApprovalRecord | null> {
  return yield* readApproval(sql, approvalId);
}

export function* listApprovals({ sql }: OpEnv, state?: ApprovalState): Step<ApprovalRecord[]> {
  const rows = state
    ? yield* io(
        sql.all<Row>('SELECT * FROM approvals WHERE state = ? ORDER BY created_at, approval_id', [state]),
      )
    : yield* io(sql.all<Row>('SELECT * FROM approvals ORDER BY created_at, approval_id'));
  return rows.map(toApproval);
}
