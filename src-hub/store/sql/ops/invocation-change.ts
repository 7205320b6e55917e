/**
 * The one transaction that changes an invocation (both dialects): compare-and-set on the state,
 * the session's task enrollment (check + record), the task permit (check + grant), the operation's
 * declared rate limit (check + count), approval rows, permit release (or refund), the audit entry and the
 * durable events. The first refusal wins and nothing of the later gates is recorded or spent.
 *
 * Exactness under concurrency: SQLite runs every write transaction alone (one writer; a batch's
 * changes are applied one after another against the same state); PostgreSQL serialises what each
 * gate reads with a lock taken before reading it, always in this order (postgres/lock-order.ts):
 * the invocation id, the task row (SELECT ... FOR UPDATE), the agent session, the operation's
 * rate key.
 */
import type { InvocationState } from '../../../../src-shared/states.js';
import type {
  ApprovalRecord,
  InvocationChange,
  InvocationChangeResult,
  InvocationPatch,
  InvocationRecord,
  PermitDecision,
  PermitRecord,
} from '../../types.js';
import type { OpEnv } from '../env.js';
import { changedInvocationValues, INVOCATION_COLUMNS, invocationValues, toTask } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';
import { windowBounds } from '../window.js';
import { insertAudit } from './audit.js';
import { ownerIsLive } from './instances.js';
import { readApproval, readInvocation } from './invocations.js';
import { countOpenPermits } from './task-usage.js';
import { taskChanged } from '../task-events.js';
import { sendLiveSystemCheck } from './systems.js';

export function applyPatch(
  record: InvocationRecord,
  patch: InvocationPatch | undefined,
  at: string,
): InvocationRecord {
  const next: InvocationRecord = { ...record, updated_at: at };
  if (!patch) return next;
  const { add_evidence, ...fields } = patch;
  Object.assign(next, fields);
  if (add_evidence) next.reconciliation = [...record.reconciliation, add_evidence];
  return next;
}

const INSERT_INVOCATION = `INSERT INTO invocations (${INVOCATION_COLUMNS.join(', ')})
  VALUES (${INVOCATION_COLUMNS.map(() => '?').join(', ')})`;

/**
 * Inserts the record (`before` null: the call is new) or compare-and-sets it from `before`'s state,
 * updating only the columns that changed (rows.ts changedInvocationValues: the compiled operation
 * and the arguments are written once, at creation). It cannot find the row moved (the
 * invocation's lock is held and its state was read under it), so it is a write whose one changed
 * row the store checks, failing the transaction otherwise — not a round trip of its own.
 */
function* writeInvocation(
  s: SqlSession,
  record: InvocationRecord,
  before: InvocationRecord | null,
): Step<void> {
  if (before === null) {
    yield* io(s.write(INSERT_INVOCATION, invocationValues(record), 1));
    return;
  }
  const changed = changedInvocationValues(before, record);
  if (changed.length === 0) changed.push(['updated_at', record.updated_at]);
  yield* io(
    s.write(
      `UPDATE invocations SET ${changed.map(([c]) => `${c} = ?`).join(', ')} WHERE invocation_id = ? AND state = ?`,
      [...changed.map(([, v]) => v), record.invocation_id, before.state],
      1,
    ),
  );
}

type Counted = { task_id: string | null; state: string };

/** Calls of a task moved into (+) or out of (-) a state. */
export type StateCountDelta = [taskId: string, state: string, n: number];

/**
 * The task state counts a single writer (SQLite's writer thread) adds up over its batch instead of
 * writing them change by change: it writes the sums once, in the same transaction, before anything
 * in it reads the counts (the batch's task views) and, when a batch runs write by write, at the end
 * of each write's savepoint (writer/state-counts.ts). Nothing else in a write transaction reads
 * them: a permit decision does not.
 */
export interface DeferredStateCounts {
  add(taskId: string, state: string, n: number): void;
}

/** The most rows one statement of writeStateCounts names (a bounded set of statement texts). */
const STATE_COUNT_ROWS = 8;

/**
 * Adds the deltas to `task_state_counts`, in statements of at most STATE_COUNT_ROWS rows, named in
 * the order of their task and state, so two transactions moving calls of one task lock its rows in
 * the same order (PostgreSQL).
 */
