/** The admin view of a business system (either kind); never a secret. */
import type { HubSystem } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { serverView } from '../mcp/settings.js';
import { insecureHttpWarning } from '../dispatch/destination.js';
import type { SystemRecord } from '../store/types.js';

export async function systemView(ctx: HubContext, s: SystemRecord): Promise<HubSystem> {
  const ops = await ctx.store.currentOperations([s.system_id]);
  const insecure = s.allow_insecure_http ? insecureHttpWarning(s.base_url) : null;
  return {
    system_id: s.system_id,
    name: s.name,
    base_url: s.base_url,
    spec_path: s.spec_path,
    spec_signing: s.spec_signing,
    signed_path: s.signed_path,
    allow_insecure_http: s.allow_insecure_http,
    warnings: insecure ? [insecure] : [],
    spec_revision: s.spec_revision,
    tool_count: ops.length,
    diagnostics: s.diagnostics,
    refreshed_at: s.refreshed_at,
    kind: s.kind,
    mcp:
      s.kind === 'mcp' && s.mcp
        ? serverView(s.mcp, ctx.mcp?.state(s.system_id) ?? { connection: null, server_info: null })
        : null,
    retired_at: s.retired_at,
  };
}
