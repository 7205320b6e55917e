/** Approvals (only where the connected credential may approve). */
import { create } from 'zustand';
import type { Approval } from '../../../src-shared/hub-api.js';
import { call } from '../api-client.js';

export interface ApprovalsState {
  canApprove: boolean;
  approvals: Approval[];
  load(): Promise<void>;
  decide(approvalId: string, decision: 'approve' | 'deny'): Promise<void>;
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
}));
