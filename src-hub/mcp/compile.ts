/**
 * An MCP server's `tools/list` compiled into declarations, as an OpenAPI spec is (docs/mcp.md):
 * each tool is normalized and bounded, its input schema checked like an ACC operation's (size,
 * depth, RE2 patterns, it compiles), and governed from its annotations and the operator's overlay
 * (overlay.ts). Problems that make the list ungovernable — a name MCP does not allow, a duplicate
 * name, a malformed schema — are `problems`: registration refuses the server, a refresh keeps the
 * previous tools. Other findings are diagnostics. The revision covers the tools and the overlays,
 * so editing an overlay gives new declaration revisions exactly as a spec change does.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import {
  McpToolNameSchema,
  type McpToolAnnotations,
  type SpecDiagnostic,
  type ToolOverlay,
} from '../../src-shared/hub-api.js';
import { DECLARATION_SCHEMA_BUDGET, re2Engine, schemaProblem } from '../../src-shared/schema-safety.js';
import { normalizeRule, ruleProblem } from '../acc/approval.js';
import { declarationRevision } from '../acc/compile.js';
import type { McpOperation } from '../acc/types.js';
import { governTool, lookupToolProblem, type ToolGovernance } from './overlay.js';
import type { McpToolSource } from './types.js';

export interface McpCompileResult {
  /** Every well-formed tool the server listed, also the disabled ones. */
  tools: McpToolSource[];
  /** The enabled tools, compiled. */
  operations: McpOperation[];
  diagnostics: SpecDiagnostic[];
  /** Findings that make the list ungovernable as a whole. */
  problems: SpecDiagnostic[];
  spec_revision: string;
}

const MAX_DESCRIPTION = 8192;
const MAX_TITLE = 200;
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

const schemaChecker = new Ajv2020({
  strict: false,
  allErrors: false,
  validateFormats: false,
  code: { regExp: re2Engine },
});

const clip = (s: string, max: number) => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

function annotationsOf(v: unknown): McpToolAnnotations {
  if (!isObject(v)) return {};
  const out: McpToolAnnotations = {};
  for (const h of HINTS) if (typeof v[h] === 'boolean') out[h] = v[h];
  if (typeof v.title === 'string') out.title = clip(v.title, MAX_TITLE);
  return out;
}

function taskSupportOf(v: unknown): McpToolSource['task_support'] {
  const t = isObject(v) ? v.taskSupport : undefined;
  return t === 'optional' || t === 'required' ? t : 'forbidden';
}

/** One listed tool, normalized; a problem when it cannot be governed. */
export function normalizeTool(raw: unknown): { tool: McpToolSource } | { problem: SpecDiagnostic } {
  if (!isObject(raw))
    return { problem: { code: 'tool_invalid', operation: null, message: 'a listed tool is not an object' } };
  const name = raw.name;
  if (typeof name !== 'string' || !McpToolNameSchema.safeParse(name).success) {
    const shown = typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : String(typeof name);
    return {
      problem: {
        code: 'tool_name_invalid',
        operation: typeof name === 'string' ? name.slice(0, 128) : null,
        message: `tool name ${shown} is not 1–128 of A–Z a–z 0–9 _ - .`,
      },
    };
  }
  const bad = (message: string) => ({ problem: { code: 'schema_invalid', operation: name, message } });
  if (!isObject(raw.inputSchema)) return bad('inputSchema is not an object');
  const { $schema: _dialect, ...input_schema } = raw.inputSchema;
  if (input_schema.type !== 'object') return bad('inputSchema.type must be "object"');
  if (input_schema.properties !== undefined && !isObject(input_schema.properties))
    return bad('inputSchema.properties must be an object');
  const problem = schemaProblem(input_schema, DECLARATION_SCHEMA_BUDGET);
  if (problem) return { problem: { code: problem.code, operation: name, message: problem.message } };
  try {
    schemaChecker.compile(input_schema);
  } catch (err) {
    return bad(`inputSchema does not compile: ${(err as Error).message}`);
  }
  const annotations = annotationsOf(raw.annotations);
  const title = typeof raw.title === 'string' ? clip(raw.title, MAX_TITLE) : (annotations.title ?? null);
  return {
    tool: {
      name,
      title,
      description: typeof raw.description === 'string' ? clip(raw.description, MAX_DESCRIPTION) : '',
      input_schema,
      annotations,
      task_support: taskSupportOf(raw.execution),
    },
  };
}

