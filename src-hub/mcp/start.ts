/**
 * A serving Hub's MCP side: the supervisor that keeps this process's connections to the MCP servers
 * it governs (supervisor.ts), wired to the store, the settings and the catalog refresh — a
 * `notifications/tools/list_changed` or a reconnection reads the tools again and gives new
 * declaration revisions when they changed (docs/mcp.md#supervision).
 */
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { HUB_MCP_VERSION, limitsOf, refreshMcpCatalog } from './catalog.js';
import { openMcpSecrets } from './secrets.js';
import { createMcpSupervisor, type McpSupervisor } from './supervisor.js';

export function startMcpSupervisor(ctx: HubContext): McpSupervisor {
  const refresh = async (systemId: string) => {
    const sys = await ctx.store.getSystem(systemId);
    if (!sys || sys.kind !== 'mcp' || sys.retired_at !== null) return;
    await refreshMcpCatalog(ctx, sys, 'mcp');
  };
  const supervisor = createMcpSupervisor({
    limits: limitsOf(ctx),
    hubVersion: HUB_MCP_VERSION,
    listSystems: () => ctx.store.listSystems(),
    getSystem: (id) => ctx.store.getSystem(id),
    onToolsChanged: (systemId) => {
      const p = refresh(systemId).catch((err: unknown) =>
        ctx.logger.warn(
          { system_id: systemId, code: err instanceof HubError ? err.code : 'internal' },
          'MCP tool list could not be read again; the previous declarations stay',
        ),
      );
      ctx.inflight.add(p);
      void p.finally(() => ctx.inflight.delete(p));
    },
    log: (event, detail) => ctx.logger.info({ event, ...detail }, event),
    openSecrets: (s) => openMcpSecrets(ctx.secrets, s.system_id, s.signing_secret),
  });
  ctx.mcp = supervisor;
  return supervisor;
}
