/** Approvals (only where the connected credential may approve). */
import { create } from 'zustand';
import type { Receipt } from '../../../src-shared/hub-api.js';
import type { ApprovalView } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';

export interface ApprovalsState {
  canApprove: boolean;
  approvals: ApprovalView[];
  load(): Promise<void>;
  decide(approvalId: string, decision: 'approve' | 'deny'): Promise<void>;
  /** Execution is its own fact: a receipt updates it, an approval decision never does. */
  applyReceipt(r: Receipt): void;
}

export const useApprovals = create<ApprovalsState>((set, get) => ({
  canApprove: false,
  approvals: [],
  async load() {
    const r = await call('listApprovals', {});
    set({ canApprove: r.can_approve, approvals: r.approvals });
  },
  async decide(approvalId, decision) {
    const a = await call('decideApproval', { approval_id: approvalId, decision });
    set({ approvals: get().approvals.map((x) => (x.approval_id === a.approval_id ? a : x)) });
  },
  applyReceipt(r) {
    if (!get().approvals.some((a) => a.invocation_id === r.invocation_id && a.execution_state !== r.state))
      return;
    set({
      approvals: get().approvals.map((a) =>
        a.invocation_id === r.invocation_id ? { ...a, execution_state: r.state } : a,
      ),
    });
  },
}));
