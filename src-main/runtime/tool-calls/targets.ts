/** A call's target identity (always from its declaration) and the session handle the invocation runtime takes. */
import type { Declaration } from '../../../src-shared/hub-api.js';
import type { ToolTarget } from '../desk-runtime.js';
import type { SessionHandle } from '../invocation-ports.js';
import type { LiveSession } from '../live-session.js';

export function targetOf(d: Declaration): ToolTarget {
  return {
    hub_id: d.hub_id,
    authorization_ref: d.authorization_ref,
    system_id: d.system_id,
    system_name: d.system_name,
    account: d.account,
    tool: d.tool,
    declaration_revision: d.declaration_revision,
  };
}

export function handleOf(session: LiveSession, turnId: string | null): SessionHandle {
  return { sessionId: session.sessionId, scope: session.scope, turnId };
}
