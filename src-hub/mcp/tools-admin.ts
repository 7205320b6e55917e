/**
 * The operator's view and edit of an MCP server's tools: every listed tool with its annotations,
 * its overlay and how the Hub governs it now; setting or clearing one tool's overlay recompiles the
 * catalog, so the tool gets a new declaration revision (docs/mcp.md#the-overlay).
 */
import type { McpToolList, McpToolView, ToolOverlay } from '../../src-shared/hub-api.js';
import { normalizeRule, ruleProblem } from '../acc/approval.js';
import type { HubContext } from '../context.js';
import { badRequest, conflict, HubError, notFound } from '../errors.js';
import type { SystemRecord } from '../store/types.js';
import { recompileWithOverlays } from './catalog.js';
import { governanceOf } from './compile.js';
import { lookupToolProblem } from './overlay.js';
import { refuseIfRetired } from '../systems/retired.js';
import type { McpToolSource } from './types.js';

type McpSystem = SystemRecord & { mcp_tools: McpToolSource[] };

async function mcpSystem(ctx: HubContext, systemId: string): Promise<McpSystem> {
  const sys = await ctx.store.getSystem(systemId);
  if (!sys) throw notFound('system_not_found', `no system ${systemId}`);
  if (sys.kind !== 'mcp' || !sys.mcp)
    throw conflict('system_kind_mismatch', `${systemId} is not an MCP server`);
  return { ...sys, mcp_tools: sys.mcp_tools ?? [] };
}

async function views(ctx: HubContext, sys: McpSystem): Promise<McpToolView[]> {
  const current = new Map(
    (await ctx.store.currentOperations([sys.system_id])).map((op) => [op.tool, op.declaration_revision]),
  );
  const governed = governanceOf(sys.mcp_tools, sys.mcp_overlays, sys.mcp!.default_timeout_ms);
  return sys.mcp_tools.map((t) => {
    const g = governed.get(t.name)!;
    return {
      tool: t.name,
      title: t.title,
      description: t.description,
      annotations: t.annotations,
      task_support: t.task_support,
      overlay: sys.mcp_overlays[t.name] ?? null,
      governed: {
        effect: g.effect,
        risk_level: g.risk_level,
        approval_required: g.approval.required,
        approval_rules: g.approval.when.length,
        rate_limit: g.rate_limit,
        timeout_ms: g.timeout_ms,
        idempotent: g.idempotent,
        lookup_tool: g.lookup_tool,
        enabled: g.enabled,
        audit_sensitive: g.audit_sensitive,
      },
      declaration_revision: current.get(t.name) ?? null,
    };
  });
}

export async function listMcpTools(ctx: HubContext, systemId: string): Promise<McpToolList> {
  const sys = await mcpSystem(ctx, systemId);
  return { system_id: systemId, tools: await views(ctx, sys) };
}

/** Why this overlay cannot be applied to `tool` (null when it can). */
function overlayProblem(
  sys: McpSystem,
  tool: McpToolSource,
  overlays: Record<string, ToolOverlay>,
): string | null {
  const overlay = overlays[tool.name];
  if (!overlay) return null;
  for (const rule of overlay.approval?.when ?? []) {
    const why = ruleProblem(normalizeRule(rule), tool.input_schema);
    if (why) return why;
  }
  const governed = governanceOf(sys.mcp_tools, overlays, sys.mcp!.default_timeout_ms);
  if (overlay.lookup_tool) {
    const why = lookupToolProblem(tool.name, overlay.lookup_tool, (n) => governed.get(n) ?? null);
    if (why) return why;
  }
  // a tool others use as their look-up must stay an enabled read
  for (const [name, g] of governed) {
    if (g.lookup_tool === tool.name) {
      const why = lookupToolProblem(name, tool.name, (n) => governed.get(n) ?? null);
      if (why) return `${tool.name} is the look-up tool of ${name}: ${why}`;
    }
  }
  return null;
}

export async function setToolOverlay(
  ctx: HubContext,
  systemId: string,
  toolName: string,
  overlay: ToolOverlay | null,
  actor: string,
): Promise<McpToolView> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const sys = await mcpSystem(ctx, systemId);
    // reading a retired server's tools stays allowed; changing how they are governed does not
    refuseIfRetired(
      sys,
      overlay ? `setting the overlay of ${toolName}` : `clearing the overlay of ${toolName}`,
    );
    const tool = sys.mcp_tools.find((t) => t.name === toolName);
    if (!tool) throw notFound('tool_not_found', `${systemId} lists no tool ${toolName}`);
    const overlays = { ...sys.mcp_overlays };
    if (overlay) overlays[toolName] = overlay;
    else delete overlays[toolName];
    const why = overlayProblem(sys, tool, overlays);
    if (why) throw badRequest(`the overlay of ${toolName} is refused: ${why}`);
    const written = await recompileWithOverlays(ctx, sys, overlays, {
      actor,
      kind: overlay ? 'system.tool_overlay_set' : 'system.tool_overlay_cleared',
      detail: { system_id: systemId, tool: toolName, overlay },
    });
    if (written) {
      const after = await mcpSystem(ctx, systemId);
      const view = (await views(ctx, after)).find((v) => v.tool === toolName);
      if (view) return view;
    }
  }
  throw new HubError(409, 'declaration_changed', `the tools of ${systemId} kept changing; try again`);
}
