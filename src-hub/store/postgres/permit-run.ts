/**
 * Set-based permits (PostgreSQL): a run of a batch's changes that each create a call of one task
 * with a task permit (`new -> dispatching`, or refused) is applied with a few statements for the
 * whole run instead of a handful per change:
 *
 *   1. one round trip of pipelined statements: the transaction locks of every call (one
 *      statement), a read of the calls (none may exist yet), of the sessions' enrollments, the
 *      task row locked FOR UPDATE, and — for a task with a rate limit — the permits granted in the
 *      current window; a session not enrolled yet (its first call) is then locked and read again,
 *      one more round trip, as the one-change path does;
 *   2. the decisions, in the Hub, one change at a time in batch order, with the rules the
 *      one-change path applies (enrollment, then the task permit: budget, in-flight, rate), each
 *      against the state every earlier change of the run left (counters kept in memory from the
 *      locked row);
 *   3. the writes, set-wise: one INSERT per table from a JSON array of the run's rows (calls,
 *      permits, dispatch counts, enrollments, audit entries, events, in the order the one-change
 *      path writes them), one upsert of the task's per-state counts and one UPDATE of the task's
 *      counters — held back and sent with the next statement (session.ts), so they cost no round
 *      trip of their own.
 *
 * Exact across instances for the same reason as the one-change path: the task row stays locked
 * from step 1 to COMMIT, and the calls' locks are taken before anything is read.
 * What the run cannot decide alone — a call that exists already (a repeated create: `stale`), the
 * same call twice in the run, a rate window that changes within the run — is handed back to the
 * one-change path (applyInvocationChange), in the same transaction. A change with anything else to
 * do (an approval, a permit release, an operation with a declared rate limit) never joins a run.
 * The calls' systems' keys are held shared and their rows read in step 1, as the one-change path
 * checks them (`live_system`, ops/systems.ts sendLiveSystemCheck); a run with a call to a retired system fails
 * with SystemRetiredError, and the batch runs again one change at a time, where only that call fails.
 */
import type {
  InvocationChange,
  InvocationChangeResult,
  InvocationRecord,
  PermitDecision,
  PermitRecord,
} from '../types.js';
import type { OpEnv } from '../sql/env.js';
import {
  applyInvocationChange,
  applyPatch,
  grantedPermitRecord,
  READ_ENROLLMENT_SQL,
  refusedRecord,
} from '../sql/ops/invocation-change.js';
import { READ_INVOCATION_SQL } from '../sql/ops/invocations.js';
import { INVOCATION_COLUMNS, invocationValues, toTask } from '../sql/rows.js';
import { runAsync, type Row } from '../sql/session.js';
import { taskChanged } from '../sql/task-events.js';
import { windowBounds } from '../sql/window.js';
import { ENROLLED } from './outcome-reads.js';
import { LOCK_KEYS_SQL, taskRowKey } from './lock-order.js';
import type { PgSession } from './session.js';
import { SystemRetiredError } from '../errors.js';
import { SHARED_LOCK_KEYS_SQL, systemLockKey } from '../sql/ops/systems.js';

/** A change a run can apply: a new call of a task, with its permit and nothing else to write. */
export function joinsRun(change: InvocationChange): boolean {
  const base = change.create;
  return (
    change.from === 'new' &&
    base !== undefined &&
    change.permit !== undefined &&
    base.task_id === change.permit.task_id &&
    base.approval_id === null &&
    !change.create_approval &&
    !change.decide_approval &&
    !change.release_permit &&
    !change.only_if_orphaned &&
    !(change.operation_rate && base.operation.rate_limit)
  );
}

/** What changes of one run share: the task, and the rate window their permits are counted in. */
export function runKey(change: InvocationChange): string {
  const p = change.permit!;
  const start = p.window_ms ? windowBounds(p.now_ms, p.window_ms).start : null;
  return `${p.task_id}\u0000${p.window_ms ?? ''}\u0000${start ?? ''}`;
}

// = ANY(ARRAY(...)): probed in the primary key, one lookup per call (IN (SELECT ...) may hash the table)
export const EXISTING = `SELECT invocation_id FROM invocations
  WHERE invocation_id = ANY (ARRAY(SELECT json_array_elements_text(?::json)))`;
// read after the systems' keys are held shared (a retire holds them exclusively); the retired ones told apart after
const SYSTEMS = `SELECT system_id, retired_at FROM systems
  WHERE system_id = ANY (ARRAY(SELECT json_array_elements_text(?::json)))`;

