/** The append-only audit trail (the tables refuse UPDATE and DELETE). */
import type { AuditInput, AuditRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toAudit } from '../rows.js';
import { io, type Row, type SqlSession, type SqlValue, type Step } from '../session.js';

export type AuditEntry = AuditInput & {
  invocation_id?: string | null;
  task_id?: string | null;
  from_state?: string | null;
  to_state?: string | null;
};

const INSERT_AUDIT = `INSERT INTO audit (at, actor, kind, invocation_id, task_id, from_state, to_state, detail_json)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;

/** Writes one audit entry inside the caller's transaction. */
export function* insertAudit(s: SqlSession, a: AuditEntry, at: string): Step<void> {
  yield* io(
    s.write(INSERT_AUDIT, [
      at,
      a.actor,
      a.kind,
      a.invocation_id ?? null,
      a.task_id ?? null,
      a.from_state ?? null,
      a.to_state ?? null,
      JSON.stringify(a.detail),
    ]),
  );
}

export function* appendAudit({ sql }: OpEnv, entry: AuditEntry, at: string): Step<void> {
  yield* insertAudit(sql, entry, at);
}

export interface AuditFilter {
  invocation_id?: string;
  task_id?: string;
  kind?: string;
  after_seq?: number;
  limit?: number;
}

export function* listAudit({ sql }: OpEnv, filter: AuditFilter): Step<AuditRecord[]> {
  const where: string[] = [];
  const args: SqlValue[] = [];
  const add = (clause: string, value: SqlValue | undefined) => {
    if (value === undefined || value === '') return;
    where.push(clause);
    args.push(value);
  };
  add('invocation_id = ?', filter.invocation_id);
  add('task_id = ?', filter.task_id);
  add('kind = ?', filter.kind);
  add('seq > ?', filter.after_seq);
  const rows = yield* io(
    sql.all<Row>(
      `SELECT * FROM audit ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY seq LIMIT ?`,
      [...args, filter.limit ?? 1000],
    ),
  );
  return rows.map(toAudit);
}
