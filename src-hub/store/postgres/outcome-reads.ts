/**
 * The reads of a batch's changes of existing calls (an outcome: `dispatching -> succeeded`, its
 * permit released), sent in the batch's first round trip instead of one change at a time after it.
 *
 * A change of an existing call locks the call (`invocation:<id>`), reads its row, and — releasing
 * its permit — learns from the release's row count whether the permit was still open: two round
 * trips each, and in a batch of a task they came after the statement that locks the task row
 * (FOR UPDATE), so the row was held through all of them. Here, right behind BEGIN and ahead of
 * everything else the batch sends (pipelined: the same socket write), one statement locks every
 * such call of the batch (sorted: two batches lock them in one order; and before the task row, the
 * order the one-change path locks them in) and one reads their rows with whether each one's permit
 * is still open. The session then answers each change's lock, its read and its release's count
 * from them (session.ts knowLocked, knowRows, knowCount): its release goes out held back with its
 * other writes, checked to change the row the read promised.
 *
 * Why the answers hold: invocations and permits are written only by changes of their call, under
 * its lock (sql/ops/invocation-change.ts, permit-run.ts), so what was read after that lock is what
 * the change would read; only a call with one change in the batch is read ahead (an earlier change
 * of the same call would move it). Only the first run of a batch reads ahead: a rerun with
 * savepoints reads as the one-change path does (a rollback to a savepoint forgets what was known).
 */
import type { InvocationChange } from '../types.js';
import { READ_INVOCATION_SQL } from '../sql/ops/invocations.js';
import { RELEASE_PERMIT_SQL } from '../sql/ops/invocation-change.js';
import type { Row } from '../sql/session.js';
import type { PgSession } from './session.js';

const LOCK_KEYS = `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) AS locked
  FROM json_array_elements_text(?::json) AS k`;
// = ANY(ARRAY(...)): probed in the primary key, one lookup per call (plans.ts)
const CALLS = `SELECT i.*, (p.permit_id IS NOT NULL AND p.released_at_ms IS NULL) AS permit_open__
  FROM invocations i LEFT JOIN permits p ON p.permit_id = i.permit_id
  WHERE i.invocation_id = ANY (ARRAY(SELECT json_array_elements_text(?::json)))`;
const PERMIT_OPEN = 'permit_open__';

/** The changes whose reads go ahead: of an existing call, the only change of that call in the batch. */
export function readsAhead(changes: ReadonlyArray<InvocationChange | null>): InvocationChange[] {
  const seen = new Map<string, number>();
  for (const c of changes) if (c) seen.set(c.invocation_id, (seen.get(c.invocation_id) ?? 0) + 1);
  return changes.filter(
    (c): c is InvocationChange => c !== null && c.from !== 'new' && seen.get(c.invocation_id) === 1,
  );
}

/** Sends the locks and reads of `changes` (readsAhead) now, without waiting, and primes the session with them. */
export function readAhead(s: PgSession, changes: readonly InvocationChange[]): void {
  if (changes.length === 0) return;
  const ids = changes.map((c) => c.invocation_id);
  const keys = ids.map((id) => `invocation:${id}`);
  void s.indexPlans().catch(() => undefined);
  void Promise.resolve(s.all(LOCK_KEYS, [JSON.stringify([...keys].sort())])).catch(() => undefined);
  const read = Promise.resolve(s.all<Row>(CALLS, [JSON.stringify(ids)])).then((rows) => {
    const byId = new Map<string, Row>();
    for (const { [PERMIT_OPEN]: open, ...row } of rows) {
      byId.set(String(row.invocation_id), row);
      const change = changes.find((c) => c.invocation_id === row.invocation_id);
      const release = change?.release_permit;
      if (release && !release.refund && row.permit_id !== null)
        s.knowCount(RELEASE_PERMIT_SQL, [release.now_ms, String(row.permit_id)], open === true ? 1 : 0);
    }
    return byId;
  });
  for (const [i, id] of ids.entries()) {
    s.knowLocked(keys[i]!);
    s.knowRows(
      READ_INVOCATION_SQL,
      [id],
      read.then((byId) => {
        const row = byId.get(id);
        return row ? [row] : [];
      }),
    );
  }
}
