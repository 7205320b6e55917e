/**
 * Feeds the Hub's `authorization.changed` events to the runtime (docs/runtime.md, revocation): a
 * revoke, a rebind or a retire blocks the living conversations holding that authorization at once,
 * not at their next call, and a revive checks a conversation its retire blocked again. The runtime
 * opens no event stream of its own; the app's Hub gateway owns the one stream.
 */
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import type { HubGateway } from './hub-gateway.js';

export function feedAuthorizationChanges(deps: {
  hub: Pick<HubGateway, 'subscribe'>;
  runtime: Pick<DeskRuntime, 'authorizationChanged'>;
}): () => void {
  return deps.hub.subscribe((e) => {
    // The runtime never rejects here: its scope checks code every failure as the session's state.
    if (e.type === 'authorization') void deps.runtime.authorizationChanged(e.authorization);
  });
}
