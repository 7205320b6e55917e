/**
 * Business systems: register (base URL + signing secret), refresh the spec (fetch + compile),
 * and render the admin view. A refresh that fails or yields an invalid spec keeps the previous
 * declarations; operations that cannot be compiled are reported as coded diagnostics.
 */
import type { HubSystem, RegisterSystemRequest } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { checkBaseUrl, insecureHttpWarning } from '../dispatch/destination.js';
import { conflict, HubError, notFound } from '../errors.js';
import { refreshMcpSystem } from '../mcp/register.js';
import { SECRET_CONTEXTS } from '../secrets/index.js';
import { openSigningSecret } from '../secrets/system-secret.js';
import type { SystemRecord } from '../store/types.js';
import { systemView } from './view.js';
import { specRefreshedAudit } from './refreshed-audit.js';
import { notifyGrantees } from './notify-grantees.js';
import { liveSystemChange } from './retired.js';

export const DEFAULT_SPEC_PATH = '/.well-known/bailing/tools.json';

export { systemView };

export async function registerSystem(
  ctx: HubContext,
  req: RegisterSystemRequest,
  actor: string,
  opts: { requireSpec: boolean } = { requireSpec: true },
): Promise<HubSystem> {
  const existing = await ctx.store.getSystem(req.system_id);
  if (existing && existing.kind !== 'http')
    throw conflict('system_kind_mismatch', `system ${req.system_id} is an MCP server; choose another id`);
  const refusal = checkBaseUrl(req.base_url, req.allow_insecure_http ?? false);
  if (refusal) throw new HubError(400, refusal.code, `${refusal.message}; nothing was registered`);
  if (req.allow_insecure_http && insecureHttpWarning(req.base_url))
    ctx.logger.warn(
      { system_id: req.system_id },
      'registered with allow_insecure_http: its requests and signatures travel in clear',
    );
  const specPath = req.spec_path ?? DEFAULT_SPEC_PATH;
  const specSigning = req.spec_signing ?? 'signed';
  const fetched = await ctx.edge.fetchSpec({
    baseUrl: req.base_url,
    systemId: req.system_id,
    allowInsecureHttp: req.allow_insecure_http ?? false,
    specPath,
    timeoutMs: ctx.settings.specTimeoutMs,
    secret: specSigning === 'signed' ? req.signing_secret : null,
  });
  if (!fetched.ok && fetched.reason)
    ctx.logger.warn({ system_id: req.system_id, reason: fetched.reason }, 'spec fetch failed');
  if (!fetched.ok && opts.requireSpec) {
    throw new HubError(
      502,
      'system_unreachable',
      `could not fetch ${specPath} from the system's base URL: ${fetched.message}; nothing was registered`,
    );
  }
  const sys = await ctx.store.upsertSystem(
    {
      system_id: req.system_id,
      name: req.name,
      base_url: req.base_url,
      spec_path: specPath,
      signing_secret: ctx.secrets.seal(
        SECRET_CONTEXTS.systemSigningSecret(req.system_id),
        req.signing_secret,
      ),
      spec_signing: specSigning,
      signed_path: req.signed_path ?? 'operation',
      allow_insecure_http: req.allow_insecure_http ?? false,
    },
    ctx.now().toISOString(),
    {
      actor,
      kind: 'system.registered',
      detail: {
        system_id: req.system_id,
        base_url: req.base_url,
        spec_path: specPath,
        // registering a retired system's id again revives it (retired_at is cleared)
        ...(existing?.retired_at ? { revived: true } : {}),
      },
    },
  );
  if (fetched.ok) await applySpec(ctx, sys, fetched.doc, actor);
  else
    ctx.logger.warn(
      { system_id: sys.system_id, code: fetched.code },
      'system registered without a spec; refresh it later',
    );
  const after = (await ctx.store.getSystem(sys.system_id)) ?? sys;
  if (existing?.retired_at) await notifyGrantees(ctx, after);
  return systemView(ctx, after);
}

export async function refreshSystem(ctx: HubContext, systemId: string, actor: string): Promise<HubSystem> {
  const sys = await ctx.store.getSystem(systemId);
  if (!sys) throw notFound('system_not_found', `no system ${systemId}`);
  if (sys.retired_at !== null)
    throw conflict(
      'system_retired',
      `system ${systemId} is retired; register it again to bring it back (nothing was read)`,
    );
  if (sys.kind === 'mcp') return refreshMcpSystem(ctx, systemId, actor);
  let secret: string | null = null;
  if (sys.spec_signing === 'signed') {
    secret = openSigningSecret(ctx, sys);
    if (secret === null)
      throw new HubError(
        502,
        'system_unreachable',
        `the signing secret of ${systemId} cannot be opened with the Hub's secret key; register the system again. The previous spec is kept`,
      );
  }
  const fetched = await ctx.edge.fetchSpec({
    baseUrl: sys.base_url,
    systemId: sys.system_id,
    allowInsecureHttp: sys.allow_insecure_http,
    specPath: sys.spec_path,
    timeoutMs: ctx.settings.specTimeoutMs,
    secret,
  });
  if (!fetched.ok) {
    throw new HubError(
      502,
      'system_unreachable',
      `could not fetch the spec of ${systemId}: ${fetched.message}; the previous spec is kept`,
    );
  }
  await applySpec(ctx, sys, fetched.doc, actor);
  const after = await ctx.store.getSystem(systemId);
  return systemView(ctx, after ?? sys);
}

async function applySpec(ctx: HubContext, sys: SystemRecord, doc: unknown, actor: string): Promise<void> {
  const compiled = ctx.edge.compileSpec(doc);
  if (compiled.operations.length === 0 && compiled.diagnostics.length > 0) {
    await liveSystemChange(
      sys.system_id,
      'recording its spec',
      ctx.store.recordDiagnostics(sys.system_id, compiled.diagnostics, {
        actor,
        kind: 'system.spec_rejected',
        detail: { system_id: sys.system_id, diagnostics: compiled.diagnostics.length },
      }),
    );
    const whole = compiled.diagnostics.find((d) => d.code === 'spec_invalid');
    const why = whole ? whole.message : compiled.diagnostics.map((d) => d.code).join(', ');
    throw new HubError(
      422,
      'spec_invalid',
      `the spec of ${sys.system_id} yields no usable operation (${why}); the previous spec is kept`,
    );
  }
  const replaced = ctx.store.replaceOperations(
    sys.system_id,
    compiled.operations.map((op) => ({
      system_id: sys.system_id,
      tool: op.tool,
      declaration_revision: op.declaration_revision,
      operation: op,
    })),
    compiled.spec_revision,
    compiled.diagnostics,
    ctx.now().toISOString(),
    specRefreshedAudit(actor, sys.system_id, compiled),
  );
  await liveSystemChange(sys.system_id, 'changing its declarations', replaced);
}