/** `INSERT INTO table (columns) SELECT columns FROM` the rows of one JSON array parameter, in its order. */
const insertRows = (table: string, columns: readonly string[], extra = '') =>
  `INSERT INTO ${table} (${columns.join(', ')})
   SELECT ${columns.map((c) => `r.${c}`).join(', ')}
   FROM json_populate_recordset(NULL::${table}, ?::json) WITH ORDINALITY AS r ORDER BY r.ordinality${extra}`;

const PERMIT_COLUMNS = ['permit_id', 'task_id', 'invocation_id', 'effect', 'granted_at_ms'] as const;
const DISPATCH_COLUMNS = ['invocation_id', 'authorization_ref', 'tool', 'granted_at_ms'] as const;
const ENROLLMENT_COLUMNS = [
  'client_id',
  'agent_session_id',
  'task_id',
  'invocation_id',
  'enrolled_at',
] as const;
const AUDIT_COLUMNS = [
  'at',
  'actor',
  'kind',
  'invocation_id',
  'task_id',
  'from_state',
  'to_state',
  'detail_json',
] as const;
const EVENT_COLUMNS = ['client_id', 'type', 'payload_json', 'at'] as const;

const INSERT_INVOCATIONS = insertRows('invocations', INVOCATION_COLUMNS);
const INSERT_PERMITS = insertRows('permits', PERMIT_COLUMNS);
const INSERT_DISPATCHES = insertRows('operation_dispatches', DISPATCH_COLUMNS, ' ON CONFLICT DO NOTHING');
const INSERT_ENROLLMENTS = insertRows('session_enrollments', ENROLLMENT_COLUMNS);
const INSERT_AUDIT = insertRows('audit', AUDIT_COLUMNS);
const INSERT_EVENTS = insertRows('events', EVENT_COLUMNS);
const UPDATE_TASK = `UPDATE tasks SET writes_used = writes_used + ?, permits_granted = permits_granted + ?,
  permits_open = permits_open + ?, updated_at = ? WHERE task_id = ?`;

type Rows = Array<Record<string, unknown>>;
const sessionKey = (r: Pick<InvocationRecord, 'client_id' | 'agent_session_id'>) =>
  `${r.client_id}:${r.agent_session_id}`;

/**
 * Applies `changes` (each `joinsRun`, all of one `runKey`) in order, in the session's transaction;
 * answers each as applyInvocationChange would have, one after another.
 */
