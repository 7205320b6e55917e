/** Operator actions: clients, authorizations (create, grant, revoke, rebind). */
import { onBehalfOfProblem } from '../../src-shared/header-value.js';
import type { AuthorizationState } from '../../src-shared/states.js';
import type { Authorization } from '../../src-shared/hub-api.js';
import { clientIdOfToken, hashToken, newClientToken } from '../auth/tokens.js';
import type { HubContext } from '../context.js';
import { badRequest, conflict, HubError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { AuthorizationRecord, SystemRecord } from '../store/types.js';
import { liveSystemChange, refuseIfRetired, refuseIfSystemRetired } from '../systems/retired.js';

export async function createClient(
  ctx: HubContext,
  input: { name: string; client_id?: string; token?: string },
  actor: string,
): Promise<{ client_id: string; name: string; token: string }> {
  const clientId = input.client_id ?? newId('cli');
  const token = input.token ?? newClientToken(clientId);
  if (clientIdOfToken(token) !== clientId) {
    throw new HubError(
      400,
      'invalid_request',
      `a client token must look like bdc_${clientId}.<at least 16 url-safe characters>`,
    );
  }
  if (await ctx.store.getClient(clientId))
    throw conflict('already_exists', `client ${clientId} already exists`);
  await ctx.store.createClient(
    {
      client_id: clientId,
      name: input.name,
      token_hash: hashToken(ctx.store.tokenSalt(), token),
      created_at: ctx.now().toISOString(),
    },
    { actor, kind: 'client.created', detail: { client_id: clientId, name: input.name } },
  );
  return { client_id: clientId, name: input.name, token };
}

export function toAuthorization(
  hubId: string,
  a: AuthorizationRecord,
  sys: Pick<SystemRecord, 'name' | 'kind' | 'retired_at'> | null,
): Authorization {
  return {
    authorization_ref: a.authorization_ref,
    hub_id: hubId,
    system_id: a.system_id,
    system_name: sys?.name ?? a.system_id,
    account: a.account,
    on_behalf_of: a.on_behalf_of,
    state: a.state,
    revision: a.revision,
    ...(sys ? { system_kind: sys.kind } : {}),
    system_retired_at: sys?.retired_at ?? null,
  };
}

/** An authorization as the admin sees it: a retired system's too, with `system_retired_at`. */
export async function authorizationView(ctx: HubContext, a: AuthorizationRecord): Promise<Authorization> {
  return toAuthorization(ctx.hubId, a, await ctx.store.getSystem(a.system_id));
}

/**
 * The authorizations granted to a client, as the agent API lists them: only those of systems in
 * service. A retired system's authorizations are history, offered to no agent (its calls stay
 * readable by id); the admin list keeps them (docs/hub-api.md "Retiring a system").
 */
/**
 * The authorizations granted to a client. Those of a retired system are offered to no agent and left
 * out, unless `includeRetired` (GET /agent/v1/authorizations?include=retired: a scope check telling
 * a retired system from an authorization taken away), where they carry `system_retired_at`.
 */
export async function clientAuthorizations(
  ctx: HubContext,
  clientId: string,
  opts: { includeRetired?: boolean } = {},
): Promise<Authorization[]> {
  const granted = await ctx.store.listAuthorizations(clientId);
  const systems = new Map<string, SystemRecord | null>();
  for (const id of new Set(granted.map((a) => a.system_id))) systems.set(id, await ctx.store.getSystem(id));
  return granted
    .filter((a) => opts.includeRetired === true || !systems.get(a.system_id)?.retired_at)
    .map((a) => toAuthorization(ctx.hubId, a, systems.get(a.system_id) ?? null));
}

export async function createAuthorization(
  ctx: HubContext,
  input: { system_id: string; account: string; on_behalf_of: string; authorization_ref?: string },
  actor: string,
): Promise<Authorization> {
  const problem = onBehalfOfProblem(input.on_behalf_of);
  if (problem) throw badRequest(problem);
  const sys = await ctx.store.getSystem(input.system_id);
  if (!sys) throw notFound('system_not_found', `no system ${input.system_id}`);
  refuseIfRetired(sys, 'a new authorization');
  const ref = input.authorization_ref ?? `${input.system_id}:${newId('cli').slice(4, 16)}`;
  if (await ctx.store.getAuthorization(ref))
    throw conflict('already_exists', `authorization ${ref} already exists`);
  const at = ctx.now().toISOString();
  const rec: AuthorizationRecord = {
    authorization_ref: ref,
    system_id: sys.system_id,
    account: input.account,
    on_behalf_of: input.on_behalf_of,
    state: 'active',
    revision: 1,
    created_at: at,
    updated_at: at,
  };
  await liveSystemChange(
    sys.system_id,
    'a new authorization',
    ctx.store.createAuthorization(rec, {
      actor,
      kind: 'authorization.created',
      detail: { authorization_ref: ref, system_id: sys.system_id, account: input.account },
    }),
  );
  return toAuthorization(ctx.hubId, rec, sys);
}

export async function grantAuthorization(
  ctx: HubContext,
  ref: string,
  clientId: string,
  actor: string,
): Promise<Authorization> {
  const a = await ctx.store.getAuthorization(ref);
  if (!a) throw notFound('authorization_not_found', `no authorization ${ref}`);
  if (!(await ctx.store.getClient(clientId))) throw notFound('not_found', `no client ${clientId}`);
  await refuseIfSystemRetired(ctx, a.system_id, `granting authorization ${ref}`);
  await liveSystemChange(
    a.system_id,
    `granting authorization ${ref}`,
    ctx.store.grant(ref, clientId, {
      actor,
      kind: 'authorization.granted',
      detail: { authorization_ref: ref, client_id: clientId },
    }),
  );
  return authorizationView(ctx, a);
}

export async function changeAuthorization(
  ctx: HubContext,
  ref: string,
  patch: { state: Exclude<AuthorizationState, 'active'>; account?: string; on_behalf_of?: string },
  actor: string,
): Promise<Authorization> {
  if (patch.on_behalf_of !== undefined) {
    const problem = onBehalfOfProblem(patch.on_behalf_of);
    if (problem) throw badRequest(problem);
  }
  for (;;) {
    const cur = await ctx.store.getAuthorization(ref);
    if (!cur) throw notFound('authorization_not_found', `no authorization ${ref}`);
    if (cur.state === 'revoked')
      throw conflict('authorization_revoked', `authorization ${ref} is already revoked`);
    const sys = await ctx.store.getSystem(cur.system_id);
    const what = `${patch.state === 'revoked' ? 'revoking' : 'rebinding'} authorization ${ref}`;
    // a revoke only takes access away, so it stays allowed on a retired system's authorization (no
    // need to revive the system, and give the authorization back for a moment, to take it away)
    if (sys && patch.state !== 'revoked') refuseIfRetired(sys, what);
    const next: AuthorizationRecord = {
      ...cur,
      state: patch.state,
      account: patch.account ?? cur.account,
      on_behalf_of: patch.on_behalf_of ?? cur.on_behalf_of,
      revision: cur.revision + 1,
      updated_at: ctx.now().toISOString(),
    };
    const view = toAuthorization(ctx.hubId, next, sys);
    const changed = await liveSystemChange(
      cur.system_id,
      what,
      ctx.store.updateAuthorization({
        next,
        expected_revision: cur.revision,
        audit: {
          actor,
          kind: `authorization.${patch.state}`,
          detail: { authorization_ref: ref, account: patch.account ?? null },
        },
        event: { type: 'authorization.changed', authorization: view },
      }),
    );
    if (!changed) continue; // changed by someone else meanwhile: decide again on the current revision
    for (const clientId of await ctx.store.grantees(ref)) ctx.bus.notify(clientId);
    return view;
  }
}
