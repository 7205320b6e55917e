/**
 * The one order in which every PostgreSQL transaction of the store takes its locks, so two of them
 * (on one instance or two) never wait for each other in a cycle — a deadlock PostgreSQL breaks only
 * after deadlock_timeout (a second), rolling one back to run again:
 *
 *   1. the calls' keys (`invocation:<id>`, advisory): a batch takes all of its calls' at once, in
 *      key order, before anything else (`lockCalls`; a change alone takes its own first);
 *   2. the task row (`SELECT ... FOR UPDATE`): a batch holds at most one task's (group-commit.ts),
 *      and takes it before any session's key even when only a change's writes need it — the
 *      task's per-state counts and view mark are written only under it (`lockTaskRow`; a change
 *      of a call of a task locks its row right after its call's read, ops/invocation-change.ts);
 *   3. the agent sessions' keys (`enrollment:<client>:<session>`), only of a session not enrolled
 *      yet, in key order;
 *   4. the operation's declared-rate key (`operation-rate:<authorization>:<tool>`).
 *
 * Everything else a transaction writes is locked by one of those first: a call's own rows (its
 * invocation, permit, approval, dispatch count) by its call's key, a task's counts and mark by its
 * row, a session's enrollment by its key; new rows lock nothing another transaction waits for.
 * A system's key (`system:<id>`) is held shared by every new call of the system (after its call's
 * key, wherever the batch is then) and exclusively only by a retire or a change of its declarations,
 * which wait for nothing a batch holds. The event sequencer's pass (event-sequencer.ts) takes its
 * own key, then the marked tasks' rows in task order, then its counter row; no batch takes either.
 */
import type { PgSession } from './session.js';

/** Transaction locks on the keys of a JSON array parameter, taken in the array's order. */
export const LOCK_KEYS_SQL = `SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) AS locked
  FROM json_array_elements_text(?::json) AS k`;

/** The task row's lock: read nothing, lock it (a change whose gates do not read the row). */
export const TASK_ROW_LOCK_SQL = 'SELECT 1 AS locked FROM tasks WHERE task_id = ? FOR UPDATE';

/** What the session knows it holds (PgSession knowLocked) once it locked a task's row. */
export const taskRowKey = (taskId: string): string => `row:tasks:${taskId}`;

/**
 * Sends now, without waiting, one statement taking the calls' keys in key order (those the
 * session holds already are left out), and records them held: each change's own lock then sends
 * nothing.
 */
export function lockCalls(s: PgSession, invocationIds: readonly string[]): void {
  const keys = [...new Set(invocationIds.map((id) => `invocation:${id}`))]
    .filter((k) => !s.holdsLock(k))
    .sort();
  if (keys.length === 0) return;
  void Promise.resolve(s.all(LOCK_KEYS_SQL, [JSON.stringify(keys)])).catch(() => undefined);
  for (const key of keys) s.knowLocked(key);
}

/**
 * Sends now, without waiting, the task row's lock (unless the session holds it already), and
 * records it held. Its failure is the transaction's, seen by the next statement awaited.
 */
export function lockTaskRow(s: PgSession, taskId: string): void {
  const key = taskRowKey(taskId);
  if (s.holdsLock(key)) return;
  void Promise.resolve(s.get(TASK_ROW_LOCK_SQL, [taskId])).catch(() => undefined);
  s.knowLocked(key);
}
