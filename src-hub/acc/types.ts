/**
 * The compiled form of one governed operation — an ACC v1 operation of an HTTP system or a tool of an
 * MCP server (docs/mcp.md): what the Hub turns into a declaration and dispatches.
 */
import type { z } from 'zod';
import type { ApprovalRuleSchema, McpToolAnnotations, ToolOverlay } from '../../src-shared/hub-api.js';

export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export type RiskLevel = 'low' | 'medium' | 'high';
export type SideEffect = 'none' | 'read' | 'write' | 'notify' | 'external';
export type RateWindow = '1s' | '1m' | '1h' | '1d';

/** What every governed operation carries, whatever kind of system it belongs to. */
export interface GovernedOperation {
  tool: string; // operationId, or the MCP tool's name
  description: string;
  /** One JSON Schema object of the arguments (additionalProperties false for HTTP; as the MCP server gave it). */
  input_schema: Record<string, unknown>;
  /** write unless the operation is declared readonly AND its side effect is none/read. */
  effect: 'read' | 'write';
  /** The declared execution.readonly flag (part of the revision even when it does not change the effect). */
  declared_readonly: boolean;
  side_effect: SideEffect;
  risk_level: RiskLevel;
  approval: { required: boolean; prompt: string | null; when: ApprovalRule[] };
  idempotent: boolean;
  timeout_ms: number;
  rate_limit: { count: number; window: RateWindow } | null;
  scope: string;
  subject_required: boolean;
  audit_sensitive: boolean;
  guidance: Record<string, unknown> | null;
  /** sha256 hex of the canonical JSON of every other field. */
  declaration_revision: string;
}

/** An operation of an HTTP business system (OpenAPI + ACC). Stored operations of older Hubs have no `kind`. */
export interface HttpOperation extends GovernedOperation {
  kind?: 'http';
  method: string; // upper case
  path_template: string; // OpenAPI path, e.g. /products/{product_id}
  path_params: string[];
  query_params: string[];
  body_params: string[];
  has_body: boolean;
  /** True when the operation's requestBody is required: an empty arguments set still sends '{}'. */
  body_required: boolean;
}

/** How an MCP tool is called and recovered (src-hub/mcp; docs/mcp.md). */
export interface McpBinding {
  /** The server's tool name (`tools/call` params.name). */
  name: string;
  title: string | null;
  /** The annotations as the server gave them (hints, never trusted on their own). */
  annotations: McpToolAnnotations;
  task_support: 'forbidden' | 'optional' | 'required';
  /** The read-only tool of the same server that answers for an idempotency key, if any. */
  lookup_tool: string | null;
  /** The operator's overlay this operation was compiled with (null: governed from the annotations). */
  overlay: ToolOverlay | null;
}

/** A tool of an MCP server, governed like an HTTP operation. */
export interface McpOperation extends GovernedOperation {
  kind: 'mcp';
  mcp: McpBinding;
}

export type CompiledOperation = HttpOperation | McpOperation;

export const isMcpOperation = (op: CompiledOperation): op is McpOperation => op.kind === 'mcp';

export const DEFAULT_TIMEOUT_MS = 10_000;
