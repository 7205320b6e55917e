/**
 * Settings' MCP servers (local Hub only; docs/mcp.md#in-the-desk): list, add and refresh the Hub's
 * MCP systems and show and edit their tools' overlays, over the admin client the embedded Hub's
 * operator holds. Adding a server also gives this desk an authorization for it, so its tools appear
 * wherever an HTTP system's do (search, conversations, tasks).
 *
 * Secrets typed into the add form (secret environment values, a bearer token) go to the Hub only:
 * no answer carries them (the views have no field for them) and any text that comes back from the
 * Hub — a server's stderr in an `initialize` failure, say — has them masked first.
 */
import type { Authorization, HubSystem, McpServerConfig, McpToolView } from '../../src-shared/hub-api.js';
import {
  mcpFormSecrets,
  type AddMcpServerForm,
  type McpServerItem,
  type McpToolItem,
} from '../../src-shared/ipc/mcp.js';
import { isHubClientError, type HubAdminClient } from '../hub-client/index.js';
import { AppError, toAppError } from './errors.js';
import type { HandlerTable } from './types.js';

export type McpServerHandlers = Pick<
  HandlerTable,
  | 'listMcpServers'
  | 'addMcpServer'
  | 'refreshMcpServer'
  | 'removeMcpServer'
  | 'listMcpTools'
  | 'setMcpToolOverlay'
  | 'clearMcpToolOverlay'
>;

export interface McpServerDeps {
  /** The embedded Hub's admin client; null where the desk holds no admin credential (a remote Hub). */
  admin: HubAdminClient | null;
  /** This desk's client id (the new server's authorization is granted to it). */
  clientId: string;
  /** Whom the desk acts for (the authorization's on-behalf-of). */
  onBehalfOf: string;
  /** Throws `hub_unavailable` when the Hub cannot be reached right now. */
  needHub: () => void;
  /** The authorizations granted to this desk's client. */
  grantedAuthorizations: () => Promise<Authorization[]>;
}

const MASK = '•••';
const MAX_PROBLEM_CHARS = 2000;

/** The authorization a server added from Settings gets (one per server; the account is the server). */
export const mcpAuthorizationRef = (systemId: string): string => `mcp-${systemId}`;

/** `text` with every secret value replaced (longest first, so a secret inside another is covered). */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((x) => x.length > 0).sort((a, b) => b.length - a.length))
    out = out.split(s).join(MASK);
  return out;
}

/** The Hub's request body for the form's server (secret values in `secret_env` / `bearer_token`). */
function hubServer(form: AddMcpServerForm): McpServerConfig {
  const s = form.server;
  if (s.transport === 'streamable_http')
    return {
      transport: 'streamable_http',
      url: s.url.trim(),
      ...(s.bearer_token !== null ? { bearer_token: s.bearer_token } : {}),
    };
  const env = Object.fromEntries(s.env.filter((e) => !e.secret).map((e) => [e.name, e.value]));
  const secretEnv = Object.fromEntries(s.env.filter((e) => e.secret).map((e) => [e.name, e.value]));
  return {
    transport: 'stdio',
    command: s.command.trim(),
    args: s.args,
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(Object.keys(secretEnv).length > 0 ? { secret_env: secretEnv } : {}),
    ...(s.cwd !== null ? { cwd: s.cwd } : {}),
  };
}

function serverItem(sys: HubSystem, authorizationRef: string | null): McpServerItem {
  const mcp = sys.mcp;
  if (!mcp) throw new AppError('hub_error', `system ${sys.system_id} is not an MCP server`);
  return {
    system_id: sys.system_id,
    name: sys.name,
    transport: mcp.transport,
    command: mcp.command,
    args: [...mcp.args],
    env: { ...mcp.env },
    secret_env_names: [...mcp.secret_env_names],
    cwd: mcp.cwd,
    url: mcp.url,
    has_bearer_token: mcp.has_bearer_token,
    connection: mcp.connection,
    server_info: mcp.server_info ? { name: mcp.server_info.name, version: mcp.server_info.version } : null,
    tool_count: sys.tool_count,
    problems: sys.diagnostics.map((d) => ({
      code: d.code.slice(0, 100),
      tool: d.operation,
      message: d.message.slice(0, MAX_PROBLEM_CHARS),
    })),
    refreshed_at: sys.refreshed_at,
    authorization_ref: authorizationRef,
  };
}

function toolItem(v: McpToolView): McpToolItem {
  const g = v.governed;
  return {
    tool: v.tool,
    title: v.title,
    description: v.description,
    task_support: v.task_support,
    annotations: { ...v.annotations },
    overlay: v.overlay,
    governed: {
      effect: g.effect,
      risk_level: g.risk_level,
      approval_required: g.approval_required,
      approval_rules: g.approval_rules,
      rate_limit: g.rate_limit ? { count: g.rate_limit.count, window: g.rate_limit.window } : null,
      timeout_ms: g.timeout_ms,
      idempotent: g.idempotent,
      lookup_tool: g.lookup_tool,
      enabled: g.enabled,
      audit_sensitive: g.audit_sensitive,
    },
    declaration_revision: v.declaration_revision,
  };
}

