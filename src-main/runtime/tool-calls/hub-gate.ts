/**
 * The last check before a tool call goes to the Hub: an `offline` / `not_opened` scope is
 * re-checked here, lazily (invariant 8, docs/design.md#invariants), at most once per turn and
 * through the shared per-session check; a cancelled turn or a scope that is not open refuses the
 * call with nothing sent.
 */
import { needsScopeCheck } from '../../../src-shared/states.js';
import type { LiveSession, TurnContext } from '../live-session.js';
import type { ScopeAvailability } from '../sessions/scope-availability.js';
import { refuse, turnCancelled, type Outcome } from './outcome.js';

export interface HubGate {
  /** Null when the call may go to the Hub, otherwise the refusal to return. */
  pass(session: LiveSession, turn: TurnContext): Promise<Outcome | null>;
}

export function scopeUnavailable(session: LiveSession): Outcome {
  return refuse(
    'blocked',
    session.availabilityReason ?? 'scope_unavailable',
    `The session's scope is ${session.availability}; nothing was sent.`,
    'wait',
    'refused',
    session.availabilityRef ?? undefined,
  );
}

export function createHubGate(scope: Pick<ScopeAvailability, 'ensure'>): HubGate {
  /** The scope check of each turn that needed one (a turn asks the Hub about its scope at most once). */
  const turnChecks = new WeakMap<TurnContext, Promise<void>>();
  return {
    async pass(session, turn) {
      if (needsScopeCheck(session.availability)) {
        let check = turnChecks.get(turn);
        if (!check) {
          check = scope.ensure(session).catch(() => undefined);
          turnChecks.set(turn, check);
        }
        await Promise.race([check, turn.cancelledSignal]);
      }
      if (turn.cancelled) return turnCancelled();
      return session.availability === 'open' ? null : scopeUnavailable(session);
    },
  };
}
