/**
 * Settings' Test connection for a remote Hub, with the form's values (nothing saved): does the
 * address answer as a Hub (GET /health), and does it accept the client token (the authorizations
 * it grants)? Each outcome is a code the UI words; nothing else is asked of the Hub.
 */
import type { HubTestView } from '../../src-shared/ipc/views.js';
import { createHubClient } from './agent-client.js';
import { isHubClientError } from './errors.js';

export async function testHubConnection(input: {
  url: string;
  token: string | null;
  tokenUsed: HubTestView['token_used'];
  timeoutMs?: number;
}): Promise<HubTestView> {
  const client = createHubClient({
    baseUrl: input.url,
    token: input.token ?? '',
    timeoutMs: input.timeoutMs ?? 5000,
  });
  const base = { token_used: input.tokenUsed, hub_id: null, authorizations: null } as const;
  let hubId: string | null = null;
  try {
    const health = await client.health();
    if (typeof health.hub_id !== 'string') return { ...base, state: 'not_a_hub' };
    hubId = health.hub_id;
  } catch (err) {
    if (isHubClientError(err) && (err.kind === 'network' || err.kind === 'timeout'))
      return { ...base, state: 'unreachable' };
    return { ...base, state: 'not_a_hub' };
  }
  if (!input.token) return { ...base, hub_id: hubId, state: 'no_token' };
  try {
    const auths = await client.listAuthorizations();
    return { ...base, hub_id: hubId, authorizations: auths.length, state: 'ok' };
  } catch (err) {
    if (isHubClientError(err) && err.kind === 'http' && (err.status === 401 || err.status === 403))
      return { ...base, hub_id: hubId, state: 'unauthorized' };
    if (isHubClientError(err) && (err.kind === 'network' || err.kind === 'timeout'))
      return { ...base, hub_id: hubId, state: 'unreachable' };
    return { ...base, hub_id: hubId, state: 'failed' };
  }
}
