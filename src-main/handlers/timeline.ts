/**
 * The task timeline: permits, dispatches and outcomes on a time axis. Built from the Hub's audit
 * (when the credential may read it) or, otherwise, from the receipts seen on the live stream.
 */
import type { AuditEntry, Receipt } from '../../src-shared/hub-api.js';
import { INVOCATION_STATE_LABELS, type InvocationState } from '../../src-shared/states.js';
import type { TimelineEntry } from '../../src-shared/ipc/views.js';

const OUTCOME_STATES = new Set(['succeeded', 'failed', 'unknown', 'unverified']);

const label = (state: string | null): string =>
  state && state in INVOCATION_STATE_LABELS ? INVOCATION_STATE_LABELS[state as InvocationState] : (state ?? '');

export function timelineFromAudit(entries: readonly AuditEntry[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const a of entries) {
    const tool = typeof a.detail.tool === 'string' ? a.detail.tool : null;
    const base = { at: a.at, invocation_id: a.invocation_id, tool, state: a.to_state };
    const k = a.kind;
    if (k.includes('permit')) out.push({ ...base, kind: 'permit', label: 'Permit granted' });
    else if (k === 'invocation.dispatched') out.push({ ...base, kind: 'dispatch', label: 'Request sent' });
    else if (k.startsWith('task.')) out.push({ ...base, kind: 'control', label: k.slice(5).replace(/_/g, ' ') });
    else if (k.startsWith('approval')) out.push({ ...base, kind: 'approval', label: a.to_state ? `Approval ${a.to_state}` : 'Approval' });
    else if (a.to_state === 'not_dispatched') out.push({ ...base, kind: 'refusal', label: `Not dispatched${typeof a.detail.reason_code === 'string' ? ` (${a.detail.reason_code})` : ''}` });
    else if (a.to_state === 'dispatching') out.push({ ...base, kind: 'dispatch', label: 'Running' });
    else if (a.to_state && OUTCOME_STATES.has(a.to_state)) out.push({ ...base, kind: 'outcome', label: label(a.to_state) });
  }
  return out.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
}

export function timelineFromReceipts(receipts: readonly Receipt[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const r of receipts) {
    const base = { invocation_id: r.invocation_id, tool: r.tool };
    if (r.state === 'not_dispatched') {
      out.push({ ...base, at: r.created_at, kind: 'refusal', state: r.state, label: `Not dispatched${r.reason_code ? ` (${r.reason_code})` : ''}` });
      continue;
    }
    if (r.dispatch !== 'none') out.push({ ...base, at: r.created_at, kind: 'dispatch', state: 'dispatching', label: 'Request sent' });
    if (r.approval) out.push({ ...base, at: r.approval.decided_at ?? r.created_at, kind: 'approval', state: r.approval.state, label: `Approval ${r.approval.state}` });
    if (OUTCOME_STATES.has(r.state)) out.push({ ...base, at: r.updated_at, kind: 'outcome', state: r.state, label: label(r.state) });
  }
  return out.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
}