export function* writeStateCounts(s: SqlSession, deltas: StateCountDelta[]): Step<void> {
  deltas.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1));
  for (let i = 0; i < deltas.length; i += STATE_COUNT_ROWS) {
    const rows = deltas.slice(i, i + STATE_COUNT_ROWS);
    yield* io(
      s.write(
        `INSERT INTO task_state_counts (task_id, state, n) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}
       ON CONFLICT (task_id, state) DO UPDATE SET n = task_state_counts.n + excluded.n`,
        rows.flat(),
      ),
    );
  }
}

/**
 * Keeps the task's calls per state (`task_state_counts`, read by the task view instead of counting
 * the task's invocations) in step with the invocation row just written: one statement, after
 * every other row the change writes, or added to the writer's sums (DeferredStateCounts).
 */
function* countState(env: OpEnv, before: Counted | null, after: Counted): Step<void> {
  if (before && before.task_id === after.task_id && before.state === after.state) return;
  const deltas: StateCountDelta[] = [];
  if (before?.task_id) deltas.push([before.task_id, before.state, -1]);
  if (after.task_id) deltas.push([after.task_id, after.state, 1]);
  if (deltas.length === 0) return;
  const deferred = env.stateCounts;
  if (deferred) for (const [taskId, state, n] of deltas) deferred.add(taskId, state, n);
  else yield* writeStateCounts(env.sql, deltas);
}

/** A session's enrollment (parameters: client id, agent session id); PostgreSQL batches read it ahead (postgres/outcome-reads.ts). */
export const READ_ENROLLMENT_SQL =
  'SELECT task_id FROM session_enrollments WHERE client_id = ? AND agent_session_id = ?';

/**
 * The session enrollments a single writer (SQLite's writer thread) read or wrote itself: an
 * enrollment never changes once written, so the writer keeps the ones it has seen instead of reading
 * them per change, and forgets them all when anything else may have changed the table (a rollback,
 * another connection: writer/enrollments.ts). A session read as not enrolled is kept too (null),
 * until this writer enrolls it (put) or forgets: only this writer's transactions can enroll it
 * between its reads.
 */
export interface KeptEnrollments {
  /** The task the session is enrolled in, as stored; null: not enrolled; undefined: not kept, read it. */
  get(clientId: string, agentSessionId: string): string | null | undefined;
  /** The session's enrollment (null: none) as read, or as just written in the running transaction. */
  put(clientId: string, agentSessionId: string, taskId: string | null): void;
}

function* readEnrollment(env: OpEnv, base: InvocationRecord): Step<string | null> {
  const kept = env.enrollments?.get(base.client_id, base.agent_session_id);
  if (kept !== undefined) return kept;
  const row = yield* io(
    env.sql.get<{ task_id: string }>(READ_ENROLLMENT_SQL, [base.client_id, base.agent_session_id]),
  );
  if (!row) {
    env.enrollments?.put(base.client_id, base.agent_session_id, null);
    return null;
  }
  const taskId = String(row.task_id);
  env.enrollments?.put(base.client_id, base.agent_session_id, taskId);
  return taskId;
}

/**
 * The task rows a single writer (SQLite's writer thread) read for the permit gates of its running
 * transaction, kept up to date by the grants it writes there (grantedRow), so the permits of one
 * task in a batch read its row once (writer/task-rows.ts). Kept for one transaction only, and
 * dropped whenever a task row changes in a way not mirrored here: a permit released or refunded,
 * any write that is not an invocation change (a task paused, cancelled, created), a rollback.
 */
export interface BatchTaskRows {
  /** The task's row as the running transaction has it, or undefined: read it. */
  get(taskId: string): Row | undefined;
  put(taskId: string, row: Row): void;
  /**
   * A grant of the task's permit done to its kept row, the stored row to be written by the keeper
   * (once for all the grants it holds, before anything reads or changes that row); false when
   * the row is not kept or the keeper does not write it: the grant writes it itself.
   */
  grant?(taskId: string, effect: 'read' | 'write', at: string): boolean;
  /** Forgets every kept row, first writing the grants it holds (a task row changes other than by a grant). */
  drop(): void;
}

