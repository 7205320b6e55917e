/**
 * Approvals, for a credential that may decide them: each with its call's execution state, its
 * business system's name and the conversation it came from.
 */
import type { Approval } from '../../src-shared/hub-api.js';
import { AppError, requireConnectedHub } from './errors.js';
import type { HubGateway } from './hub-gateway.js';
import type { HandlerTable } from './types.js';

export function approvalHandlers(hub: HubGateway): Pick<HandlerTable, 'listApprovals' | 'decideApproval'> {
  const needHub = () => requireConnectedHub(hub);
  /**
   * Authorization ref -> the business system's name, for approvals from an older Hub (without
   * `system_name`); a current Hub names the system itself, also once it is retired.
   */
  const systemNames = async (approvals: readonly Approval[]): Promise<Map<string, string>> => {
    if (approvals.every((a) => typeof a.system_name === 'string')) return new Map();
    const auths = await hub.listAuthorizations().catch(() => []);
    return new Map(auths.map((a) => [a.authorization_ref, a.system_name]));
  };
  const withContext = async (a: Approval, systems: Map<string, string>) => ({
    ...a,
    execution_state: await hub.executionState(a.invocation_id),
    system_name: a.system_name ?? systems.get(a.authorization_ref) ?? null,
    session_id: hub.lastReceipt(a.invocation_id)?.agent_session_id ?? null,
  });
  return {
    async listApprovals() {
      if (!hub.canApprove()) return { can_approve: false, approvals: [] };
      needHub();
      const approvals = await hub.listApprovals();
      const systems = await systemNames(approvals);
      return {
        can_approve: true,
        approvals: await Promise.all(approvals.map((a) => withContext(a, systems))),
      };
    },
    async decideApproval(input) {
      if (!hub.canApprove())
        throw new AppError('not_permitted', 'The connected credential may not decide approvals.');
      needHub();
      const a = await hub.decideApproval(input.approval_id, input.decision);
      return withContext(a, await systemNames([a]));
    },
  };
}
