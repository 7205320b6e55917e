/** Business systems: base URL, spec path, signing secret (the Hub's credential store) and signing modes. */
import type { AuditInput, SystemInput, SystemRecord } from '../../types.js';
import type { SpecDiagnostic } from '../../../../src-shared/hub-api.js';
import type { OpEnv } from '../env.js';
import { toSystem } from '../rows.js';
import { io, type Row, type SqlSession, type Step } from '../session.js';
import { insertAudit } from './audit.js';

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
         allow_insecure_http = excluded.allow_insecure_http, kind = excluded.kind, mcp_json = excluded.mcp_json`,
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
}

export function* recordDiagnostics(
  { sql }: OpEnv,
  systemId: string,
  diagnostics: SpecDiagnostic[],
  audit: AuditInput,
): Step<void> {
  yield* io(
    sql.run('UPDATE systems SET diagnostics_json = ? WHERE system_id = ?', [
      JSON.stringify(diagnostics),
      systemId,
    ]),
  );
  yield* insertAudit(sql, audit, new Date().toISOString());
}
