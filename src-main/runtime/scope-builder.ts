/**
 * Builds a session's fixed scope from the Hub's authorizations. The fingerprint covers the sorted
 * members (ref, revision, system, account) and the connection key; the connection key names the
 * Hub URL and client id, never the token.
 */
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { Authorization } from '../../src-shared/hub-api.js';
import type { ScopeMember, SessionScope } from './invocation-ports.js';

export interface HubConnectionInfo {
  hubUrl: string;
  hubId: string;
  clientId: string;
  workspaceId: string;
}

export function connectionKeyOf(conn: HubConnectionInfo): string {
  return sha256Hex(canonicalJson({ hub_url: conn.hubUrl.replace(/\/+$/, ''), client_id: conn.clientId }));
}

export function scopeFingerprint(connectionKey: string, members: ScopeMember[]): string {
  const sorted = [...members].sort((a, b) => a.authorization_ref.localeCompare(b.authorization_ref));
  return sha256Hex(canonicalJson({ connection_key: connectionKey, members: sorted }));
}

export class ScopeSelectionError extends Error {
  override name = 'ScopeSelectionError';
  constructor(
    readonly code:
      'authorization_not_found' | 'authorization_not_active' | 'cross_hub_scope' | 'duplicate_authorization',
    message: string,
  ) {
    super(message);
  }
}

export function buildScope(
  sessionId: string,
  conn: HubConnectionInfo,
  selected: string[],
  available: Authorization[],
  taskId: string | null,
): SessionScope {
  if (new Set(selected).size !== selected.length)
    throw new ScopeSelectionError('duplicate_authorization', 'an authorization was selected twice');
  const members: ScopeMember[] = selected.map((ref) => {
    const a = available.find((x) => x.authorization_ref === ref);
    if (!a)
      throw new ScopeSelectionError(
        'authorization_not_found',
        `authorization ${ref} is not granted to this client`,
      );
    if (a.state !== 'active')
      throw new ScopeSelectionError('authorization_not_active', `authorization ${ref} is ${a.state}`);
    if (a.hub_id !== conn.hubId)
      throw new ScopeSelectionError('cross_hub_scope', `authorization ${ref} belongs to another Hub`);
    return {
      authorization_ref: a.authorization_ref,
      authorization_revision: a.revision,
      system_id: a.system_id,
      account: a.account,
    };
  });
  const connectionKey = connectionKeyOf(conn);
  return {
    sessionId,
    hubId: conn.hubId,
    clientId: conn.clientId,
    workspaceId: conn.workspaceId,
    connectionKey,
    members,
    fingerprint: scopeFingerprint(connectionKey, members),
    revision: 1,
    taskId,
  };
}
