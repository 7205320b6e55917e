/**
 * transitionInvocation: the single place where invocation state moves are checked against the
 * shared transition table (src-shared/states.ts). It hands the store one atomic change (state
 * compare-and-set, the session's task enrollment, optional task permit, the operation's declared
 * rate limit, approval rows, audit entry, durable event) and then wakes the client's event streams.
 */
import { canTransitionInvocation, type InvocationState } from '../../src-shared/states.js';
import type { HubContext } from '../context.js';
import type { InvocationChange, InvocationChangeResult } from '../store/types.js';

/** A process without an instance lease (the operator CLI) tried to dispatch. */
export class NoInstanceLeaseError extends Error {
  constructor() {
    super('this process holds no instance lease, so it cannot dispatch');
  }
}

export class IllegalTransitionError extends Error {
  constructor(from: string, to: string) {
    super(`invocation transition ${from} -> ${to} is not allowed`);
  }
}

export type TransitionRequest = Omit<InvocationChange, 'at' | 'enrollment' | 'operation_rate'> & {
  at?: string;
};

export async function transitionInvocation(
  ctx: HubContext,
  req: TransitionRequest,
): Promise<InvocationChangeResult> {
  // from === to is an annotation (new evidence, a refusal reason) that moves no state.
  const at = req.at ?? ctx.now().toISOString();
  // Every creation and every move to `dispatching` passes the session's task enrollment; every
  // move to `dispatching` also passes the operation's declared rate limit. Added here, not by the
  // callers, so no dispatch path can leave them out. A refusal on creation is `not_dispatched`; a
  // refused resume keeps the call where it is (an approved call stays approved).
  // (an annotation of a dispatching call — an MCP task id arriving — is not a move and passes no gate)
  const entering = req.to === 'dispatching' && req.from !== 'dispatching';
  const gated = req.from === 'new' || entering;
  const refusedTo: InvocationState | null = req.from === 'new' ? 'not_dispatched' : null;
  const gates: Pick<InvocationChange, 'enrollment' | 'operation_rate'> = {};
  if (gated) gates.enrollment = { refused_to: refusedTo };
  if (entering) gates.operation_rate = { now_ms: Date.parse(at), refused_to: refusedTo };
  const targets: InvocationState[] = req.from === req.to ? [] : [req.to];
  for (const r of [req.permit?.refused_to, gates.enrollment?.refused_to, gates.operation_rate?.refused_to]) {
    if (r) targets.push(r);
  }
  for (const to of targets) {
    if (!canTransitionInvocation(req.from, to)) throw new IllegalTransitionError(req.from, to);
  }
  // Object.assign, then plain assignments: on this V8 (Node 20) an object literal that spreads and
  // then adds keys (`{ ...req, at }`) costs 1-2 µs each (its map is made anew every time), the
  // same copy this way about 0.2 µs. Same keys, in the same order.
  const change = Object.assign({}, req) as InvocationChange;
  if (gates.enrollment) change.enrollment = gates.enrollment;
  if (gates.operation_rate) change.operation_rate = gates.operation_rate;
  change.at = at;
  if (req.to === 'dispatching' && req.from !== req.to) {
    // The dispatching call is owned by this instance's lease: no sibling may mark it while it lives.
    if (!ctx.instance) throw new NoInstanceLeaseError();
    const patch = Object.assign({}, req.patch);
    patch.owner_instance = ctx.instance.id;
    patch.owner_incarnation = ctx.instance.incarnation;
    change.patch = patch;
  }
  const result = await ctx.store.applyInvocationChange(change);
  if (result.kind !== 'stale') ctx.bus.notify(result.record.client_id);
  return result;
}
