/**
 * The one SQLite transaction that changes an invocation: compare-and-set on the state, the
 * session's task enrollment (check + record), the task permit (check + grant), the operation's
 * declared rate limit (check + count), approval rows, permit release, the audit entry and the
 * durable event. Each step is a function of its own below; `createInvocationChanger` runs them in
 * order inside one `BEGIN IMMEDIATE` transaction.
 * better-sqlite3 is synchronous, so the whole change is atomic with respect to every other HTTP
 * request served by this process (and SQLite's write lock covers other processes).
 */
import type Database from 'better-sqlite3';
import type {
  ApprovalRecord,
  InvocationChange,
  InvocationChangeResult,
  InvocationRecord,
  InvocationPatch,
  PermitDecision,
  PermitRecord,
  PermitSnapshot,
} from '../types.js';
import type { InvocationState } from '../../../src-shared/states.js';
import { invocationParams, toApproval, toInvocation, toPermit, toTask } from './rows.js';
import { createTaskUsageReader } from './task-usage.js';
import { windowBounds } from './window.js';

const INVOCATION_COLUMNS = [
  'invocation_id',
  'client_id',
  'run_id',
  'agent_session_id',
  'turn_id',
  'authorization_ref',
  'authorization_revision',
  'system_id',
  'tool',
  'declaration_revision',
  'operation_json',
  'arguments_json',
  'parameter_digest',
  'host_call_id',
  'task_id',
  'effect',
  'state',
  'dispatch',
  'reason_code',
  'reason_message',
  'retry_after_ms',
  'result_json',
  'result_truncated',
  'business_status',
  'approval_id',
  'reconciliation_json',
  'permit_id',
  'created_at',
  'updated_at',
];