/** What the grant's UPDATE of the task row (grantPermit) does, done to a kept copy of that row. */
export function grantedRow(row: Row, effect: 'read' | 'write', at: string): void {
  row.writes_used = Number(row.writes_used) + (effect === 'write' ? 1 : 0);
  row.permits_granted = Number(row.permits_granted) + 1;
  row.permits_open = Number(row.permits_open) + 1;
  row.updated_at = at;
}

type Refusal = { decision: Extract<PermitDecision, { ok: false }>; refused_to: InvocationState | null };

/** A statement sent without waiting for its answer: its failure is seen where it is awaited, if it is. */
function sentAhead<T>(answer: T | Promise<T>): T | Promise<T> {
  if (answer instanceof Promise) answer.catch(() => undefined);
  return answer;
}

/**
 * The gates in order: enrollment, task permit, operation rate. Returns the first refusal and whether to enroll.
 *
 * Their locks are taken in the store's one lock order (PostgreSQL, postgres/lock-order.ts): the
 * task row before the agent session's key. So the task row is locked first, before the enrollment
 * is read (a permit's read of it goes out in the same round trip as the enrollment's read), and a
 * change of a task's call without a permit locks the row too (without reading it): its writes
 * (the task's per-state counts) and its view need it anyway, and a session's key or a count row
 * taken first deadlocked with a batch of the task that held the row and wanted them.
 */
function* checkGates(
  env: OpEnv,
  change: InvocationChange,
  base: InvocationRecord,
): Step<{ refusal: Refusal | null; enroll: boolean }> {
  const { sql: s, rules } = env;
  // a single writer's row of this transaction (BatchTaskRows) is the stored one: no read
  const kept = change.permit ? env.taskRows?.get(change.permit.task_id) : undefined;
  const taskRow =
    change.permit && kept === undefined
      ? sentAhead(
          s.get<Row>(`SELECT * FROM tasks WHERE task_id = ?${s.dialect.forUpdate}`, [change.permit.task_id]),
        )
      : null;
  if (base.task_id !== null && base.task_id !== change.permit?.task_id)
    s.dialect.lockTaskRow?.(s, base.task_id);
  let enroll = false;
  if (change.enrollment) {
    // An enrollment is permanent: one that exists can be read without a lock. Only a call that would
    // enroll its session takes the session's lock and reads again, so two first calls cannot both enroll.
    let enrolled = yield* readEnrollment(env, base);
    if (enrolled === null && base.task_id !== null) {
      yield* s.dialect.lock(s, `enrollment:${base.client_id}:${base.agent_session_id}`);
      enrolled = yield* readEnrollment(env, base);
    }
    const d = rules.evaluateEnrollment(enrolled, {
      agent_session_id: base.agent_session_id,
      task_id: base.task_id,
    });
    if (!d.ok) return { refusal: { decision: d, refused_to: change.enrollment.refused_to }, enroll: false };
    enroll = enrolled === null && base.task_id !== null;
  }
  if (change.permit) {
    const p = change.permit;
    // read under the task row's lock: what is counted after it is every permit committed before it
    const row = kept ?? (yield* io(taskRow!));
    if (!row) throw new Error(`task ${p.task_id} vanished inside the dispatch transaction`);
    if (kept === undefined) env.taskRows?.put(p.task_id, row);
    const task = toTask(row);
    const bounds = p.window_ms ? windowBounds(p.now_ms, p.window_ms) : null;
    // the permits in flight are counted on the locked row itself (as it is after the lock: one
    // statement less while it is held; a single writer's kept row holds grants the stored row
    // does not have yet); only a rate window needs counting its permits
    const open = {
      in_flight: Number(row.permits_open),
      in_window: bounds ? (yield* countOpenPermits(s, p.task_id, bounds.start)).in_window : 0,
    };
    const d = rules.evaluatePermit(
      {
        task,
        in_flight: open.in_flight,
        used_in_window: open.in_window,
        window_start_ms: bounds?.start ?? 0,
        window_end_ms: bounds?.end ?? 0,
      },
      p.effect,
      p.now_ms,
    );
    if (!d.ok) return { refusal: { decision: d, refused_to: p.refused_to }, enroll };
  }
  const limit = base.operation.rate_limit;
  if (change.operation_rate && limit) {
    const r = change.operation_rate;
    yield* s.dialect.lock(s, `operation-rate:${base.authorization_ref}:${base.tool}`);
    const bounds = windowBounds(r.now_ms, rules.windowMs(limit.window));
    const used = yield* io(
      s.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM operation_dispatches WHERE authorization_ref = ? AND tool = ? AND granted_at_ms >= ?',
        [base.authorization_ref, base.tool, bounds.start],
      ),
    );
    const d = rules.evaluateOperationRate(
      {
        authorization_ref: base.authorization_ref,
        tool: base.tool,
        limit,
        used_in_window: Number(used?.n ?? 0),
        window_end_ms: bounds.end,
      },
      r.now_ms,
    );
    if (!d.ok) return { refusal: { decision: d, refused_to: r.refused_to }, enroll };
  }
  return { refusal: null, enroll };
}

