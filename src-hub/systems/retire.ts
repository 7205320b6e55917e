/**
 * Retiring a business system (POST /admin/v1/systems/{id}/retire, the operator CLI's
 * `retire-system`): decided in one store transaction (store.retireSystem) — refused while any of
 * its calls is unresolved, since resolving them needs the system — then this process's MCP
 * connection is closed (a stdio server's process stopped). Other Hub processes on the same store
 * read `retired_at` where they read the system, and their supervisors close their own connection
 * at their next sweep (mcp/supervisor.ts). Registering the same id again revives it.
 */
import type { HubSystem } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { notifyGrantees } from './notify-grantees.js';
import { systemView } from './view.js';

export async function retireSystem(ctx: HubContext, systemId: string, actor: string): Promise<HubSystem> {
  const result = await ctx.store.retireSystem(systemId, ctx.now().toISOString(), {
    actor,
    kind: 'system.retired',
    detail: { system_id: systemId },
  });
  if (result.kind === 'not_found') throw notFound('system_not_found', `no system ${systemId}`);
  if (result.kind === 'unresolved')
    throw conflict(
      'system_has_unresolved_invocations',
      `system ${systemId} has ${result.count} call(s) whose outcome is not final (awaiting approval, approved, dispatching, unknown or unverified); resolve them first — resolving them needs the system. Nothing changed`,
    );
  if (result.system.kind === 'mcp') await ctx.mcp?.retire(systemId);
  if (!result.already) {
    ctx.logger.info({ system_id: systemId, actor }, 'system retired');
    await notifyGrantees(ctx, result.system);
  }
  return systemView(ctx, result.system);
}
