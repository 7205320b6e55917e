/**
 * How the Hub governs one MCP tool (docs/mcp.md#the-overlay). MCP annotations are hints from a
 * server that may not be trusted; without an overlay they are read with the spec's defaults
 * (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false, `openWorldHint` true), so an
 * unannotated tool is a write of high risk that needs approval. Whatever the operator's overlay
 * sets wins. Risk `high` always needs approval (the Hub's rule for every system).
 */
import type { McpToolAnnotations, ToolOverlay } from '../../src-shared/hub-api.js';
import type { ApprovalRule, RateWindow, RiskLevel, SideEffect } from '../acc/types.js';

export interface ToolGovernance {
  effect: 'read' | 'write';
  side_effect: SideEffect;
  risk_level: RiskLevel;
  approval: { required: boolean; prompt: string | null; when: ApprovalRule[] };
  rate_limit: { count: number; window: RateWindow } | null;
  timeout_ms: number;
  idempotent: boolean;
  lookup_tool: string | null;
  enabled: boolean;
  audit_sensitive: boolean;
}

/** The annotations with MCP's defaults for the ones a server left out. */
export function hintsOf(a: McpToolAnnotations) {
  return {
    readOnly: a.readOnlyHint ?? false,
    destructive: a.destructiveHint ?? true,
    idempotent: a.idempotentHint ?? false,
    openWorld: a.openWorldHint ?? true,
  };
}

export function governTool(
  annotations: McpToolAnnotations,
  overlay: ToolOverlay | null,
  defaultTimeoutMs: number,
): ToolGovernance {
  const h = hintsOf(annotations);
  const o = overlay ?? {};
  const effect = o.effect ?? (h.readOnly ? 'read' : 'write');
  const writeRisk: RiskLevel = h.destructive ? 'high' : 'medium';
  const risk_level = o.risk_level ?? (effect === 'read' ? 'low' : writeRisk);
  return {
    effect,
    side_effect: effect === 'read' ? 'read' : h.openWorld ? 'external' : 'write',
    risk_level,
    approval: {
      required: (o.approval?.required ?? false) || risk_level === 'high',
      prompt: o.approval?.prompt ?? null,
      when: o.approval?.when ?? [],
    },
    rate_limit: o.rate_limit ?? null,
    timeout_ms: o.timeout_ms ?? defaultTimeoutMs,
    idempotent: o.idempotent ?? (effect === 'read' || h.idempotent),
    lookup_tool: o.lookup_tool ?? null,
    enabled: o.enabled ?? true,
    audit_sensitive: o.audit_sensitive ?? false,
  };
}

/**
 * Why an overlay's look-up tool cannot serve (null when it can): it must be another tool of the
 * same server, enabled and governed as a read.
 */
export function lookupToolProblem(
  tool: string,
  lookup: string,
  governed: (name: string) => ToolGovernance | null,
): string | null {
  if (lookup === tool) return `the look-up tool of ${tool} cannot be ${tool} itself`;
  const g = governed(lookup);
  if (!g) return `the look-up tool ${lookup} is not a tool of this server`;
  if (g.effect !== 'read') return `the look-up tool ${lookup} is not governed as a read`;
  if (!g.enabled) return `the look-up tool ${lookup} is disabled`;
  return null;
}
