/**
 * Approvals as the admin API returns them: each with its business system's name, read from the
 * Hub's own records so that it stays there once the system is retired (the agent list, where the
 * desk would otherwise look it up, no longer carries a retired system).
 */
import type { Approval } from '../../src-shared/hub-api.js';
import type { ApprovalRecord, HubStore } from '../store/types.js';

type NameReader = Pick<HubStore, 'getAuthorization' | 'getSystem'>;

function toApproval(a: ApprovalRecord, systemName: string | null): Approval {
  return {
    approval_id: a.approval_id,
    invocation_id: a.invocation_id,
    client_id: a.client_id,
    authorization_ref: a.authorization_ref,
    tool: a.tool,
    parameter_digest: a.parameter_digest,
    arguments_preview: a.arguments_preview,
    prompt: a.prompt,
    state: a.state,
    decision_id: a.decision_id,
    decided_by: a.decided_by,
    created_at: a.created_at,
    decided_at: a.decided_at,
    system_name: systemName,
  };
}

async function systemNameOf(store: NameReader, ref: string): Promise<string | null> {
  const auth = await store.getAuthorization(ref);
  if (!auth) return null;
  return (await store.getSystem(auth.system_id))?.name ?? null;
}

/** The approvals' views; each authorization's system is read once however many approvals name it. */
export async function approvalViews(
  store: NameReader,
  records: readonly ApprovalRecord[],
): Promise<Approval[]> {
  const names = new Map<string, Promise<string | null>>();
  const nameOf = (ref: string) => {
    let name = names.get(ref);
    if (!name) names.set(ref, (name = systemNameOf(store, ref)));
    return name;
  };
  return Promise.all(records.map(async (a) => toApproval(a, await nameOf(a.authorization_ref))));
}

export async function approvalView(store: NameReader, record: ApprovalRecord): Promise<Approval> {
  return toApproval(record, await systemNameOf(store, record.authorization_ref));
}
