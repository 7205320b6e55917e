/** Opens a run of a client on one of its authorizations (POST /agent/v1/runs, and each call on /mcp). */
import type { CreateRunRequest } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { RunRecord } from '../store/types.js';

export async function openRun(ctx: HubContext, clientId: string, req: CreateRunRequest): Promise<RunRecord> {
  const a = await ctx.store.getAuthorization(req.authorization_ref);
  if (!a || !(await ctx.store.isGranted(a.authorization_ref, clientId))) {
    throw notFound(
      'authorization_not_found',
      `authorization ${req.authorization_ref} is not granted to this client`,
    );
  }
  if (a.state === 'revoked')
    throw conflict('authorization_revoked', `authorization ${a.authorization_ref} is revoked`);
  // a retired system takes no new calls, so no new run either (docs/hub-api.md "Retiring a system")
  if ((await ctx.store.getSystem(a.system_id))?.retired_at)
    throw conflict(
      'system_retired',
      `authorization ${a.authorization_ref} is of system ${a.system_id}, which is retired: it takes no new runs`,
    );
  const run: RunRecord = {
    run_id: newId('run'),
    client_id: clientId,
    agent_session_id: req.agent_session_id,
    turn_id: req.turn_id,
    authorization_ref: a.authorization_ref,
    state: 'open',
    created_at: ctx.now().toISOString(),
    ended_at: null,
  };
  await ctx.store.createRun(run);
  return run;
}
