/**
 * The task timeline: permits, dispatches and outcomes on a time axis. Built from the Hub's audit
 * (when the credential may read it) or, otherwise, from the receipts seen on the live stream.
 */
import type { AuditEntry, Receipt, TaskView } from '../../src-shared/hub-api.js';
import {
  INVOCATION_STATE_LABELS,
  isOutcomeState,
  type InvocationState,
  type TaskState,
} from '../../src-shared/states.js';
import type { TimelineEntry } from '../../src-shared/ipc/views.js';

const label = (state: string | null): string =>
  state && state in INVOCATION_STATE_LABELS
    ? INVOCATION_STATE_LABELS[state as InvocationState]
    : (state ?? '');

export function timelineFromAudit(entries: readonly AuditEntry[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  const tools = new Map<string, string>();
  const refs = new Map<string, string>();
  // Dispatch steps whose request never left the Hub (the next move of that call is dispatching ->
  // not_dispatched, or back to approved for a resumed call; NOT_SENT_REASON_CODES): the permit was
  // given back and nothing was sent, so no "Request sent" step is drawn for them.
  const neverSent = new Set<number>();
  const lastDispatch = new Map<string, number>();
  for (const a of entries) {
    if (typeof a.detail.tool === 'string' && a.invocation_id) tools.set(a.invocation_id, a.detail.tool);
    if (typeof a.detail.authorization_ref === 'string' && a.invocation_id)
      refs.set(a.invocation_id, a.detail.authorization_ref);
    if (!a.invocation_id) continue;
    if (a.to_state === 'dispatching') lastDispatch.set(a.invocation_id, a.seq);
    const step = lastDispatch.get(a.invocation_id);
    if (step !== undefined && a.from_state === 'dispatching' && a.to_state !== 'dispatching') {
      if (a.to_state === 'not_dispatched' || a.to_state === 'approved') neverSent.add(step);
      lastDispatch.delete(a.invocation_id);
    }
  }
  for (const a of entries) {
    const tool = a.invocation_id ? (tools.get(a.invocation_id) ?? null) : null;
    const k = a.kind;
    const reasonCode = typeof a.detail.reason_code === 'string' ? a.detail.reason_code : null;
    const base = {
      at: a.at,
      invocation_id: a.invocation_id,
      tool,
      state: a.to_state,
      task_action: null,
      reason_code: null,
      authorization_ref: a.invocation_id ? (refs.get(a.invocation_id) ?? null) : null,
    };
    const reason = reasonCode ? ` (${reasonCode})` : '';
    if (k.startsWith('task.')) {
      out.push({
        ...base,
        kind: 'control',
        task_action: k.slice(5),
        label: `Task ${k.slice(5).replace(/_/g, ' ')}`,
      });
    } else if (k === 'approval.decided') {
      out.push({ ...base, kind: 'approval', label: `Approval ${a.to_state ?? 'decided'}` });
    } else if (
      a.to_state === 'not_dispatched' ||
      (a.from_state === 'dispatching' && a.to_state === 'approved')
    ) {
      out.push({ ...base, kind: 'refusal', reason_code: reasonCode, label: `Not dispatched${reason}` });
    } else if ((k === 'invocation.created' || k === 'invocation.resumed') && a.to_state === 'dispatching') {
      // Granting the permit and sending happen in one step in the Hub's dispatch path.
      if (a.task_id) out.push({ ...base, kind: 'permit', label: 'Permit granted' });
      if (!neverSent.has(a.seq)) out.push({ ...base, kind: 'dispatch', label: 'Request sent' });
    } else if (k === 'invocation.created' && a.to_state === 'awaiting_approval') {
      out.push({ ...base, kind: 'approval', label: 'Awaiting approval' });
    } else if (a.to_state && isOutcomeState(a.to_state)) {
      out.push({ ...base, kind: 'outcome', label: label(a.to_state) });
    }
  }
  return out.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
}

/**
 * Without audit access (a client credential on a remote Hub): receipts seen on the live stream plus
 * the task view. A task-bound call that was sent had its permit granted in the same step as the
 * dispatch, so it is drawn there; task controls come from the task view's own timestamps.
 */
export function timelineFromReceipts(receipts: readonly Receipt[], task?: TaskView): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  if (task) {
    const control = (at: string | null, what: 'created' | Exclude<TaskState, 'active'>) => {
      if (at)
        out.push({
          at,
          invocation_id: null,
          tool: null,
          state: null,
          task_action: what,
          reason_code: null,
          kind: 'control',
          label: `Task ${what}`,
        });
    };
    control(task.created_at, 'created');
    control(task.paused_at, 'paused');
    control(task.cancelled_at, 'cancelled');
  }
  for (const r of receipts) {
    const base = {
      invocation_id: r.invocation_id,
      tool: r.tool,
      task_action: null,
      reason_code: null,
      authorization_ref: r.authorization_ref,
    };
    if (r.state === 'not_dispatched') {
      out.push({
        ...base,
        at: r.created_at,
        kind: 'refusal',
        state: r.state,
        reason_code: r.reason_code ?? null,
        label: `Not dispatched${r.reason_code ? ` (${r.reason_code})` : ''}`,
      });
      continue;
    }
    if (r.dispatch !== 'none') {
      if (r.task_id)
        out.push({
          ...base,
          at: r.created_at,
          kind: 'permit',
          state: 'dispatching',
          label: 'Permit granted',
        });
      out.push({ ...base, at: r.created_at, kind: 'dispatch', state: 'dispatching', label: 'Request sent' });
    }
    if (r.approval)
      out.push({
        ...base,
        at: r.approval.decided_at ?? r.created_at,
        kind: 'approval',
        state: r.approval.state,
        label: `Approval ${r.approval.state}`,
      });
    if (isOutcomeState(r.state))
      out.push({ ...base, at: r.updated_at, kind: 'outcome', state: r.state, label: label(r.state) });
  }
  return out.sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : 0));
}
