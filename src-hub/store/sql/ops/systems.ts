/** Business systems: base URL, spec path, signing secret (the Hub's credential store) and signing modes. */
import type { AuditInput, RetireSystemResult, SystemInput, SystemRecord } from '../../types.js';
import type { SpecDiagnostic } from '../../../../src-shared/hub-api.js';
import { UNRESOLVED_INVOCATION_STATES } from '../../../../src-shared/states.js';
import { SystemRetiredError } from '../../errors.js';
import type { OpEnv } from '../env.js';
import { toSystem } from '../rows.js';
import { io, type Awaitable, type Row, type SqlSession, type Step } from '../session.js';
import { insertAudit } from './audit.js';
import { noteConfigChange } from './config-generation.js';

export type { SystemInput };

function* readSystem(s: SqlSession, systemId: string): Step<SystemRecord | null> {
  const row = yield* io(s.get<Row>('SELECT * FROM systems WHERE system_id = ?', [systemId]));
  return row ? toSystem(row) : null;
}

export function* upsertSystem(
  { sql }: OpEnv,
  sys: SystemInput,
  at: string,
  audit: AuditInput,
): Step<SystemRecord> {
  yield* io(
    sql.run(
      `INSERT INTO systems (system_id, name, base_url, spec_path, signing_secret, spec_signing, signed_path,
         allow_insecure_http, kind, mcp_json, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (system_id) DO UPDATE SET name = excluded.name, base_url = excluded.base_url,
         spec_path = excluded.spec_path, signing_secret = excluded.signing_secret,
         spec_signing = excluded.spec_signing, signed_path = excluded.signed_path,
         allow_insecure_http = excluded.allow_insecure_http, kind = excluded.kind, mcp_json = excluded.mcp_json,
         retired_at = NULL`,
      [
        sys.system_id,
        sys.name,
        sys.base_url,
        sys.spec_path,
        sys.signing_secret,
        sys.spec_signing,
        sys.signed_path,
        sys.allow_insecure_http ? 1 : 0,
        sys.kind ?? 'http',
        sys.mcp ? JSON.stringify(sys.mcp) : null,
        at,
      ],
    ),
  );
  yield* insertAudit(sql, audit, at);
  yield* noteConfigChange(sql);
  return (yield* readSystem(sql, sys.system_id)) as SystemRecord;
}

export function* getSystem({ sql }: OpEnv, systemId: string): Step<SystemRecord | null> {
  return yield* readSystem(sql, systemId);
}

export function* listSystems({ sql }: OpEnv): Step<SystemRecord[]> {
  return (yield* io(sql.all<Row>('SELECT * FROM systems ORDER BY system_id'))).map(toSystem);
}

export function* resealSecrets(
  { sql }: OpEnv,
  secrets: ReadonlyArray<{ system_id: string; signing_secret: string }>,
  meta: Readonly<Record<string, string>>,
  audit: AuditInput,
): Step<void> {
  for (const s of secrets)
    yield* io(
      sql.run('UPDATE systems SET signing_secret = ? WHERE system_id = ?', [s.signing_secret, s.system_id]),
    );
  for (const [key, value] of Object.entries(meta))
    yield* io(
      sql.run(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [key, value],
      ),
    );
  yield* insertAudit(sql, audit, new Date().toISOString());
  yield* noteConfigChange(sql);
}

export function* recordDiagnostics(
  { sql }: OpEnv,
  systemId: string,
  diagnostics: SpecDiagnostic[],
  audit: AuditInput,
): Step<void> {
  yield* requireLiveSystem(sql, systemId);
  yield* io(
    sql.run('UPDATE systems SET diagnostics_json = ? WHERE system_id = ?', [
      JSON.stringify(diagnostics),
      systemId,
    ]),
  );
  yield* insertAudit(sql, audit, new Date().toISOString());
  yield* noteConfigChange(sql);
}

const UNRESOLVED_LIST = UNRESOLVED_INVOCATION_STATES.map((st) => `'${st}'`).join(', ');