/** The statements of the transaction, prepared once per store; invocations are written by this file only. */
function prepareInvocationStatements(db: Database.Database) {
  return {
    selectInvocation: db.prepare('SELECT * FROM invocations WHERE invocation_id = ?'),
    insertInvocation: db.prepare(
      `INSERT INTO invocations (${INVOCATION_COLUMNS.join(', ')}) VALUES (${INVOCATION_COLUMNS.map((c) => '@' + c).join(', ')})`,
    ),
    updateInvocation: db.prepare(
      `UPDATE invocations SET ${INVOCATION_COLUMNS.filter((c) => c !== 'invocation_id')
        .map((c) => `${c} = @${c}`)
        .join(', ')} WHERE invocation_id = @invocation_id AND state = @expected_state`,
    ),
    selectTask: db.prepare('SELECT * FROM tasks WHERE task_id = ?'),
    countInFlight: db.prepare(
      'SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND released_at_ms IS NULL',
    ),
    countWindow: db.prepare('SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND granted_at_ms >= ?'),
    insertPermit: db.prepare(
      'INSERT INTO permits (permit_id, task_id, invocation_id, effect, granted_at_ms, released_at_ms) VALUES (?, ?, ?, ?, ?, NULL)',
    ),
    spend: db.prepare(
      'UPDATE tasks SET writes_used = writes_used + ?, permits_granted = permits_granted + 1, updated_at = ? WHERE task_id = ?',
    ),
    selectPermit: db.prepare('SELECT * FROM permits WHERE permit_id = ?'),
    releasePermit: db.prepare(
      'UPDATE permits SET released_at_ms = ? WHERE invocation_id = ? AND released_at_ms IS NULL',
    ),
    insertApproval: db.prepare(
      `INSERT INTO approvals (approval_id, invocation_id, client_id, authorization_ref, tool, parameter_digest,
      arguments_preview_json, prompt, state, decision_id, decided_by, note, created_at, decided_at)
     VALUES (@approval_id, @invocation_id, @client_id, @authorization_ref, @tool, @parameter_digest,
      @arguments_preview_json, @prompt, @state, @decision_id, @decided_by, @note, @created_at, @decided_at)`,
    ),
    decideApproval: db.prepare(
      `UPDATE approvals SET state = @state, decision_id = @decision_id, decided_by = @decided_by, note = @note,
      decided_at = @decided_at WHERE approval_id = @approval_id AND state = 'pending'`,
    ),
    selectApproval: db.prepare('SELECT * FROM approvals WHERE approval_id = ?'),
    insertAudit: db.prepare(
      `INSERT INTO audit (at, actor, kind, invocation_id, task_id, from_state, to_state, detail_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertEvent: db.prepare('INSERT INTO events (client_id, type, payload_json, at) VALUES (?, ?, ?, ?)'),
    readUsage: createTaskUsageReader(db),
    selectEnrollment: db.prepare(
      'SELECT task_id FROM session_enrollments WHERE client_id = ? AND agent_session_id = ?',
    ),
    insertEnrollment: db.prepare(
      'INSERT INTO session_enrollments (client_id, agent_session_id, task_id, invocation_id, enrolled_at) VALUES (?, ?, ?, ?, ?)',
    ),
    countOperationWindow: db.prepare(
      'SELECT COUNT(*) AS n FROM operation_dispatches WHERE authorization_ref = ? AND tool = ? AND granted_at_ms >= ?',
    ),
    insertOperationDispatch: db.prepare(
      'INSERT OR IGNORE INTO operation_dispatches (invocation_id, authorization_ref, tool, granted_at_ms) VALUES (?, ?, ?, ?)',
    ),
  };
}

type InvocationStatements = ReturnType<typeof prepareInvocationStatements>;

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

export { windowBounds } from './window.js';

interface Refusal {
  decision: Extract<PermitDecision, { ok: false }>;
  refused_to: InvocationState | null;
}

/** What the gates decided: the first refusal (if any) and whether the call enrolls its session. */
interface GateResult {
  refusal: Refusal | null;
  enroll: boolean;
}

/** Inserts or compare-and-sets the record; false when the state moved meanwhile. */
function writeRecord(st: InvocationStatements, record: InvocationRecord, expected: string | null): boolean {
  const params = invocationParams(record);
  if (expected === null) {
    st.insertInvocation.run(params);
    return true;
  }
  return st.updateInvocation.run({ ...params, expected_state: expected }).changes === 1;
}

/** 1. The agent session's task enrollment. */
function enrollmentGate(
  st: InvocationStatements,
  change: InvocationChange,
  base: InvocationRecord,
): GateResult {
  if (!change.enrollment) return { refusal: null, enroll: false };
  const row = st.selectEnrollment.get(base.client_id, base.agent_session_id) as
    { task_id: string } | undefined;
  const enrolled = row?.task_id ?? null;
  const d = change.enrollment.evaluate(enrolled, {
    agent_session_id: base.agent_session_id,
    task_id: base.task_id,
  });
  if (!d.ok) return { refusal: { decision: d, refused_to: change.enrollment.refused_to }, enroll: false };
  return { refusal: null, enroll: enrolled === null && base.task_id !== null };
}

/** 2. The task permit: the pure policy on a snapshot of the task row, its open permits and rate window. */
function permitGate(st: InvocationStatements, change: InvocationChange): Refusal | null {
  const p = change.permit;
  if (!p) return null;
  const taskRow = st.selectTask.get(p.task_id) as Record<string, unknown> | undefined;
  if (!taskRow) throw new Error(`task ${p.task_id} vanished inside the dispatch transaction`);
  const bounds = p.window_ms ? windowBounds(p.now_ms, p.window_ms) : null;
  const snapshot: PermitSnapshot = {
    task: toTask(taskRow),
    in_flight: Number((st.countInFlight.get(p.task_id) as { n: number }).n),
    used_in_window: bounds ? Number((st.countWindow.get(p.task_id, bounds.start) as { n: number }).n) : 0,
    window_start_ms: bounds?.start ?? 0,
    window_end_ms: bounds?.end ?? 0,
  };
  const d = p.evaluate(snapshot, p.effect, p.now_ms);
  return d.ok ? null : { decision: d, refused_to: p.refused_to };
}

/** 3. The operation's declared rate limit, per (authorization_ref, tool). */
function operationRateGate(
  st: InvocationStatements,
  change: InvocationChange,
  base: InvocationRecord,
): Refusal | null {
  const limit = base.operation.rate_limit;
  const r = change.operation_rate;
  if (!r || !limit) return null;
  const bounds = windowBounds(r.now_ms, r.window_ms(limit.window));
  const used = Number(
    (st.countOperationWindow.get(base.authorization_ref, base.tool, bounds.start) as { n: number }).n,
  );
  const d = r.evaluate(
    {
      authorization_ref: base.authorization_ref,
      tool: base.tool,
      limit,
      used_in_window: used,
      window_end_ms: bounds.end,
    },
    r.now_ms,
  );
  return d.ok ? null : { decision: d, refused_to: r.refused_to };
}

/** The gates in order; the first refusal wins and nothing of the later gates is checked, recorded or spent. */
function runGates(st: InvocationStatements, change: InvocationChange, base: InvocationRecord): GateResult {
  const enrollment = enrollmentGate(st, change, base);
  if (enrollment.refusal) return enrollment;
  const refusal = permitGate(st, change) ?? operationRateGate(st, change, base);
  return { refusal, enroll: enrollment.enroll };
}

function recordEnrollment(st: InvocationStatements, change: InvocationChange, base: InvocationRecord): void {
  if (base.task_id === null) return;
  st.insertEnrollment.run(base.client_id, base.agent_session_id, base.task_id, base.invocation_id, change.at);
  st.insertAudit.run(
    change.at,
    change.audit.actor,
    'session.enrolled',
    base.invocation_id,
    base.task_id,
    null,
    null,
    JSON.stringify({ agent_session_id: base.agent_session_id }),
  );
}

/** The audit entry and the durable `invocation.changed` event (plus the task's view for a task-bound call). */
function publish(
  st: InvocationStatements,
  record: InvocationRecord,
  change: InvocationChange,
  from: string | null,
  to: string,
  kind: string,
) {
  st.insertAudit.run(
    change.at,
    change.audit.actor,
    kind,
    record.invocation_id,
    record.task_id,
    from,
    to,
    JSON.stringify({ ...change.audit.detail, reason_code: record.reason_code, dispatch: record.dispatch }),
  );
  const approval = record.approval_id
    ? toApproval(st.selectApproval.get(record.approval_id) as Record<string, unknown>)
    : null;
  const payload = change.render(record, approval);
  const seq = Number(
    st.insertEvent.run(record.client_id, 'invocation.changed', JSON.stringify(payload), change.at)
      .lastInsertRowid,
  );
  // A task-bound change also changes the task's accounting: publish the task view with it.
  if (record.task_id && change.render_task) {
    const taskRow = st.selectTask.get(record.task_id) as Record<string, unknown> | undefined;
    if (taskRow) {
      const task = toTask(taskRow);
      const nowMs = Date.parse(change.at);
      const usage = st.readUsage(task.task_id, nowMs, change.render_task.window_ms(task));
      const taskPayload = change.render_task.render(task, usage, nowMs);
      st.insertEvent.run(task.client_id, 'task.changed', JSON.stringify(taskPayload), change.at);
    }
  }
  return { approval, seq };
}

/** The refused call keeps (or moves to) its refused state with the reason; nothing is spent. */
function applyRefusal(
  st: InvocationStatements,
  change: InvocationChange,
  base: InvocationRecord,
  current: InvocationRecord | null,
  gates: GateResult & { refusal: Refusal },
): InvocationChangeResult {
  const { decision, refused_to } = gates.refusal;
  const expected = change.from === 'new' ? null : change.from;
  const refusedState = refused_to ?? base.state;
  const refused = applyPatch(
    { ...base, state: refusedState },
    { reason_code: decision.code, reason_message: decision.message, retry_after_ms: decision.retry_after_ms },
    change.at,
  );
  if (!writeRecord(st, refused, expected)) return { kind: 'stale', current };
  if (gates.enroll) recordEnrollment(st, change, base);
  const kind = refused_to ? change.audit.kind : 'invocation.permit_refused';
  const { approval, seq } = publish(st, refused, change, expected, refusedState, kind);
  return { kind: 'refused', record: refused, approval, refusal: decision, event_seq: seq };
}

/** Grants the permit (spending the write budget) and counts the dispatch in the operation's rate window. */
function grantPermit(
  st: InvocationStatements,
  change: InvocationChange,
  base: InvocationRecord,
): PermitRecord | null {
  let permit: PermitRecord | null = null;
  const p = change.permit;
  if (p) {
    st.insertPermit.run(p.permit_id, p.task_id, change.invocation_id, p.effect, p.now_ms);
    st.spend.run(p.effect === 'write' ? 1 : 0, change.at, p.task_id);
    permit = toPermit(st.selectPermit.get(p.permit_id) as Record<string, unknown>);
  }
  // Every dispatch is counted, limited or not, so a limit declared later sees the current window.
  if (change.operation_rate)
    st.insertOperationDispatch.run(
      change.invocation_id,
      base.authorization_ref,
      base.tool,
      change.operation_rate.now_ms,
    );
  return permit;
}

/** Approval rows created or decided with the change. */
function applyApprovals(st: InvocationStatements, change: InvocationChange): void {
  if (change.create_approval) {
    const a: ApprovalRecord = change.create_approval;
    st.insertApproval.run({
      ...a,
      arguments_preview_json: a.arguments_preview === null ? null : JSON.stringify(a.arguments_preview),
    });
  }
  if (change.decide_approval) {
    const d = change.decide_approval;
    const changed = st.decideApproval.run({ ...d, decided_at: change.at }).changes;
    if (changed !== 1) throw new Error(`approval ${d.approval_id} is no longer pending`);
  }
}

/** The new state and patch (evidence appended, never replaced), approvals, permit release, audit and event. */
function applyMove(
  st: InvocationStatements,
  change: InvocationChange,
  base: InvocationRecord,
  current: InvocationRecord | null,
  enroll: boolean,
): InvocationChangeResult {
  const expected = change.from === 'new' ? null : change.from;
  const permit = grantPermit(st, change, base);
  let record = applyPatch({ ...base, state: change.to }, change.patch, change.at);
  if (permit) record = { ...record, permit_id: permit.permit_id };
  if (change.create_approval) record = { ...record, approval_id: change.create_approval.approval_id };
  if (!writeRecord(st, record, expected)) return { kind: 'stale', current };
  applyApprovals(st, change);
  if (change.release_permit) st.releasePermit.run(change.release_permit.now_ms, change.invocation_id);
  if (enroll) recordEnrollment(st, change, base);
  const { approval, seq } = publish(st, record, change, expected, change.to, change.audit.kind);
  return { kind: 'applied', record, approval, permit, event_seq: seq };
}

/** The record the change starts from, or null when the compare-and-set fails (`new`: the id must not exist yet). */
function baseOf(change: InvocationChange, current: InvocationRecord | null): InvocationRecord | null {
  if (change.from === 'new') return current || !change.create ? null : change.create;
  return current && current.state === change.from ? current : null;
}

export function createInvocationChanger(db: Database.Database) {
  const st = prepareInvocationStatements(db);
  const run = db.transaction((change: InvocationChange): InvocationChangeResult => {
    const row = st.selectInvocation.get(change.invocation_id) as Record<string, unknown> | undefined;
    const current = row ? toInvocation(row) : null;
    const base = baseOf(change, current);
    if (!base) return { kind: 'stale', current };
    const gates = runGates(st, change, base);
    if (gates.refusal) return applyRefusal(st, change, base, current, { ...gates, refusal: gates.refusal });
    return applyMove(st, change, base, current, gates.enroll);
  });
  return (change: InvocationChange): InvocationChangeResult => run.immediate(change);
}
