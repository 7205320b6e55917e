/**
 * An MCP server's registration split in two: the settings kept in the clear (and shown back), and
 * the secrets (secret environment values, the bearer token), which go to the Hub's credential store
 * and are never returned (docs/mcp.md#registering-a-server).
 */
import type { McpServerConfig, McpServerView } from '../../src-shared/hub-api.js';
import type { McpConnectionState } from '../../src-shared/states.js';
import { DEFAULT_MCP_TIMEOUT_MS, type McpSecrets, type McpServerSettings } from './types.js';

export function splitServerConfig(
  server: McpServerConfig,
  defaultTimeoutMs: number | undefined,
): { settings: McpServerSettings; secrets: McpSecrets } {
  const default_timeout_ms = defaultTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
  if (server.transport === 'stdio') {
    const secretEnv = server.secret_env ?? {};
    return {
      settings: {
        transport: 'stdio',
        command: server.command,
        args: server.args ?? [],
        env: server.env ?? {},
        secret_env_names: Object.keys(secretEnv).sort(),
        cwd: server.cwd ?? null,
        url: null,
        has_bearer_token: false,
        default_timeout_ms,
      },
      secrets: { env: secretEnv, bearer_token: null },
    };
  }
  return {
    settings: {
      transport: 'streamable_http',
      command: null,
      args: [],
      env: {},
      secret_env_names: [],
      cwd: null,
      url: server.url,
      has_bearer_token: server.bearer_token !== undefined,
      default_timeout_ms,
    },
    secrets: { env: {}, bearer_token: server.bearer_token ?? null },
  };
}

export function serverView(
  settings: McpServerSettings,
  live: { connection: McpConnectionState | null; server_info: { name: string; version: string } | null },
): McpServerView {
  return {
    transport: settings.transport,
    command: settings.command,
    args: settings.args,
    env: settings.env,
    secret_env_names: settings.secret_env_names,
    cwd: settings.cwd,
    url: settings.url,
    has_bearer_token: settings.has_bearer_token,
    default_timeout_ms: settings.default_timeout_ms,
    connection: live.connection,
    server_info: live.server_info,
  };
}