/**
 * Retires a system in one transaction. It first takes the system's key exclusively (PostgreSQL: an
 * advisory lock, which waits for every new call's shared hold of it in `sendLiveSystemCheck`), so
 * the unresolved calls counted after it include every call created before, and no call is created
 * after: an invoke racing the retire either lands first (and the retire is refused) or finds the
 * system retired.
 */
export function* retireSystem(
  { sql }: OpEnv,
  systemId: string,
  at: string,
  audit: AuditInput,
): Step<RetireSystemResult> {
  yield* sql.dialect.lock(sql, systemLockKey(systemId));
  const row = yield* io(
    sql.get<Row>(`SELECT * FROM systems WHERE system_id = ?${sql.dialect.forUpdate}`, [systemId]),
  );
  if (!row) return { kind: 'not_found' };
  const current = toSystem(row);
  if (current.retired_at !== null) return { kind: 'retired', system: current, already: true };
  const open = yield* io(
    sql.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM invocations WHERE system_id = ? AND state IN (${UNRESOLVED_LIST})`,
      [systemId],
    ),
  );
  const count = Number(open?.n ?? 0);
  if (count > 0) return { kind: 'unresolved', count };
  yield* io(sql.write('UPDATE systems SET retired_at = ? WHERE system_id = ?', [at, systemId], 1));
  yield* insertAudit(sql, audit, at);
  yield* noteConfigChange(sql);
  return { kind: 'retired', system: { ...current, retired_at: at }, already: false };
}

/** The key a retire takes exclusively and every new call of the system shares (PostgreSQL). */
export const systemLockKey = (systemId: string): string => `system:${systemId}`;

/** PostgreSQL: shared transaction locks on the keys of a JSON array parameter. */
export const SHARED_LOCK_KEYS_SQL = `SELECT pg_advisory_xact_lock_shared(hashtextextended(k, 0)) AS locked
  FROM json_array_elements_text(?::json) AS k`;

/** Keeps a statement sent ahead from reporting an unhandled rejection when nothing awaits it. */
function ahead<T>(answer: T | Promise<T>): T | Promise<T> {
  if (answer instanceof Promise) answer.catch(() => undefined);
  return answer;
}

/**
 * Inside a new call's transaction: its system must not be retired. The check is sent at once —
 * on PostgreSQL behind the statements already sent, without waiting, so it shares the round trip
 * of the call's own read — and the step it answers reads the result. PostgreSQL first holds the
 * system's key shared (in memory: new calls do not wait for each other and write nothing to the
 * system's row; a retire's exclusive hold waits for them and they for it), then reads the row in
 * a statement of its own, so it sees a retire that committed while it waited. SQLite's one writer
 * already runs a retire and a new call one after the other.
 */
export function sendLiveSystemCheck(s: SqlSession, systemId: string): () => Step<void> {
  const held =
    s.dialect.name === 'postgres'
      ? ahead(s.all(SHARED_LOCK_KEYS_SQL, [JSON.stringify([systemLockKey(systemId)])]))
      : null;
  const read = ahead(
    s.get<{ retired_at: string | null }>('SELECT retired_at FROM systems WHERE system_id = ?', [systemId]),
  );
  return () => liveSystemChecked(systemId, held, read);
}

/**
 * The answer of sendLiveSystemCheck's reads. A module-level generator, not one made per call (each
 * generator function made anew has a prototype object of its own, which puts every read of its
 * generators' properties off V8's caches: sql/session.ts `started`).
 */
function* liveSystemChecked(
  systemId: string,
  held: Awaitable<unknown> | null,
  read: Awaitable<{ retired_at: string | null } | undefined>,
): Step<void> {
  if (held !== null) yield* io(held);
  const row = yield* io(read);
  if (row && row.retired_at !== null) throw new SystemRetiredError(systemId);
}

/**
 * Inside an admin change of a system's declarations, authorizations or grants (a refresh, an
 * overlay, a grant, a revoke …): the system must be in service, checked as a new call checks it,
 * so a retire and the change run one after the other and a retired system fails the change with
 * system_retired (rolled back: nothing written). A retired system's record is history, frozen
 * until it is registered again (docs/hub-api.md "Retiring a system").
 */
export function* requireLiveSystem(s: SqlSession, systemId: string): Step<void> {
  yield* sendLiveSystemCheck(s, systemId)();
}
