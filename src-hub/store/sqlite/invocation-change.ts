/**
 * The one SQLite transaction that changes an invocation: compare-and-set on the state, the
 * session's task enrollment (check + record), the task permit (check + grant), the operation's
 * declared rate limit (check + count), approval rows, permit release, the audit entry and the
 * durable event.
 * better-sqlite3 is synchronous, so this whole function is atomic with respect to every other
 * HTTP request served by this process (and SQLite's write lock covers other processes).
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

export function createInvocationChanger(db: Database.Database) {
  const selectInvocation = db.prepare('SELECT * FROM invocations WHERE invocation_id = ?');
  const insertInvocation = db.prepare(
    `INSERT INTO invocations (${INVOCATION_COLUMNS.join(', ')}) VALUES (${INVOCATION_COLUMNS.map((c) => '@' + c).join(', ')})`,
  );
  const updateInvocation = db.prepare(
    `UPDATE invocations SET ${INVOCATION_COLUMNS.filter((c) => c !== 'invocation_id')
      .map((c) => `${c} = @${c}`)
      .join(', ')} WHERE invocation_id = @invocation_id AND state = @expected_state`,
  );
  const selectTask = db.prepare('SELECT * FROM tasks WHERE task_id = ?');
  const countInFlight = db.prepare(
    'SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND released_at_ms IS NULL',
  );
  const countWindow = db.prepare(
    'SELECT COUNT(*) AS n FROM permits WHERE task_id = ? AND granted_at_ms >= ?',
  );
  const insertPermit = db.prepare(
    'INSERT INTO permits (permit_id, task_id, invocation_id, effect, granted_at_ms, released_at_ms) VALUES (?, ?, ?, ?, ?, NULL)',
  );
  const spend = db.prepare(
    'UPDATE tasks SET writes_used = writes_used + ?, permits_granted = permits_granted + 1, updated_at = ? WHERE task_id = ?',
  );
  const selectPermit = db.prepare('SELECT * FROM permits WHERE permit_id = ?');
  const releasePermit = db.prepare(
    'UPDATE permits SET released_at_ms = ? WHERE invocation_id = ? AND released_at_ms IS NULL',
  );
  const insertApproval = db.prepare(
    `INSERT INTO approvals (approval_id, invocation_id, client_id, authorization_ref, tool, parameter_digest,
      arguments_preview_json, prompt, state, decision_id, decided_by, note, created_at, decided_at)
     VALUES (@approval_id, @invocation_id, @client_id, @authorization_ref, @tool, @parameter_digest,
      @arguments_preview_json, @prompt, @state, @decision_id, @decided_by, @note, @created_at, @decided_at)`,
  );
  const decideApproval = db.prepare(
    `UPDATE approvals SET state = @state, decision_id = @decision_id, decided_by = @decided_by, note = @note,
      decided_at = @decided_at WHERE approval_id = @approval_id AND state = 'pending'`,
  );
  const selectApproval = db.prepare('SELECT * FROM approvals WHERE approval_id = ?');
  const insertAudit = db.prepare(
    `INSERT INTO audit (at, actor, kind, invocation_id, task_id, from_state, to_state, detail_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertEvent = db.prepare(
    'INSERT INTO events (client_id, type, payload_json, at) VALUES (?, ?, ?, ?)',
  );
  const readUsage = createTaskUsageReader(db);
  const selectEnrollment = db.prepare(
    'SELECT task_id FROM session_enrollments WHERE client_id = ? AND agent_session_id = ?',
  );
  const insertEnrollment = db.prepare(
    'INSERT INTO session_enrollments (client_id, agent_session_id, task_id, invocation_id, enrolled_at) VALUES (?, ?, ?, ?, ?)',
  );
  const countOperationWindow = db.prepare(
    'SELECT COUNT(*) AS n FROM operation_dispatches WHERE authorization_ref = ? AND tool = ? AND granted_at_ms >= ?',
  );
  const insertOperationDispatch = db.prepare(
    'INSERT OR IGNORE INTO operation_dispatches (invocation_id, authorization_ref, tool, granted_at_ms) VALUES (?, ?, ?, ?)',
  );

  const write = (record: InvocationRecord, expected: string | null): boolean => {
    const params = invocationParams(record);
    if (expected === null) {
      insertInvocation.run(params);
      return true;
    }
    return updateInvocation.run({ ...params, expected_state: expected }).changes === 1;
  };

  const finish = (
    record: InvocationRecord,
    change: InvocationChange,
    from: string | null,
    to: string,
    kind: string,
  ) => {
    insertAudit.run(
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
      ? toApproval(selectApproval.get(record.approval_id) as Record<string, unknown>)
      : null;
    const payload = change.render(record, approval);
    const seq = Number(
      insertEvent.run(record.client_id, 'invocation.changed', JSON.stringify(payload), change.at)
        .lastInsertRowid,
    );
    // A task-bound change also changes the task's accounting: publish the task view with it.
    if (record.task_id && change.render_task) {
      const taskRow = selectTask.get(record.task_id) as Record<string, unknown> | undefined;
      if (taskRow) {
        const task = toTask(taskRow);
        const nowMs = Date.parse(change.at);
        const usage = readUsage(task.task_id, nowMs, change.render_task.window_ms(task));
        const taskPayload = change.render_task.render(task, usage, nowMs);
        insertEvent.run(task.client_id, 'task.changed', JSON.stringify(taskPayload), change.at);
      }
    }
    return { approval, seq };
  };

  const run = db.transaction((change: InvocationChange): InvocationChangeResult => {
    const row = selectInvocation.get(change.invocation_id) as Record<string, unknown> | undefined;
    const current = row ? toInvocation(row) : null;
    let base: InvocationRecord;
    if (change.from === 'new') {
      if (current || !change.create) return { kind: 'stale', current };
      base = change.create;
    } else {
      if (!current || current.state !== change.from) return { kind: 'stale', current };
      base = current;
    }
    const expected = change.from === 'new' ? null : change.from;
    const fromLabel = change.from === 'new' ? null : change.from;

    // 1. enrollment, 2. task permit, 3. the operation's declared rate limit: the first refusal wins
    // and nothing of the later checks is recorded or spent.
    let refusal: {
      decision: Extract<PermitDecision, { ok: false }>;
      refused_to: InvocationState | null;
    } | null = null;
    let enroll = false;
    if (change.enrollment) {
      const row = selectEnrollment.get(base.client_id, base.agent_session_id) as
        { task_id: string } | undefined;
      const enrolled = row?.task_id ?? null;
      const d = change.enrollment.evaluate(enrolled, {
        agent_session_id: base.agent_session_id,
        task_id: base.task_id,
      });
      if (!d.ok) refusal = { decision: d, refused_to: change.enrollment.refused_to };
      else enroll = enrolled === null && base.task_id !== null;
    }
    if (!refusal && change.permit) {
      const p = change.permit;
      const taskRow = selectTask.get(p.task_id) as Record<string, unknown> | undefined;
      if (!taskRow) throw new Error(`task ${p.task_id} vanished inside the dispatch transaction`);
      const task = toTask(taskRow);
      const bounds = p.window_ms ? windowBounds(p.now_ms, p.window_ms) : null;
      const snapshot: PermitSnapshot = {
        task,
        in_flight: Number((countInFlight.get(p.task_id) as { n: number }).n),
        used_in_window: bounds ? Number((countWindow.get(p.task_id, bounds.start) as { n: number }).n) : 0,
        window_start_ms: bounds?.start ?? 0,
        window_end_ms: bounds?.end ?? 0,
      };
      const d = p.evaluate(snapshot, p.effect, p.now_ms);
      if (!d.ok) refusal = { decision: d, refused_to: p.refused_to };
    }
    const limit = base.operation.rate_limit;
    if (!refusal && change.operation_rate && limit) {
      const r = change.operation_rate;
      const bounds = windowBounds(r.now_ms, r.window_ms(limit.window));
      const used = Number(
        (countOperationWindow.get(base.authorization_ref, base.tool, bounds.start) as { n: number }).n,
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
      if (!d.ok) refusal = { decision: d, refused_to: r.refused_to };
    }
    const recordEnrollment = () => {
      if (!enroll || base.task_id === null) return;
      insertEnrollment.run(
        base.client_id,
        base.agent_session_id,
        base.task_id,
        base.invocation_id,
        change.at,
      );
      insertAudit.run(
        change.at,
        change.audit.actor,
        'session.enrolled',
        base.invocation_id,
        base.task_id,
        null,
        null,
        JSON.stringify({ agent_session_id: base.agent_session_id }),
      );
    };

    if (refusal) {
      const { decision } = refusal;
      const refusedState = refusal.refused_to ?? base.state;
      const refused = applyPatch(
        { ...base, state: refusedState },
        {
          reason_code: decision.code,
          reason_message: decision.message,
          retry_after_ms: decision.retry_after_ms,
        },
        change.at,
      );
      if (!write(refused, expected)) return { kind: 'stale', current };
      recordEnrollment();
      const kind = refusal.refused_to ? change.audit.kind : 'invocation.permit_refused';
      const { approval, seq } = finish(refused, change, fromLabel, refusedState, kind);
      return { kind: 'refused', record: refused, approval, refusal: decision, event_seq: seq };
    }

    let permit: PermitRecord | null = null;
    if (change.permit) {
      const p = change.permit;
      insertPermit.run(p.permit_id, p.task_id, change.invocation_id, p.effect, p.now_ms);
      spend.run(p.effect === 'write' ? 1 : 0, change.at, p.task_id);
      permit = toPermit(selectPermit.get(p.permit_id) as Record<string, unknown>);
    }
    // Every dispatch is counted, limited or not, so a limit declared later sees the current window.
    if (change.operation_rate) {
      insertOperationDispatch.run(
        change.invocation_id,
        base.authorization_ref,
        base.tool,
        change.operation_rate.now_ms,
      );
    }

    let record = applyPatch({ ...base, state: change.to }, change.patch, change.at);
    if (permit) record = { ...record, permit_id: permit.permit_id };
    if (change.create_approval) record = { ...record, approval_id: change.create_approval.approval_id };
    if (!write(record, expected)) return { kind: 'stale', current };
    if (change.create_approval) {
      const a: ApprovalRecord = change.create_approval;
      insertApproval.run({
        ...a,
        arguments_preview_json: a.arguments_preview === null ? null : JSON.stringify(a.arguments_preview),
      });
    }
    if (change.decide_approval) {
      const d = change.decide_approval;
      const changed = decideApproval.run({ ...d, decided_at: change.at }).changes;
      if (changed !== 1) throw new Error(`approval ${d.approval_id} is no longer pending`);
    }
    if (change.release_permit) releasePermit.run(change.release_permit.now_ms, change.invocation_id);
    recordEnrollment();
    const { approval, seq } = finish(record, change, fromLabel, change.to, change.audit.kind);
    return { kind: 'applied', record, approval, permit, event_seq: seq };
  });

  return (change: InvocationChange): InvocationChangeResult => run.immediate(change);
}