export async function applyPermitRun(
  s: PgSession,
  env: OpEnv,
  changes: readonly InvocationChange[],
): Promise<InvocationChangeResult[]> {
  const ids = changes.map((c) => c.invocation_id);
  const oneByOne = () =>
    changes.reduce<Promise<InvocationChangeResult[]>>(
      async (done, c) => [...(await done), await runAsync(applyInvocationChange(env, c))],
      Promise.resolve([]),
    );
  if (new Set(ids).size !== ids.length) return oneByOne(); // the second of a call finds the first

  const first = changes[0]!;
  const taskId = first.permit!.task_id;
  const sessions = new Map<string, { c: string; a: string }>();
  for (const c of changes)
    if (c.enrollment)
      sessions.set(sessionKey(c.create!), { c: c.create!.client_id, a: c.create!.agent_session_id });
  const readEnrollments = (of: Array<{ c: string; a: string }>) =>
    of.length > 0
      ? s.all<{ client_id: string; agent_session_id: string; task_id: string }>(ENROLLED, [
          JSON.stringify(of),
        ])
      : Promise.resolve([]);
  // what the batch read ahead (outcome-reads.ts, view-ahead.ts) is taken from the session; the
  // rest is read now. One round trip: each statement goes out behind the one before, without
  // waiting for its answer
  const keys = ids.map((id) => `invocation:${id}`);
  const locked = keys.every((k) => s.holdsLock(k))
    ? Promise.resolve([])
    : s.all(LOCK_KEYS_SQL, [JSON.stringify(keys.sort())]);
  const readAhead = ids.every((id) => s.knows(READ_INVOCATION_SQL, [id]));
  const planned = readAhead ? null : s.indexPlans(); // for EXISTING (plans.ts)
  const existing = readAhead
    ? Promise.all(ids.map((id) => s.all<{ invocation_id: string }>(READ_INVOCATION_SQL, [id]))).then((r) =>
        r.flat(),
      )
    : s.all<{ invocation_id: string }>(EXISTING, [JSON.stringify(ids)]);
  const knownSessions: Array<Promise<{ client_id: string; agent_session_id: string; task_id: string }[]>> =
    [];
  const toRead: Array<{ c: string; a: string }> = [];
  for (const v of sessions.values()) {
    if (!s.knows(READ_ENROLLMENT_SQL, [v.c, v.a])) toRead.push(v);
    else
      knownSessions.push(
        Promise.resolve(s.all<{ task_id: string }>(READ_ENROLLMENT_SQL, [v.c, v.a])).then((rows) =>
          rows.map((r) => ({ client_id: v.c, agent_session_id: v.a, task_id: r.task_id })),
        ),
      );
  }
  const enrolled = Promise.all([readEnrollments(toRead), ...knownSessions]).then((r) => r.flat());
  const liveSystems = [...new Set(changes.flatMap((c) => (c.live_system ? [c.live_system] : [])))];
  // the systems' keys held shared, then their rows read in a statement of their own (ops/systems.ts)
  const systemsHeld =
    liveSystems.length > 0
      ? s.all(SHARED_LOCK_KEYS_SQL, [JSON.stringify(liveSystems.map(systemLockKey).sort())])
      : Promise.resolve([]);
  const systems =
    liveSystems.length > 0
      ? s.all<{ system_id: string; retired_at: string | null }>(SYSTEMS, [JSON.stringify(liveSystems)])
      : Promise.resolve([]);
  const taskRow = s.get<Row>('SELECT * FROM tasks WHERE task_id = ? FOR UPDATE', [taskId]);
  s.knowLocked(taskRowKey(taskId));
  const p0 = first.permit!;
  const bounds = p0.window_ms ? windowBounds(p0.now_ms, p0.window_ms) : null;
  const inWindow = bounds
    ? s.get<{ n: number }>(
        'SELECT COUNT(*)::int AS n FROM permits WHERE task_id = ? AND granted_at_ms >= ?',
        [taskId, bounds.start],
      )
    : Promise.resolve({ n: 0 });
  const [, , found, enrollments, row, window, , systemRows] = await Promise.all([
    planned,
    locked,
    existing,
    enrolled,
    taskRow,
    inWindow,
    systemsHeld,
    systems,
  ]);
  if (found.length > 0) return oneByOne(); // a repeated create: its change answers `stale`
  const retired = systemRows.find((r) => r.retired_at !== null);
  if (retired) throw new SystemRetiredError(retired.system_id);
  if (!row) throw new Error(`task ${taskId} vanished inside the dispatch transaction`);

  const { rules } = env;
  const task = toTask(row);
  let inFlight = Number(row.permits_open);
  let usedInWindow = Number(window?.n ?? 0);
  const enrolledIn = new Map(enrollments.map((e) => [sessionKey(e), String(e.task_id)]));
  // An enrollment is permanent: one that exists was read without a lock. A session not enrolled
  // yet (its first call) is locked and read again, as the one-change path does, so two first calls
  // cannot both enroll it; only then, so a run of enrolled sessions takes no lock but the calls'
  // and the task's — a batch whose earlier change holds the task row takes no session lock after it.
  const unenrolled = [...sessions].filter(([k]) => !enrolledIn.has(k));
  if (unenrolled.length > 0) {
    const keys = unenrolled.map(([k]) => `enrollment:${k}`).sort();
    const [, again] = await Promise.all([
      s.all(LOCK_KEYS_SQL, [JSON.stringify(keys)]),
      readEnrollments(unenrolled.map(([, v]) => v)),
    ]);
    for (const e of again) enrolledIn.set(sessionKey(e), String(e.task_id));
  }

  const invocations: Rows = [];
  const permits: Rows = [];
  const dispatches: Rows = [];
  const enrollmentRows: Rows = [];
  const audit: Rows = [];
  const events: Rows = [];
  const states = new Map<string, number>();
  const counted = { writes: 0, permits: 0, at: '' };
  const answers: InvocationChangeResult[] = [];

  for (const change of changes) {
    const base = change.create!;
    const p = change.permit!;
    let refusal: {
      decision: Extract<PermitDecision, { ok: false }>;
      refused_to: InvocationRecord['state'] | null;
    } | null = null;
    let enroll = false;
    if (change.enrollment) {
      const current = enrolledIn.get(sessionKey(base)) ?? null;
      const d = rules.evaluateEnrollment(current, {
        agent_session_id: base.agent_session_id,
        task_id: base.task_id,
      });
      if (!d.ok) refusal = { decision: d, refused_to: change.enrollment.refused_to };
      else enroll = current === null && base.task_id !== null;
    }
    if (!refusal) {
      const b = p.window_ms ? windowBounds(p.now_ms, p.window_ms) : null;
      const d = rules.evaluatePermit(
        {
          task,
          in_flight: inFlight,
          used_in_window: b ? usedInWindow : 0,
          window_start_ms: b?.start ?? 0,
          window_end_ms: b?.end ?? 0,
        },
        p.effect,
        p.now_ms,
      );
      if (!d.ok) refusal = { decision: d, refused_to: p.refused_to };
    }

    let record: InvocationRecord;
    let permit: PermitRecord | null = null;
    if (refusal) {
      record = refusedRecord(base, refusal, change.at);
    } else {
      permit = grantedPermitRecord(change, p);
      permits.push({ ...permit });
      const spent = p.effect === 'write' ? 1 : 0;
      counted.writes += spent;
      counted.permits += 1;
      counted.at = change.at;
      task.writes_used += spent;
      task.permits_granted += 1;
      task.updated_at = change.at;
      inFlight += 1;
      usedInWindow += 1;
      if (change.operation_rate)
        dispatches.push({
          invocation_id: change.invocation_id,
          authorization_ref: base.authorization_ref,
          tool: base.tool,
          granted_at_ms: change.operation_rate.now_ms,
        });
      record = {
        ...applyPatch({ ...base, state: change.to }, change.patch, change.at),
        permit_id: p.permit_id,
      };
    }
    const values = invocationValues(record);
    invocations.push(Object.fromEntries(INVOCATION_COLUMNS.map((c, i) => [c, values[i]])));
    states.set(record.state, (states.get(record.state) ?? 0) + 1);
    if (enroll) {
      enrolledIn.set(sessionKey(base), base.task_id!);
      enrollmentRows.push({
        client_id: base.client_id,
        agent_session_id: base.agent_session_id,
        task_id: base.task_id,
        invocation_id: base.invocation_id,
        enrolled_at: change.at,
      });
      audit.push({
        at: change.at,
        actor: change.audit.actor,
        kind: 'session.enrolled',
        invocation_id: base.invocation_id,
        task_id: base.task_id,
        from_state: null,
        to_state: null,
        detail_json: JSON.stringify({ agent_session_id: base.agent_session_id }),
      });
    }
    audit.push({
      at: change.at,
      actor: change.audit.actor,
      kind: refusal && !refusal.refused_to ? 'invocation.permit_refused' : change.audit.kind,
      invocation_id: record.invocation_id,
      task_id: record.task_id,
      from_state: null,
      to_state: record.state,
      detail_json: JSON.stringify({
        ...change.audit.detail,
        reason_code: record.reason_code,
        dispatch: record.dispatch,
      }),
    });
    events.push({
      client_id: record.client_id,
      type: 'invocation.changed',
      payload_json: JSON.stringify(rules.invocationEvent(record, null)),
      at: change.at,
    });
    await runAsync(
      taskChanged(env, taskId, change.at, {
        invocation_id: record.invocation_id,
        state: record.state,
        created_at: record.created_at,
        updated_at: record.updated_at,
        tool: record.tool,
        authorization_ref: record.authorization_ref,
      }),
    );
    answers.push(
      refusal
        ? { kind: 'refused', record, approval: null, refusal: refusal.decision }
        : { kind: 'applied', record, approval: null, permit },
    );
  }

  // held back (session.ts): the INSERTs of new rows go out as one statement, the two row updates after
  for (const [sql, list] of [
    [INSERT_PERMITS, permits],
    [INSERT_DISPATCHES, dispatches],
    [INSERT_INVOCATIONS, invocations],
    [INSERT_ENROLLMENTS, enrollmentRows],
    [INSERT_AUDIT, audit],
    [INSERT_EVENTS, events],
  ] as const)
    if (list.length > 0) await s.write(sql, [JSON.stringify(list)]);
  s.markEventAppended();
  const counts = [...states].sort(([a], [b]) => (a < b ? -1 : 1));
  await s.write(
    `INSERT INTO task_state_counts (task_id, state, n) VALUES ${counts.map(() => '(?, ?, ?)').join(', ')}
     ON CONFLICT (task_id, state) DO UPDATE SET n = task_state_counts.n + excluded.n`,
    counts.flatMap(([state, n]) => [taskId, state, n]),
  );
  if (counted.permits > 0)
    await s.write(UPDATE_TASK, [counted.writes, counted.permits, counted.permits, counted.at, taskId], 1);
  return answers;
}