function* recordEnrollment(env: OpEnv, change: InvocationChange, base: InvocationRecord): Step<void> {
  if (base.task_id === null) return;
  const s = env.sql;
  yield* io(
    s.write(
      'INSERT INTO session_enrollments (client_id, agent_session_id, task_id, invocation_id, enrolled_at) VALUES (?, ?, ?, ?, ?)',
      [base.client_id, base.agent_session_id, base.task_id, base.invocation_id, change.at],
    ),
  );
  env.enrollments?.put(base.client_id, base.agent_session_id, base.task_id);
  yield* insertAudit(
    s,
    {
      actor: change.audit.actor,
      kind: 'session.enrolled',
      invocation_id: base.invocation_id,
      task_id: base.task_id,
      detail: { agent_session_id: base.agent_session_id },
    },
    change.at,
  );
}

/** The record of a new or changed call refused by a gate: moved to `refused_to` (or left), with the reason. */
export function refusedRecord(
  base: InvocationRecord,
  refusal: { decision: Extract<PermitDecision, { ok: false }>; refused_to: InvocationRecord['state'] | null },
  at: string,
): InvocationRecord {
  const { decision } = refusal;
  return applyPatch(
    { ...base, state: refusal.refused_to ?? base.state },
    { reason_code: decision.code, reason_message: decision.message, retry_after_ms: decision.retry_after_ms },
    at,
  );
}

/** The permit a change's grant creates. */
export function grantedPermitRecord(
  change: InvocationChange,
  p: NonNullable<InvocationChange['permit']>,
): PermitRecord {
  return {
    permit_id: p.permit_id,
    task_id: p.task_id,
    invocation_id: change.invocation_id,
    effect: p.effect,
    granted_at_ms: p.now_ms,
    released_at_ms: null,
  };
}

/** Grants the permit (spending the write budget) and counts the dispatch against the operation's rate. */
function* grantPermit(
  env: OpEnv,
  change: InvocationChange,
  base: InvocationRecord,
): Step<PermitRecord | null> {
  const s = env.sql;
  let permit: PermitRecord | null = null;
  if (change.permit) {
    const p = change.permit;
    yield* io(
      s.write(
        'INSERT INTO permits (permit_id, task_id, invocation_id, effect, granted_at_ms, released_at_ms) VALUES (?, ?, ?, ?, ?, NULL)',
        [p.permit_id, p.task_id, change.invocation_id, p.effect, p.now_ms],
      ),
    );
    // a single writer's kept row takes the grant, and writes it with the batch's others (BatchTaskRows)
    if (!env.taskRows?.grant?.(p.task_id, p.effect, change.at)) {
      yield* io(
        s.write(
          'UPDATE tasks SET writes_used = writes_used + ?, permits_granted = permits_granted + 1, permits_open = permits_open + 1, updated_at = ? WHERE task_id = ?',
          [p.effect === 'write' ? 1 : 0, change.at, p.task_id],
        ),
      );
      const kept = env.taskRows?.get(p.task_id);
      if (kept) grantedRow(kept, p.effect, change.at);
    }
    permit = grantedPermitRecord(change, p);
  }
  // Every dispatch is counted, limited or not, so a limit declared later sees the current window.
  if (change.operation_rate) {
    yield* io(
      s.write(
        'INSERT INTO operation_dispatches (invocation_id, authorization_ref, tool, granted_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
        [change.invocation_id, base.authorization_ref, base.tool, change.operation_rate.now_ms],
      ),
    );
  }
  return permit;
}

