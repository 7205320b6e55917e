/**
 * The reads of a batch's changes of existing calls (an outcome: `dispatching -> succeeded`, its
 * permit released), sent in the batch's first round trip instead of one change at a time after it.
 *
 * A change of an existing call locks the call (`invocation:<id>`), reads its row, and — releasing
 * its permit — learns from the release's row count whether the permit was still open: two round
 * trips each, and in a batch of a task they came after the statement that locks the task row
 * (FOR UPDATE), so the row was held through all of them. Here, right behind BEGIN and ahead of
 * everything else the batch sends (pipelined: the same socket write), one statement locks every
 * call of the batch (sorted: two batches lock them in one order; and before the task row, the
 * order the one-change path locks them in) and one reads the existing ones with whether each one's permit
 * is still open. The session then answers each change's lock, its read and its release's count
 * from them (session.ts knowLocked, knowRows, knowCount): its release goes out held back with its
 * other writes, checked to change the row the read promised.
 *
 * Why the answers hold: invocations and permits are written only by changes of their call, under
 * its lock (sql/ops/invocation-change.ts, permit-run.ts), so what was read after that lock is what
 * the change would read; only a call with one change in the batch is read ahead (an earlier change
 * of the same call would move it). Only the first run of a batch reads ahead: a rerun with
 * savepoints reads as the one-change path does (a rollback to a savepoint forgets what was known).
 *
 * A batch whose view is read ahead (view-ahead.ts) reads its new calls too, in the same statement
 * (none may exist; one that does is a repeat, `stale`), and their sessions' enrollments: a change
 * of a new call, one alone or a permit run (permit-run.ts), then reads nothing of its own.
 */
import type { InvocationChange } from '../types.js';
import { READ_INVOCATION_SQL } from '../sql/ops/invocations.js';
import { READ_ENROLLMENT_SQL, RELEASE_PERMIT_SQL } from '../sql/ops/invocation-change.js';
import type { Row } from '../sql/session.js';
import { lockCalls } from './lock-order.js';
import type { PgSession } from './session.js';

// = ANY(ARRAY(...)): probed in the primary key, one lookup per call (plans.ts)
const CALLS = `SELECT i.*, (p.permit_id IS NOT NULL AND p.released_at_ms IS NULL) AS permit_open__
  FROM invocations i LEFT JOIN permits p ON p.permit_id = i.permit_id
  WHERE i.invocation_id = ANY (ARRAY(SELECT json_array_elements_text(?::json)))`;
const PERMIT_OPEN = 'permit_open__';
export const ENROLLED = `SELECT e.client_id, e.agent_session_id, e.task_id FROM session_enrollments e
  JOIN json_to_recordset(?::json) AS k(c text, a text) ON e.client_id = k.c AND e.agent_session_id = k.a`;

/** What was read ahead: each call's row (as READ_INVOCATION_SQL reads it), and whether its permit is open. */
export interface ReadAhead {
  rows: Map<string, Row>;
  permitOpen: Map<string, boolean>;
}

/**
 * The changes whose reads go ahead: the only change of its call in the batch, of an existing call
 * (and with `newCalls`, of a new one too: its read finds no row, or the call a repeat created).
 */
export function readsAhead(
  changes: ReadonlyArray<InvocationChange | null>,
  newCalls = false,
): InvocationChange[] {
  const seen = new Map<string, number>();
  for (const c of changes) if (c) seen.set(c.invocation_id, (seen.get(c.invocation_id) ?? 0) + 1);
  return changes.filter(
    (c): c is InvocationChange =>
      c !== null && (newCalls || c.from !== 'new') && seen.get(c.invocation_id) === 1,
  );
}

/**
 * The enrollments of the sessions of the batch's new calls, read in the first round trip: a new
 * call's change reads its session's (READ_ENROLLMENT_SQL), the one-change path and a permit run
 * alike. An enrollment is permanent, so one read without a lock is the change's answer; a session
 * not enrolled yet is locked and read again by the change itself, as without this.
 */
function enrollmentsAhead(s: PgSession, all: ReadonlyArray<InvocationChange | null>): void {
  const sessions = new Map<string, [string, string]>();
  for (const c of all)
    if (c?.from === 'new' && c.enrollment && c.create)
      sessions.set(`${c.create.client_id}:${c.create.agent_session_id}`, [
        c.create.client_id,
        c.create.agent_session_id,
      ]);
  if (sessions.size === 0) return;
  const read = Promise.resolve(
    s.all<{ client_id: string; agent_session_id: string; task_id: string }>(ENROLLED, [
      JSON.stringify([...sessions.values()].map(([c, a]) => ({ c, a }))),
    ]),
  );
  read.catch(() => undefined); // its failure is the statement's, seen by whoever awaits what it read
  for (const [key, [client, session]] of sessions)
    s.knowRows(
      READ_ENROLLMENT_SQL,
      [client, session],
      read.then((rows) =>
        rows
          .filter((r) => `${r.client_id}:${r.agent_session_id}` === key)
          .map((r) => ({ task_id: r.task_id })),
      ),
    );
}

/**
 * Sends now, without waiting, the locks of every call of the batch (before anything else the batch
 * locks: lock-order.ts — a new call's lock taken by its change, after an earlier change had taken
 * the task row, deadlocked with the same call's create on another instance), the reads of the
 * changes of existing calls (readsAhead), and primes the session with them. With `newCalls`, the
 * new calls' reads too (in the same statement) and their sessions' enrollments: a change of a new
 * call, or a permit run, then sends no read of its own (a view read ahead, view-ahead.ts, locks
 * the task row right behind these).
 */
export function readAhead(
  s: PgSession,
  all: ReadonlyArray<InvocationChange | null>,
  opts: { newCalls?: boolean } = {},
): Promise<ReadAhead> {
  const changes = readsAhead(all, opts.newCalls === true);
  lockCalls(
    s,
    all.flatMap((c) => (c ? [c.invocation_id] : [])),
  );
  if (opts.newCalls) enrollmentsAhead(s, all);
  if (changes.length === 0) return Promise.resolve({ rows: new Map(), permitOpen: new Map() });
  const ids = changes.map((c) => c.invocation_id);
  void s.indexPlans().catch(() => undefined);
  const read = Promise.resolve(s.all<Row>(CALLS, [JSON.stringify(ids)])).then((found) => {
    const ahead: ReadAhead = { rows: new Map(), permitOpen: new Map() };
    const byId = new Map(changes.map((c) => [c.invocation_id, c]));
    for (const { [PERMIT_OPEN]: open, ...row } of found) {
      const id = String(row.invocation_id);
      ahead.rows.set(id, row);
      ahead.permitOpen.set(id, open === true);
      const release = byId.get(id)?.release_permit;
      if (release && !release.refund && row.permit_id !== null)
        s.knowCount(RELEASE_PERMIT_SQL, [release.now_ms, String(row.permit_id)], open === true ? 1 : 0);
    }
    return ahead;
  });
  for (const id of ids)
    s.knowRows(
      READ_INVOCATION_SQL,
      [id],
      read.then(({ rows }) => {
        const row = rows.get(id);
        return row ? [row] : [];
      }),
    );
  read.catch(() => undefined); // its failure is the statement's, seen by whoever awaits what it read
  return read;
}
