/**
 * Hub instances and their leases (on the database's clock, so instances on several machines agree).
 * An instance owns the calls it moves to `dispatching`; recovery may turn such a call `unknown` only
 * when its owner holds no live lease: no owner recorded, an unknown instance, a replaced
 * incarnation, a stopped instance, or an expired lease.
 */
import type { InstanceRecord, InvocationRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toInstance, toInvocation } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';

/** SQL condition: the owner of invocation `i` holds a live lease. */
const OWNER_LIVE = (nowMs: string) => `EXISTS (SELECT 1 FROM hub_instances h
  WHERE h.instance_id = i.owner_instance AND h.incarnation = i.owner_incarnation
    AND h.stopped_at IS NULL AND h.lease_expires_at_ms >= ${nowMs})`;

export function* registerInstance(
  { sql }: OpEnv,
  input: { instance_id: string; host: string; pid: number; started_at: string; lease_ms: number },
): Step<InstanceRecord> {
  yield* io(
    sql.run(
      `INSERT INTO hub_instances (instance_id, incarnation, host, pid, started_at, lease_expires_at_ms, stopped_at)
       VALUES (?, 1, ?, ?, ?, ${sql.dialect.nowMs} + ?, NULL)
       ON CONFLICT (instance_id) DO UPDATE SET incarnation = hub_instances.incarnation + 1, host = excluded.host,
         pid = excluded.pid, started_at = excluded.started_at,
         lease_expires_at_ms = excluded.lease_expires_at_ms, stopped_at = NULL`,
      [input.instance_id, input.host, input.pid, input.started_at, input.lease_ms],
    ),
  );
  const row = yield* io(
    sql.get<Row>('SELECT * FROM hub_instances WHERE instance_id = ?', [input.instance_id]),
  );
  return toInstance(row as Row);
}

export function* renewInstanceLease(
  { sql }: OpEnv,
  instanceId: string,
  incarnation: number,
  leaseMs: number,
): Step<boolean> {
  const changed = yield* io(
    sql.run(
      `UPDATE hub_instances SET lease_expires_at_ms = ${sql.dialect.nowMs} + ?
       WHERE instance_id = ? AND incarnation = ? AND stopped_at IS NULL`,
      [leaseMs, instanceId, incarnation],
    ),
  );
  return changed === 1;
}

export function* stopInstance(
  { sql }: OpEnv,
  instanceId: string,
  incarnation: number,
  at: string,
): Step<void> {
  yield* io(
    sql.run(
      `UPDATE hub_instances SET stopped_at = ?, lease_expires_at_ms = ${sql.dialect.nowMs}
       WHERE instance_id = ? AND incarnation = ?`,
      [at, instanceId, incarnation],
    ),
  );
}

export function* expireOtherInstances({ sql }: OpEnv, instanceId: string): Step<void> {
  yield* io(
    sql.run(
      `UPDATE hub_instances SET lease_expires_at_ms = ${sql.dialect.nowMs} - 1 WHERE instance_id <> ?`,
      [instanceId],
    ),
  );
}

export function* listInstances({ sql }: OpEnv): Step<InstanceRecord[]> {
  return (yield* io(sql.all<Row>('SELECT * FROM hub_instances ORDER BY instance_id'))).map(toInstance);
}

export function* listOrphanedDispatching({ sql }: OpEnv): Step<InvocationRecord[]> {
  const rows = yield* io(
    sql.all<Row>(
      `SELECT i.* FROM invocations i WHERE i.state = 'dispatching' AND NOT ${OWNER_LIVE(sql.dialect.nowMs)}
       ORDER BY i.created_at, i.invocation_id`,
    ),
  );
  return rows.map(toInvocation);
}

/** Inside a change's transaction: does this call's owner still hold a live lease? */
export function* ownerIsLive(s: SqlSession, invocationId: string): Step<boolean> {
  const row = yield* io(
    s.get(
      `SELECT 1 AS live FROM invocations i WHERE i.invocation_id = ? AND ${OWNER_LIVE(s.dialect.nowMs)}`,
      [invocationId],
    ),
  );
  return row !== undefined;
}