/**
 * Releases a permit (parameters: the time, the permit id): changes one row, or none if it was
 * released already. Permits are written only under their call's lock, so a count read after that
 * lock is this statement's (PostgreSQL batches know it ahead: postgres/outcome-reads.ts).
 */
export const RELEASE_PERMIT_SQL =
  'UPDATE permits SET released_at_ms = ? WHERE permit_id = ? AND released_at_ms IS NULL';

/**
 * The approval rows a change creates or decides, and the permit it releases: the one the call held
 * when the change began (`heldPermit`, the invocation row's permit_id — permits are found by their
 * own key, never by the invocation's).
 */
function* applySideRows(env: OpEnv, change: InvocationChange, heldPermit: string | null): Step<void> {
  const s = env.sql;
  if (change.create_approval) {
    const a: ApprovalRecord = change.create_approval;
    yield* io(
      s.write(
        `INSERT INTO approvals (approval_id, invocation_id, client_id, authorization_ref, tool, parameter_digest,
          arguments_preview_json, prompt, state, decision_id, decided_by, note, created_at, decided_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          a.approval_id,
          a.invocation_id,
          a.client_id,
          a.authorization_ref,
          a.tool,
          a.parameter_digest,
          a.arguments_preview === null ? null : JSON.stringify(a.arguments_preview),
          a.prompt,
          a.state,
          a.decision_id,
          a.decided_by,
          a.note,
          a.created_at,
          a.decided_at,
        ],
      ),
    );
  }
  if (change.decide_approval) {
    const d = change.decide_approval;
    const changed = yield* io(
      s.run(
        `UPDATE approvals SET state = ?, decision_id = ?, decided_by = ?, note = ?, decided_at = ?
         WHERE approval_id = ? AND state = 'pending'`,
        [d.state, d.decision_id, d.decided_by, d.note, change.at, d.approval_id],
      ),
    );
    if (changed !== 1) throw new Error(`approval ${d.approval_id} is no longer pending`);
  }
  // a release or a refund changes the task row other than a grant does: kept rows are read again
  if (change.release_permit) env.taskRows?.drop();
  if (change.release_permit?.refund) yield* refundPermit(s, change, heldPermit);
  else if (change.release_permit && heldPermit !== null) {
    const released = yield* io(s.run(RELEASE_PERMIT_SQL, [change.release_permit.now_ms, heldPermit]));
    if (released === 1)
      yield* io(
        s.write(
          'UPDATE tasks SET permits_open = permits_open - 1 WHERE task_id = (SELECT task_id FROM permits WHERE permit_id = ?)',
          [heldPermit],
        ),
      );
  }
}

/**
 * The request provably never left: everything the permit took is given back as if it had never
 * been granted — the permit row (its in-flight and rate-window slot), the write budget,
 * permits_granted, and the dispatch counted in the operation's declared-rate window.
 */
function* refundPermit(s: SqlSession, change: InvocationChange, heldPermit: string | null): Step<void> {
  const permit =
    heldPermit === null
      ? undefined
      : yield* io(
          s.get<{ permit_id: string; task_id: string; effect: string }>(
            'SELECT permit_id, task_id, effect FROM permits WHERE permit_id = ? AND released_at_ms IS NULL',
            [heldPermit],
          ),
        );
  if (permit) {
    yield* io(s.write('DELETE FROM permits WHERE permit_id = ?', [permit.permit_id]));
    yield* io(
      s.write(
        'UPDATE tasks SET writes_used = writes_used - ?, permits_granted = permits_granted - 1, permits_open = permits_open - 1, updated_at = ? WHERE task_id = ?',
        [permit.effect === 'write' ? 1 : 0, change.at, permit.task_id],
      ),
    );
  }
  yield* io(s.write('DELETE FROM operation_dispatches WHERE invocation_id = ?', [change.invocation_id]));
}

/** The audit entry and the durable events (receipt; the task's new view for a task-bound call). */
function* publish(
  env: OpEnv,
  record: InvocationRecord,
  change: InvocationChange,
  from: string | null,
  to: string,
  kind: string,
): Step<ApprovalRecord | null> {
  const { sql: s, rules } = env;
  // copied, then set: a literal that spreads an object and then adds keys costs 1-2 µs on this V8
  // (its map is made anew every time; the writer thread's profile showed it). Same keys, same order.
  const detail: Record<string, unknown> = Object.assign({}, change.audit.detail);
  detail.reason_code = record.reason_code;
  detail.dispatch = record.dispatch;
  yield* insertAudit(
    s,
    {
      actor: change.audit.actor,
      kind,
      invocation_id: record.invocation_id,
      task_id: record.task_id,
      from_state: from,
      to_state: to,
      detail,
    },
    change.at,
  );
  const approval = record.approval_id ? yield* readApproval(s, record.approval_id) : null;
  const payload = JSON.stringify(rules.invocationEvent(record, approval));
  yield* s.dialect.appendEvent(s, record.client_id, 'invocation.changed', payload, change.at);
  // the task's accounting changed with it: its new view is published (sql/task-events.ts)
  if (record.task_id)
    yield* taskChanged(env, record.task_id, change.at, {
      invocation_id: record.invocation_id,
      state: record.state,
      created_at: record.created_at,
      updated_at: record.updated_at,
      tool: record.tool,
      authorization_ref: record.authorization_ref,
    });
  return approval;
}

/**
 * The systems a single writer (SQLite's writer thread) found in service when a new call checked
 * its system: the next new calls of a kept system are not checked again. The writer forgets them
 * whenever one may have left service (writer/live-systems.ts).
 */
export interface KeptLiveSystems {
  has(systemId: string): boolean;
  /** Found in service by a new call's check, in the running transaction. */
  add(systemId: string): void;
}

export function* applyInvocationChange(env: OpEnv, change: InvocationChange): Step<InvocationChangeResult> {
  const s = env.sql;
  yield* s.dialect.lock(s, `invocation:${change.invocation_id}`);
  // a new call's system check goes out with the call's read: one round trip for both (a single
  // writer's kept system is the stored one: KeptLiveSystems)
  const liveSystem = change.from === 'new' ? change.live_system : undefined;
  const systemIsLive =
    liveSystem && env.liveSystems?.has(liveSystem) !== true ? sendLiveSystemCheck(s, liveSystem) : null;
  // a single writer's kept row is the stored one (ops/invocations.ts KeptInvocations)
  const current =
    env.invocations?.get(change.invocation_id) ?? (yield* readInvocation(s, change.invocation_id));
  let base: InvocationRecord;
  if (change.from === 'new') {
    if (current || !change.create) return { kind: 'stale', current };
    base = change.create;
    if (systemIsLive) {
      yield* systemIsLive();
      env.liveSystems?.add(liveSystem!);
    }
  } else {
    if (!current || current.state !== change.from) return { kind: 'stale', current };
    if (change.only_if_orphaned && (yield* ownerIsLive(s, change.invocation_id)))
      return { kind: 'stale', current };
    base = current;
  }
  const expected = change.from === 'new' ? null : change.from;

  const { refusal, enroll } = yield* checkGates(env, change, base);
  if (refusal) {
    const { decision } = refusal;
    const refusedState = refusal.refused_to ?? base.state;
    const refused = refusedRecord(base, refusal, change.at);
    yield* writeInvocation(s, refused, current);
    env.invocations?.put(refused);
    yield* countState(env, current, refused);
    if (enroll) yield* recordEnrollment(env, change, base);
    const kind = refusal.refused_to ? change.audit.kind : 'invocation.permit_refused';
    const approval = yield* publish(env, refused, change, expected, refusedState, kind);
    return { kind: 'refused', record: refused, approval, refusal: decision };
  }

  const permit = yield* grantPermit(env, change, base);
  let record = applyPatch({ ...base, state: change.to }, change.patch, change.at);
  if (permit) record = { ...record, permit_id: permit.permit_id };
  if (change.create_approval) record = { ...record, approval_id: change.create_approval.approval_id };
  yield* writeInvocation(s, record, current);
  env.invocations?.put(record);
  yield* applySideRows(env, change, current?.permit_id ?? null);
  yield* countState(env, current, record);
  if (enroll) yield* recordEnrollment(env, change, base);
  const approval = yield* publish(env, record, change, expected, change.to, change.audit.kind);
  return { kind: 'applied', record, approval, permit };
}
