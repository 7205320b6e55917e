/**
 * Whole-scope revalidation: every original member must still be granted, active and at its
 * original revision, its system in service. One revoked, rebound, retired or missing member blocks
 * the complete group (never a surviving subset). A Hub that cannot answer gives `offline`: closed,
 * but it can recover later in the same runtime. Reads GET /agent/v1/authorizations?include=retired
 * only (a retired system's authorization then says so, instead of being missing); never creates a
 * run.
 */
import type { Authorization } from '../../../src-shared/hub-api.js';
import type { RuntimeHubPort } from '../hub-port.js';
import { HUB_FAILURE_CODES, HubClientError } from '../../hub-client/index.js';
import type { ScopeCheck, SessionScope } from '../invocation-ports.js';

export function checkMembers(scope: SessionScope, authorizations: Authorization[]): ScopeCheck {
  const byRef = new Map(authorizations.map((a) => [a.authorization_ref, a]));
  for (const m of [...scope.members].sort((a, b) => a.authorization_ref.localeCompare(b.authorization_ref))) {
    const a = byRef.get(m.authorization_ref);
    if (!a)
      return { state: 'blocked', reason: 'authorization_missing', authorization_ref: m.authorization_ref };
    if (a.state === 'revoked')
      return { state: 'blocked', reason: 'authorization_revoked', authorization_ref: m.authorization_ref };
    if (a.state === 'rebound' || a.revision !== m.authorization_revision)
      return { state: 'blocked', reason: 'authorization_rebound', authorization_ref: m.authorization_ref };
    if (a.system_retired_at)
      return { state: 'blocked', reason: 'system_retired', authorization_ref: m.authorization_ref };
    if (a.hub_id !== scope.hubId || a.system_id !== m.system_id || a.account !== m.account) {
      return { state: 'blocked', reason: 'binding_conflict', authorization_ref: m.authorization_ref };
    }
  }
  return { state: 'ok' };
}

export async function revalidateScopeWith(
  hub: Pick<RuntimeHubPort, 'listAuthorizationsWithRetired'>,
  scope: SessionScope,
  opts: { signal?: AbortSignal } = {},
): Promise<ScopeCheck> {
  if (scope.members.length === 0) return { state: 'ok' };
  let list: Authorization[];
  try {
    list = await hub.listAuthorizationsWithRetired({ signal: opts.signal });
  } catch (err) {
    if (err instanceof HubClientError) {
      return { state: 'offline', reason: HUB_FAILURE_CODES[err.kind] };
    }
    return { state: 'offline', reason: 'hub_unreachable' };
  }
  return checkMembers(scope, list);
}
