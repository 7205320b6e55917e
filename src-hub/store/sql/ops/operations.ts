/** A system's compiled operations (declarations): the current set, replaced per spec refresh, and search. */
import type { SpecDiagnostic } from '../../../../src-shared/hub-api.js';
import type { AuditInput, McpCatalogChange, OperationRecord } from '../../types.js';
import { SystemRetiredError } from '../../errors.js';
import type { OpEnv } from '../env.js';
import { toOperation } from '../rows.js';
import { io, type Row, type Step } from '../session.js';
import { insertAudit } from './audit.js';
import { noteConfigChange } from './config-generation.js';
import { requireLiveSystem } from './systems.js';

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Replaces the system's current operations (and its search index) in one transaction. */
export function* replaceOperations(
  env: OpEnv,
  systemId: string,
  ops: OperationRecord[],
  specRevision: string,
  diagnostics: SpecDiagnostic[],
  at: string,
  audit: AuditInput,
): Step<void> {
  // Hub instances sharing a store refresh a system's spec at start together: one at a time
  yield* env.sql.dialect.lock(env.sql, `system:${systemId}`);
  yield* requireLiveSystem(env.sql, systemId);
  yield* writeOperations(env, systemId, ops, specRevision, diagnostics, at, audit);
  yield* noteConfigChange(env.sql);
}

/**
 * An MCP server's listed tools, overlays and compiled operations, replaced together if the
 * system's catalog is still the one they were compiled from (compare-and-set on spec_revision).
 */
export function* replaceMcpCatalog(env: OpEnv, change: McpCatalogChange): Step<boolean> {
  const { sql } = env;
  yield* sql.dialect.lock(sql, `system:${change.system_id}`);
  const row = yield* io(
    sql.get<{ spec_revision: string | null; retired_at: string | null }>(
      'SELECT spec_revision, retired_at FROM systems WHERE system_id = ?',
      [change.system_id],
    ),
  );
  if (!row) return false;
  // a retired system's catalog is frozen: an overlay edit or a late tool list writes nothing
  if (row.retired_at !== null) throw new SystemRetiredError(change.system_id);
  if (change.expected_revision !== undefined && (row.spec_revision ?? null) !== change.expected_revision)
    return false;
  yield* io(
    sql.run('UPDATE systems SET mcp_tools_json = ?, mcp_overlays_json = ? WHERE system_id = ?', [
      JSON.stringify(change.tools),
      JSON.stringify(change.overlays),
      change.system_id,
    ]),
  );
  yield* writeOperations(
    env,
    change.system_id,
    change.operations,
    change.spec_revision,
    change.diagnostics,
    change.at,
    change.audit,
  );
  yield* noteConfigChange(sql);
  return true;
}

function* writeOperations(
  { sql }: OpEnv,
  systemId: string,
  ops: OperationRecord[],
  specRevision: string,
  diagnostics: SpecDiagnostic[],
  at: string,
  audit: AuditInput,
): Step<void> {
  const sys = yield* io(
    sql.get<{ name: string }>('SELECT name FROM systems WHERE system_id = ?', [systemId]),
  );
  yield* io(sql.run('UPDATE operations SET current = 0 WHERE system_id = ?', [systemId]));
  for (const op of ops) {
    yield* io(
      sql.run(
        `INSERT INTO operations (system_id, tool, declaration_revision, operation_json, current) VALUES (?, ?, ?, ?, 1)
         ON CONFLICT (system_id, tool, declaration_revision) DO UPDATE SET current = 1, operation_json = excluded.operation_json`,
        [systemId, op.tool, op.declaration_revision, JSON.stringify(op.operation)],
      ),
    );
  }
  yield* sql.dialect.indexOperations(sql, systemId, sys ? String(sys.name) : '', ops);
  yield* io(
    sql.run(
      'UPDATE systems SET spec_revision = ?, diagnostics_json = ?, refreshed_at = ? WHERE system_id = ?',
      [specRevision, JSON.stringify(diagnostics), at, systemId],
    ),
  );
  yield* insertAudit(sql, audit, at);
}

export function* currentOperation(
  { sql }: OpEnv,
  systemId: string,
  tool: string,
): Step<OperationRecord | null> {
  const row = yield* io(
    sql.get<Row>('SELECT * FROM operations WHERE system_id = ? AND tool = ? AND current = 1', [
      systemId,
      tool,
    ]),
  );
  return row ? toOperation(row) : null;
}

export function* currentOperations({ sql }: OpEnv, systemIds: string[]): Step<OperationRecord[]> {
  if (systemIds.length === 0) return [];
  const rows = yield* io(
    sql.all<Row>(
      `SELECT * FROM operations WHERE current = 1 AND system_id IN (${placeholders(systemIds.length)})
       ORDER BY system_id, tool`,
      systemIds,
    ),
  );
  return rows.map(toOperation);
}

export function* searchOperations(
  env: OpEnv,
  words: string[],
  systemIds: string[],
  limit: number,
): Step<Array<{ op: OperationRecord; score: number }>> {
  if (systemIds.length === 0 || words.length === 0) return [];
  const { sql } = env;
  const hits = yield* sql.dialect.searchOperations(sql, words, systemIds, limit);
  const out: Array<{ op: OperationRecord; score: number }> = [];
  for (const h of hits) {
    const op = yield* currentOperation(env, h.system_id, h.tool);
    if (op) out.push({ op, score: h.score });
  }
  return out;
}
