/**
 * Tells every client granted one of a system's authorizations that the system left or came back
 * into service: an `authorization.changed` event per grantee and authorization, whose view carries
 * the system's `system_retired_at` (a time after a retire, null after a revive). A desk blocks the
 * conversations using a retired system at once, and checks a blocked conversation's scope again
 * when its system is revived, instead of waiting for the operator. A notice sent after the change
 * committed, not its record: a client that misses it (a crash in between) learns the change from
 * its next call or scope check.
 */
import type { HubContext } from '../context.js';
import { toAuthorization } from '../admin/service.js';
import type { SystemRecord } from '../store/types.js';

export async function notifyGrantees(ctx: HubContext, sys: SystemRecord): Promise<void> {
  const at = ctx.now().toISOString();
  for (const a of await ctx.store.listAuthorizations()) {
    if (a.system_id !== sys.system_id) continue;
    const event = { type: 'authorization.changed', authorization: toAuthorization(ctx.hubId, a, sys) };
    for (const clientId of await ctx.store.grantees(a.authorization_ref)) {
      await ctx.store.appendEvent(clientId, 'authorization.changed', event, at);
      ctx.bus.notify(clientId);
    }
  }
}
