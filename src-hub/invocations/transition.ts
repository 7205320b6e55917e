/**
 * transitionInvocation: the single place where invocation state moves are checked against the
 * shared transition table (src-shared/states.ts). It hands the store one atomic change (state
 * compare-and-set, optional permit, approval rows, audit entry, durable event) and then wakes the
 * client's event streams.
 */
import { canTransitionInvocation, type InvocationState } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import type { InvocationChange, InvocationChangeResult } from '../store/types.js';
import { taskWindowMs, toTaskView } from '../tasks/view.js';
import { toReceipt } from './receipt.js';

export class IllegalTransitionError extends Error {
  constructor(from: string, to: string) {
    super(`invocation transition ${from} -> ${to} is not allowed`);
  }
}

export type TransitionRequest = Omit<InvocationChange, 'render' | 'at'> & { at?: string };

export async function transitionInvocation(ctx: HubContext, req: TransitionRequest): Promise<InvocationChangeResult> {
  // from === to is an annotation (new evidence, a refusal reason) that moves no state.
  const targets: InvocationState[] = req.from === req.to ? [] : [req.to];
  if (req.permit?.refused_to) targets.push(req.permit.refused_to);
  for (const to of targets) {
    if (!canTransitionInvocation(req.from, to)) throw new IllegalTransitionError(req.from, to);
  }
  const change: InvocationChange = {
    ...req,
    at: req.at ?? ctx.now().toISOString(),
    render: (record, approval) => ({ type: 'invocation.changed', receipt: toReceipt(record, approval) }),
    render_task: {
      window_ms: taskWindowMs,
      render: (task, usage, nowMs) => ({ type: 'task.changed', task: toTaskView(task, usage, nowMs) }),
    },
  };
  const result = await ctx.store.applyInvocationChange(change);
  if (result.kind !== 'stale') ctx.bus.notify(result.record.client_id);
  return result;
}
