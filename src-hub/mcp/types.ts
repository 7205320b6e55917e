/**
 * What the Hub keeps of an MCP server (docs/mcp.md): its connection settings without secrets, the
 * tools it last listed (normalized), and the secrets it needs, which live sealed in the system's
 * credential column like an HTTP system's signing secret.
 */
import type { McpToolAnnotations } from '../../src-shared/hub-api.js';
import type { McpTransport } from '../../src-shared/states.js';

/** The connection settings of an MCP server, stored in the clear: never a secret value. */
export interface McpServerSettings {
  transport: McpTransport;
  command: string | null;
  args: string[];
  /** Environment values that are not secret. */
  env: Record<string, string>;
  /** The names of the secret environment variables (their values are in the credential). */
  secret_env_names: string[];
  cwd: string | null;
  url: string | null;
  has_bearer_token: boolean;
  /** A tool's timeout when its overlay sets none. */
  default_timeout_ms: number;
}

/** The secrets of an MCP server: held only in the Hub's credential store, never returned or logged. */
export interface McpSecrets {
  env: Record<string, string>;
  bearer_token: string | null;
}

/** One tool as the server listed it (`tools/list`), normalized and bounded. */
export interface McpToolSource {
  name: string;
  title: string | null;
  description: string;
  input_schema: Record<string, unknown>;
  annotations: McpToolAnnotations;
  task_support: 'forbidden' | 'optional' | 'required';
}

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
