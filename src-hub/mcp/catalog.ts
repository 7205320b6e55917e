/**
 * An MCP server's catalog — the tools it lists and the operator's overlays — turned into current
 * declarations (store.replaceMcpCatalog), as a spec refresh does for an HTTP system. Reading the
 * tools needs a connection: the supervisor's in a serving Hub, a one-off one elsewhere (the CLI).
 */
import type { SpecDiagnostic, ToolOverlay } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import type { AuditInput, SystemRecord } from '../store/types.js';
import { compileCatalog, compileMcpTools, type McpCompileResult } from './compile.js';
import { connectServer, McpConnectError, type McpConnection } from './connect.js';
import { listAllTools } from './list-tools.js';
import { openMcpSecrets } from './secrets.js';
import type { McpSecrets, McpServerSettings, McpToolSource } from './types.js';
import { specRefreshedAudit } from '../systems/refreshed-audit.js';
import { liveSystemChange } from '../systems/retired.js';

export const HUB_MCP_VERSION = '0.1.0';

export const limitsOf = (ctx: HubContext) => ({
  initializeTimeoutMs: ctx.settings.mcpInitializeTimeoutMs,
  maxMessageBytes: ctx.settings.mcpMaxMessageBytes,
});

/** A one-off connection (registration; the CLI). Unreachable: 502 `mcp_server_unreachable`. */
export async function openConnection(
  ctx: HubContext,
  systemId: string,
  settings: McpServerSettings,
  secrets: McpSecrets,
): Promise<McpConnection> {
  try {
    return await connectServer({
      settings,
      secrets,
      limits: limitsOf(ctx),
      hubVersion: HUB_MCP_VERSION,
      onToolsChanged: () => ctx.mcp?.toolsChanged(systemId),
    });
  } catch (err) {
    const why = err instanceof McpConnectError ? err.message : String(err);
    throw new HubError(502, 'mcp_server_unreachable', `${systemId}: ${why}`);
  }
}

/** The connection a refresh reads from: the supervisor's, or a one-off one (closed by `done`). */
async function connectionForRefresh(
  ctx: HubContext,
  sys: SystemRecord,
): Promise<{ conn: McpConnection; done: () => Promise<void> }> {
  if (ctx.mcp) {
    const c = await ctx.mcp.connectionFor(sys, ctx.settings.mcpInitializeTimeoutMs);
    if ('notConnected' in c)
      throw new HubError(502, 'mcp_server_unreachable', `${sys.system_id}: ${c.notConnected}`);
    return { conn: c, done: async () => undefined };
  }
  const conn = await openConnection(
    ctx,
    sys.system_id,
    sys.mcp!,
    openMcpSecrets(ctx.secrets, sys.system_id, sys.signing_secret),
  );
  return { conn, done: () => conn.close() };
}

const problemWords = (problems: SpecDiagnostic[]) =>
  problems
    .slice(0, 5)
    .map((p) => `${p.code}${p.operation ? ` (${p.operation})` : ''}: ${p.message}`)
    .join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');

/** Lists every tool and compiles them with the overlays; 502 / 422 when that cannot be done. */
export async function readCatalog(
  ctx: HubContext,
  systemId: string,
  conn: McpConnection,
  overlays: Record<string, ToolOverlay>,
  defaultTimeoutMs: number,
): Promise<McpCompileResult> {
  const listed = await listAllTools(conn, {
    maxTools: ctx.settings.mcpMaxTools,
    maxPages: ctx.settings.mcpMaxPages,
    timeoutMs: ctx.settings.mcpListTimeoutMs,
  });
  if (!listed.ok) {
    if (listed.code === 'unreachable')
      throw new HubError(502, 'mcp_server_unreachable', `${systemId}: ${listed.message}`);
    throw new HubError(422, 'mcp_tools_invalid', `${systemId}: ${listed.message}`);
  }
  const compiled = await compileMcpTools(listed.tools, overlays, { systemId, defaultTimeoutMs });
  if (compiled.problems.length > 0)
    throw new HubError(
      422,
      'mcp_tools_invalid',
      `${systemId}: the tool list cannot be governed: ${problemWords(compiled.problems)}`,
    );
  return compiled;
}

/** Writes a compiled catalog if the system's catalog is still `expected`; false when it moved. */
export function writeCatalog(
  ctx: HubContext,
  systemId: string,
  compiled: McpCompileResult,
  overlays: Record<string, ToolOverlay>,
  expected: string | null | undefined,
  audit: AuditInput,
): Promise<boolean> {
  const change = ctx.store.replaceMcpCatalog({
    system_id: systemId,
    tools: compiled.tools,
    overlays,
    operations: compiled.operations.map((op) => ({
      system_id: systemId,
      tool: op.tool,
      declaration_revision: op.declaration_revision,
      operation: op,
    })),
    spec_revision: compiled.spec_revision,
    diagnostics: [...compiled.diagnostics],
    expected_revision: expected,
    at: ctx.now().toISOString(),
    audit,
  });
  return liveSystemChange(systemId, 'changing its tools', change);
}

/**
 * Reads the server's tools again and replaces the declarations when they changed (a refresh, a
 * `list_changed`, a reconnection). A list that cannot be governed keeps the previous declarations
 * and records why (422 for the caller).
 */
export async function refreshMcpCatalog(ctx: HubContext, sys: SystemRecord, actor: string): Promise<void> {
  if (sys.kind !== 'mcp' || !sys.mcp)
    throw new HubError(409, 'system_kind_mismatch', `${sys.system_id} is not an MCP server`);
  const { conn, done } = await connectionForRefresh(ctx, sys);
  try {
    let current = sys;
    for (let attempt = 0; attempt < 3; attempt++) {
      let compiled: McpCompileResult;
      try {
        compiled = await readCatalog(
          ctx,
          sys.system_id,
          conn,
          current.mcp_overlays,
          current.mcp!.default_timeout_ms,
        );
      } catch (err) {
        if (err instanceof HubError && err.code === 'mcp_tools_invalid')
          await liveSystemChange(
            sys.system_id,
            'recording its tools',
            ctx.store.recordDiagnostics(
              sys.system_id,
              [{ code: 'tools_invalid', operation: null, message: err.message }],
              { actor, kind: 'system.spec_rejected', detail: { system_id: sys.system_id } },
            ),
          );
        throw err;
      }
      if (compiled.spec_revision === current.spec_revision) return;
      const written = await writeCatalog(
        ctx,
        sys.system_id,
        compiled,
        current.mcp_overlays,
        current.spec_revision,
        specRefreshedAudit(actor, sys.system_id, compiled),
      );
      if (written) return;
      const again = await ctx.store.getSystem(sys.system_id);
      if (!again || again.kind !== 'mcp') return;
      current = again;
    }
  } finally {
    await done();
  }
}

/** Recompiles the stored tools with new overlays (no server round trip); false when the catalog moved. */
export function recompileWithOverlays(
  ctx: HubContext,
  sys: SystemRecord & { mcp_tools: McpToolSource[] },
  overlays: Record<string, ToolOverlay>,
  audit: AuditInput,
): Promise<boolean> {
  const compiled = compileCatalog(sys.mcp_tools, overlays, {
    systemId: sys.system_id,
    defaultTimeoutMs: sys.mcp!.default_timeout_ms,
  });
  return writeCatalog(ctx, sys.system_id, compiled, overlays, sys.spec_revision, audit);
}
