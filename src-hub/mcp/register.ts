/**
 * Registering an MCP server (admin API, config file, operator CLI): connect, read every page of
 * `tools/list`, compile — and only then store the system (settings in the clear, secrets in the
 * credential column) and its declarations. A server that cannot be started or reached, does not
 * answer `initialize`, or lists tools that cannot be governed is refused with a coded error and
 * nothing is stored (docs/mcp.md#registering-a-server).
 */
import type { HubSystem, RegisterMcpSystemRequest } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { checkBaseUrl } from '../dispatch/destination.js';
import { conflict, HubError } from '../errors.js';
import { notifyGrantees } from '../systems/notify-grantees.js';
import { systemView } from '../systems/view.js';
import { openConnection, readCatalog, refreshMcpCatalog, writeCatalog } from './catalog.js';
import type { McpCompileResult } from './compile.js';
import { sealMcpSecrets } from './secrets.js';
import { splitServerConfig } from './settings.js';
import { specRefreshedAudit } from '../systems/refreshed-audit.js';

export async function registerMcpSystem(
  ctx: HubContext,
  req: RegisterMcpSystemRequest,
  actor: string,
  opts: { requireServer: boolean } = { requireServer: true },
): Promise<HubSystem> {
  const existing = await ctx.store.getSystem(req.system_id);
  if (existing && existing.kind !== 'mcp')
    throw conflict('system_kind_mismatch', `system ${req.system_id} is an HTTP system; choose another id`);
  // a server at a URL follows the same destination policy as an HTTP system (its bearer token travels)
  const refusal = req.server.transport === 'streamable_http' ? checkBaseUrl(req.server.url, false) : null;
  if (refusal) throw new HubError(400, refusal.code, `${refusal.message}; nothing was registered`);
  const { settings, secrets } = splitServerConfig(req.server, req.default_timeout_ms);
  const overlays = req.overlays ?? existing?.mcp_overlays ?? {};

  let conn: Awaited<ReturnType<typeof openConnection>> | null = null;
  let compiled: McpCompileResult | null = null;
  try {
    conn = await openConnection(ctx, req.system_id, settings, secrets);
    compiled = await readCatalog(ctx, req.system_id, conn, overlays, settings.default_timeout_ms);
  } catch (err) {
    await conn?.close();
    conn = null;
    if (opts.requireServer || !(err instanceof HubError) || err.code !== 'mcp_server_unreachable') {
      if (err instanceof HubError)
        throw new HubError(err.status, err.code, `${err.message}; nothing was registered`);
      throw err;
    }
    ctx.logger.warn(
      { system_id: req.system_id, code: err.code },
      'MCP server registered without its tools; the Hub reads them once it connects',
    );
  }

  try {
    const sys = await ctx.store.upsertSystem(
      {
        system_id: req.system_id,
        name: req.name,
        base_url: settings.url ?? '',
        spec_path: '',
        signing_secret: sealMcpSecrets(ctx.secrets, req.system_id, secrets),
        spec_signing: 'unsigned',
        signed_path: 'operation',
        allow_insecure_http: false,
        kind: 'mcp',
        mcp: settings,
      },
      ctx.now().toISOString(),
      {
        actor,
        kind: 'system.registered',
        detail: {
          system_id: req.system_id,
          kind: 'mcp',
          transport: settings.transport,
          command: settings.command,
          url: settings.url,
          secret_env_names: settings.secret_env_names,
          has_bearer_token: settings.has_bearer_token,
          // registering a retired server's id again revives it (retired_at is cleared)
          ...(existing?.retired_at ? { revived: true } : {}),
        },
      },
    );
    if (compiled) {
      await writeCatalog(
        ctx,
        sys.system_id,
        compiled,
        overlays,
        undefined,
        specRefreshedAudit(actor, sys.system_id, compiled),
      );
    }
    const stored = (await ctx.store.getSystem(sys.system_id)) ?? sys;
    if (conn && ctx.mcp) ctx.mcp.adopt(stored, conn);
    else await conn?.close();
    conn = null;
    if (existing?.retired_at) await notifyGrantees(ctx, stored);
    return systemView(ctx, stored);
  } finally {
    await conn?.close();
  }
}

/** POST /admin/v1/systems/{id}/refresh of an MCP system: read its tools again now. */
export async function refreshMcpSystem(ctx: HubContext, systemId: string, actor: string): Promise<HubSystem> {
  const sys = await ctx.store.getSystem(systemId);
  if (!sys) throw new HubError(404, 'system_not_found', `no system ${systemId}`);
  await refreshMcpCatalog(ctx, sys, actor);
  return systemView(ctx, (await ctx.store.getSystem(systemId)) ?? sys);
}
