/**
 * A retired system's declarations, authorizations and grants are its history, frozen until the
 * system is registered again (docs/hub-api.md "Retiring a system"): every admin change of them is
 * refused with 409 `system_retired` and stores nothing. The services check the system first (a
 * clear answer before any other work); the store checks it again inside the change's transaction
 * (store/sql/ops/systems.ts requireLiveSystem), so a change racing a retire is refused too.
 */
import type { HubContext } from '../context.js';
import { conflict, type HubError } from '../errors.js';
import { isSystemRetiredError } from '../store/errors.js';
import type { SystemRecord } from '../store/types.js';

/** 409 `system_retired` for an admin change of a retired system (`what`: the change refused). */
export const systemRetiredChange = (systemId: string, what: string): HubError =>
  conflict(
    'system_retired',
    `system ${systemId} is retired: ${what} is refused (nothing was stored); register it again to change it`,
  );

/** Throws 409 `system_retired` when the system is retired. */
export function refuseIfRetired(sys: Pick<SystemRecord, 'system_id' | 'retired_at'>, what: string): void {
  if (sys.retired_at !== null) throw systemRetiredChange(sys.system_id, what);
}

/** Throws 409 `system_retired` when the system exists and is retired. */
export async function refuseIfSystemRetired(ctx: HubContext, systemId: string, what: string): Promise<void> {
  const sys = await ctx.store.getSystem(systemId);
  if (sys) refuseIfRetired(sys, what);
}

/** The store's change of a system, its in-transaction refusal (the system was retired meanwhile) as 409 `system_retired`. */
export async function liveSystemChange<T>(systemId: string, what: string, change: Promise<T>): Promise<T> {
  try {
    return await change;
  } catch (err) {
    if (isSystemRetiredError(err)) throw systemRetiredChange(systemId, what);
    throw err;
  }
}