/** Lets other requests run while a long tool list is compiled. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function compileMcpTools(
  raw: unknown[],
  overlays: Record<string, ToolOverlay>,
  opts: { systemId: string; defaultTimeoutMs: number },
): Promise<McpCompileResult> {
  const tools: McpToolSource[] = [];
  const problems: SpecDiagnostic[] = [];
  const diagnostics: SpecDiagnostic[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i++) {
    if (i > 0 && i % 25 === 0) await breathe();
    const n = normalizeTool(raw[i]);
    if ('problem' in n) {
      problems.push(n.problem);
      continue;
    }
    if (seen.has(n.tool.name)) {
      problems.push({
        code: 'tool_name_duplicate',
        operation: n.tool.name,
        message: `tool ${n.tool.name} is listed more than once`,
      });
      continue;
    }
    seen.add(n.tool.name);
    tools.push(n.tool);
  }
  return compileCatalog(tools, overlays, opts, problems, diagnostics);
}

/** Compiles normalized tools with overlays (also used when only an overlay changed). */
export function compileCatalog(
  tools: McpToolSource[],
  overlays: Record<string, ToolOverlay>,
  opts: { systemId: string; defaultTimeoutMs: number },
  problems: SpecDiagnostic[] = [],
  diagnostics: SpecDiagnostic[] = [],
): McpCompileResult {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const governance = new Map<string, ToolGovernance>();
  for (const t of tools) {
    const overlay = overlays[t.name] ?? null;
    const g = governTool(t.annotations, overlay, opts.defaultTimeoutMs);
    const when = [];
    for (const rule of g.approval.when) {
      const why = ruleProblem(normalizeRule(rule), t.input_schema);
      if (why)
        diagnostics.push({
          code: 'overlay_rule_invalid',
          operation: t.name,
          message: `${why}; rule ignored`,
        });
      else when.push(rule);
    }
    governance.set(t.name, { ...g, approval: { ...g.approval, when } });
  }
  for (const name of Object.keys(overlays)) {
    if (!byName.has(name))
      diagnostics.push({
        code: 'overlay_tool_missing',
        operation: name,
        message: `an overlay names ${name}, which the server does not list now; it is kept`,
      });
  }
  const operations: McpOperation[] = [];
  for (const t of tools) {
    const g = governance.get(t.name)!;
    let lookup = g.lookup_tool;
    if (lookup !== null) {
      const why = lookupToolProblem(t.name, lookup, (n) => governance.get(n) ?? null);
      if (why) {
        diagnostics.push({ code: 'lookup_tool_invalid', operation: t.name, message: `${why}; no look-up` });
        lookup = null;
      }
    }
    if (!g.enabled) continue;
    const compiled: Omit<McpOperation, 'declaration_revision'> = {
      kind: 'mcp',
      tool: t.name,
      description: t.description || t.title || t.name,
      input_schema: t.input_schema,
      effect: g.effect,
      declared_readonly: t.annotations.readOnlyHint === true,
      side_effect: g.side_effect,
      risk_level: g.risk_level,
      approval: g.approval,
      idempotent: g.idempotent,
      timeout_ms: g.timeout_ms,
      rate_limit: g.rate_limit,
      scope: `mcp:${opts.systemId}`,
      subject_required: false,
      audit_sensitive: g.audit_sensitive,
      guidance: null,
      mcp: {
        name: t.name,
        title: t.title,
        annotations: t.annotations,
        task_support: t.task_support,
        lookup_tool: lookup,
        overlay: overlays[t.name] ?? null,
      },
    };
    operations.push({ ...compiled, declaration_revision: declarationRevision(compiled) });
  }
  return {
    tools,
    operations,
    diagnostics,
    problems,
    spec_revision: sha256Hex(canonicalJson({ tools, overlays, default_timeout_ms: opts.defaultTimeoutMs })),
  };
}

/** The governance of every tool, for the admin's tool list. */
export function governanceOf(
  tools: McpToolSource[],
  overlays: Record<string, ToolOverlay>,
  defaultTimeoutMs: number,
): Map<string, ToolGovernance> {
  return new Map(
    tools.map((t) => [t.name, governTool(t.annotations, overlays[t.name] ?? null, defaultTimeoutMs)]),
  );
}