/** The error as the renderer gets it, with the form's secrets masked out of the Hub's own words. */
function masked(err: unknown, secrets: readonly string[]): AppError {
  const data = toAppError(err);
  const cause = data.cause ? { ...data.cause, message: maskSecrets(data.cause.message, secrets) } : undefined;
  return new AppError(data.code, maskSecrets(data.message, secrets), cause);
}

export function createMcpServerHandlers(deps: McpServerDeps): McpServerHandlers {
  const admin = (): HubAdminClient => {
    if (!deps.admin)
      throw new AppError('not_permitted', 'MCP servers are managed only on the embedded local Hub.');
    deps.needHub();
    return deps.admin;
  };
  /** system id -> this desk's active authorization for it. */
  const refsBySystem = async (): Promise<Map<string, string>> => {
    const granted = await deps.grantedAuthorizations().catch(() => [] as Authorization[]);
    const out = new Map<string, string>();
    for (const a of granted)
      if (a.state === 'active' && !out.has(a.system_id)) out.set(a.system_id, a.authorization_ref);
    return out;
  };
  const mcpSystem = async (a: HubAdminClient, systemId: string): Promise<HubSystem> => {
    const found = (await a.listSystems()).find((s) => s.system_id === systemId);
    if (!found) throw new AppError('not_found', `no system ${systemId}`);
    if (found.kind !== 'mcp' || !found.mcp)
      throw new AppError('hub_error', `${systemId} is not an MCP server`, {
        error: 'system_kind_mismatch',
        message: `${systemId} is not an MCP server`,
      });
    return found;
  };

  /** Gives this desk an authorization for the server (kept when it exists already). */
  const grantToDesk = async (a: HubAdminClient, systemId: string): Promise<string> => {
    const ref = mcpAuthorizationRef(systemId);
    try {
      await a.createAuthorization({
        system_id: systemId,
        account: systemId,
        on_behalf_of: deps.onBehalfOf,
        authorization_ref: ref,
      });
    } catch (err) {
      if (!(isHubClientError(err) && err.code === 'already_exists')) throw err;
    }
    await a.grantAuthorization(ref, deps.clientId);
    return ref;
  };

  return {
    async listMcpServers() {
      if (!deps.admin) return { can_manage: false, servers: [] };
      const a = admin();
      const [systems, refs] = await Promise.all([a.listSystems(), refsBySystem()]);
      return {
        can_manage: true,
        // a removed (retired) server is no longer the desk's: the Hub keeps it for its history
        servers: systems
          .filter((s) => s.kind === 'mcp' && s.mcp && !s.retired_at)
          .map((s) => serverItem(s, refs.get(s.system_id) ?? null)),
      };
    },
    async addMcpServer(input) {
      const a = admin();
      const secrets = mcpFormSecrets(input);
      // a removed (retired) server's id may be added again: the Hub revives it
      if ((await a.listSystems()).some((s) => s.system_id === input.system_id && !s.retired_at))
        throw new AppError('system_exists', `a system ${input.system_id} is registered already`);
      try {
        const sys = await a.registerSystem({
          kind: 'mcp',
          system_id: input.system_id,
          name: input.name.trim(),
          server: hubServer(input),
        });
        const ref = await grantToDesk(a, sys.system_id);
        return serverItem(sys, ref);
      } catch (err) {
        throw masked(err, secrets);
      }
    },
    async refreshMcpServer(input) {
      const a = admin();
      await mcpSystem(a, input.system_id);
      const sys = await a.refreshSystem(input.system_id);
      // A server registered elsewhere (config file, CLI), or whose grant was cut short, gets this
      // desk's authorization here, so its tools reach conversations and tasks.
      const ref = (await refsBySystem()).get(sys.system_id) ?? (await grantToDesk(a, sys.system_id));
      return serverItem(sys, ref);
    },
    async removeMcpServer(input) {
      const a = admin();
      await mcpSystem(a, input.system_id);
      const sys = await a.retireSystem(input.system_id);
      if (!sys.retired_at) throw new AppError('hub_error', `the Hub did not retire ${input.system_id}`);
      return { system_id: sys.system_id, retired_at: sys.retired_at };
    },
    async listMcpTools(input) {
      const a = admin();
      const list = await a.listMcpTools(input.system_id);
      return { system_id: list.system_id, tools: list.tools.map(toolItem) };
    },
    async setMcpToolOverlay(input) {
      const a = admin();
      return toolItem(await a.setToolOverlay(input.system_id, input.tool, input.overlay));
    },
    async clearMcpToolOverlay(input) {
      const a = admin();
      return toolItem(await a.clearToolOverlay(input.system_id, input.tool));
    },
  };
}
