/** Authorizations (one business system + one account) and their grants to clients. */
import type { AuditInput, AuthorizationChange, AuthorizationRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toAuthorization } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';
import { insertAudit } from './audit.js';
import { noteConfigChange } from './config-generation.js';
import { requireLiveSystem } from './systems.js';

function* readAuthorization(s: SqlSession, ref: string, lock = ''): Step<AuthorizationRecord | null> {
  const row = yield* io(s.get<Row>(`SELECT * FROM authorizations WHERE authorization_ref = ?${lock}`, [ref]));
  return row ? toAuthorization(row) : null;
}

function* readGrantees(s: SqlSession, ref: string): Step<string[]> {
  const rows = yield* io(
    s.all<{ client_id: string }>(
      'SELECT client_id FROM grants WHERE authorization_ref = ? ORDER BY client_id',
      [ref],
    ),
  );
  return rows.map((r) => String(r.client_id));
}

export function* createAuthorization({ sql }: OpEnv, a: AuthorizationRecord, audit: AuditInput): Step<void> {
  yield* requireLiveSystem(sql, a.system_id);
  yield* io(
    sql.run(
      `INSERT INTO authorizations (authorization_ref, system_id, account, on_behalf_of, state, revision, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        a.authorization_ref,
        a.system_id,
        a.account,
        a.on_behalf_of,
        a.state,
        a.revision,
        a.created_at,
        a.updated_at,
      ],
    ),
  );
  yield* insertAudit(sql, audit, a.created_at);
  yield* noteConfigChange(sql);
}

export function* getAuthorization({ sql }: OpEnv, ref: string): Step<AuthorizationRecord | null> {
  return yield* readAuthorization(sql, ref);
}

export function* listAuthorizations({ sql }: OpEnv, clientId?: string): Step<AuthorizationRecord[]> {
  const rows = clientId
    ? yield* io(
        sql.all<Row>(
          `SELECT a.* FROM authorizations a JOIN grants g ON g.authorization_ref = a.authorization_ref
           WHERE g.client_id = ? ORDER BY a.authorization_ref`,
          [clientId],
        ),
      )
    : yield* io(sql.all<Row>('SELECT * FROM authorizations ORDER BY authorization_ref'));
  return rows.map(toAuthorization);
}

export function* grant({ sql }: OpEnv, ref: string, clientId: string, audit: AuditInput): Step<void> {
  const of = yield* io(
    sql.get<{ system_id: string }>('SELECT system_id FROM authorizations WHERE authorization_ref = ?', [ref]),
  );
  if (of) yield* requireLiveSystem(sql, String(of.system_id));
  yield* io(
    sql.run('INSERT INTO grants (authorization_ref, client_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [
      ref,
      clientId,
    ]),
  );
  yield* insertAudit(sql, audit, new Date().toISOString());
  yield* noteConfigChange(sql);
}

export function* isGranted({ sql }: OpEnv, ref: string, clientId: string): Step<boolean> {
  const row = yield* io(
    sql.get('SELECT 1 AS granted FROM grants WHERE authorization_ref = ? AND client_id = ?', [ref, clientId]),
  );
  return row !== undefined;
}

export function* grantees({ sql }: OpEnv, ref: string): Step<string[]> {
  return yield* readGrantees(sql, ref);
}

/** Revoke or rebind: compare-and-set on the revision, audited, with an event for every grantee. */
export function* updateAuthorization({ sql }: OpEnv, change: AuthorizationChange): Step<boolean> {
  const { next } = change;
  const cur = yield* readAuthorization(sql, next.authorization_ref, sql.dialect.forUpdate);
  if (!cur || cur.revision !== change.expected_revision) return false;
  // a revoke only takes access away: allowed on a retired system's authorization (docs/hub-api.md)
  if (next.state !== 'revoked') yield* requireLiveSystem(sql, cur.system_id);
  yield* io(
    sql.run(
      `UPDATE authorizations SET state = ?, account = ?, on_behalf_of = ?, revision = ?, updated_at = ?
       WHERE authorization_ref = ? AND revision = ?`,
      [
        next.state,
        next.account,
        next.on_behalf_of,
        next.revision,
        next.updated_at,
        next.authorization_ref,
        cur.revision,
      ],
    ),
  );
  yield* insertAudit(sql, { ...change.audit, from_state: cur.state, to_state: next.state }, next.updated_at);
  yield* noteConfigChange(sql);
  const payload = JSON.stringify(change.event);
  for (const clientId of yield* readGrantees(sql, next.authorization_ref)) {
    yield* sql.dialect.appendEvent(sql, clientId, 'authorization.changed', payload, next.updated_at);
  }
  return true;
}
