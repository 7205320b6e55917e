/** The audit entry of new declarations for a system (a spec refresh, an MCP tool list or overlay change). */
import type { AuditInput } from '../store/types.js';

export function specRefreshedAudit(
  actor: string,
  systemId: string,
  compiled: { spec_revision: string; operations: readonly unknown[]; diagnostics: readonly unknown[] },
): AuditInput {
  return {
    actor,
    kind: 'system.spec_refreshed',
    detail: {
      system_id: systemId,
      spec_revision: compiled.spec_revision,
      tools: compiled.operations.length,
      diagnostics: compiled.diagnostics.length,
    },
  };
}
