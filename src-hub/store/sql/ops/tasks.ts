/** Tasks (the durable boundary of an assignment), their permits and session enrollments. */
import type {
  AuditInput,
  PermitRecord,
  SessionEnrollmentRecord,
  TaskChange,
  TaskRecord,
  TaskUsage,
} from '../../types.js';
import type { OpEnv } from '../env.js';
import { toEnrollment, toPermit, toTask } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';
import { insertAudit } from './audit.js';
import { readTaskUsage } from './task-usage.js';
import { taskChanged } from '../task-events.js';

export function* readTask(s: SqlSession, taskId: string, lock = ''): Step<TaskRecord | null> {
  const row = yield* io(s.get<Row>(`SELECT * FROM tasks WHERE task_id = ?${lock}`, [taskId]));
  return row ? toTask(row) : null;
}

export function* createTask(env: OpEnv, t: TaskRecord, audit: AuditInput): Step<void> {
  const { sql } = env;
  yield* io(
    sql.run(
      `INSERT INTO tasks (task_id, client_id, title, state, boundary_json, writes_used, permits_granted, created_at, updated_at, paused_at, cancelled_at)
       VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, NULL, NULL)`,
      [t.task_id, t.client_id, t.title, t.state, JSON.stringify(t.boundary), t.created_at, t.updated_at],
    ),
  );
  yield* insertAudit(sql, { ...audit, task_id: t.task_id, to_state: t.state }, t.created_at);
  yield* taskChanged(env, t.task_id, t.created_at);
}

export function* getTask({ sql }: OpEnv, taskId: string): Step<TaskRecord | null> {
  return yield* readTask(sql, taskId);
}

export function* listTasks({ sql }: OpEnv, clientId?: string): Step<TaskRecord[]> {
  const rows = clientId
    ? yield* io(
        sql.all<Row>('SELECT * FROM tasks WHERE client_id = ? ORDER BY created_at, task_id', [clientId]),
      )
    : yield* io(sql.all<Row>('SELECT * FROM tasks ORDER BY created_at, task_id'));
  return rows.map(toTask);
}

/**
 * Compare-and-set of the task state (pause, continue, cancel); null when the task moved meanwhile.
 * Like creation, a change publishes the task's view (`task.changed`, sql/task-events.ts).
 * A pause or cancel is stamped when it takes effect: it waits for the task row (a permit being
 * granted holds it), so every permit it was ordered after is committed, and its time is never
 * earlier than theirs (a permit's time is taken before its transaction, so one granted just ahead
 * of a pause can carry a later time than the pause's request).
 */
export function* changeTaskState(env: OpEnv, change: TaskChange): Step<TaskRecord | null> {
  const { sql } = env;
  const current = yield* readTask(sql, change.task_id, sql.dialect.forUpdate);
  if (!current || current.state !== change.from) return null;
  let at = change.at;
  if (change.to === 'paused' || change.to === 'cancelled') {
    const last = yield* io(
      sql.get<{ last: number | null }>('SELECT MAX(granted_at_ms) AS last FROM permits WHERE task_id = ?', [
        change.task_id,
      ]),
    );
    if (last?.last != null && Number(last.last) > Date.parse(at))
      at = new Date(Number(last.last)).toISOString();
  }
  const pausedAt = change.to === 'paused' ? '?' : change.to === 'active' ? 'NULL' : 'paused_at';
  const cancelledAt = change.to === 'cancelled' ? '?' : 'cancelled_at';
  const stamps = [change.to === 'paused', change.to === 'cancelled'].filter(Boolean).map(() => at);
  const changed = yield* io(
    sql.run(
      `UPDATE tasks SET state = ?, updated_at = ?, paused_at = ${pausedAt}, cancelled_at = ${cancelledAt}
       WHERE task_id = ? AND state = ?`,
      [change.to, at, ...stamps, change.task_id, change.from],
    ),
  );
  if (changed !== 1) return null;
  yield* insertAudit(
    sql,
    { ...change.audit, task_id: change.task_id, from_state: change.from, to_state: change.to },
    at,
  );
  yield* taskChanged(env, change.task_id, at);
  return yield* readTask(sql, change.task_id);
}

export function* taskUsage(
  { sql }: OpEnv,
  taskId: string,
  nowMs: number,
  windowMs: number | null,
): Step<TaskUsage> {
  return yield* readTaskUsage(sql, taskId, nowMs, windowMs);
}

export function* listPermits({ sql }: OpEnv, taskId: string): Step<PermitRecord[]> {
  const rows = yield* io(
    sql.all<Row>('SELECT * FROM permits WHERE task_id = ? ORDER BY granted_at_ms, permit_id', [taskId]),
  );
  return rows.map(toPermit);
}

export function* getEnrollment(
  { sql }: OpEnv,
  clientId: string,
  agentSessionId: string,
): Step<SessionEnrollmentRecord | null> {
  const row = yield* io(
    sql.get<Row>('SELECT * FROM session_enrollments WHERE client_id = ? AND agent_session_id = ?', [
      clientId,
      agentSessionId,
    ]),
  );
  return row ? toEnrollment(row) : null;
}
