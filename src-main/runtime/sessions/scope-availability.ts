/**
 * Whether each living session's whole scope is usable (`open`, `offline`, `blocked`,
 * `not_opened`), and the lazy scope check (invariant 8, docs/design.md#invariants): a session whose
 * scope was never checked in this runtime (`not_opened`) or whose last check found the Hub
 * unreachable (`offline`) is re-checked only when something actually needs the Hub (a tool call
 * about to go there, an explicit open, an operator search, inspect/resume). Ordinary chat never
 * calls this. One blocked member blocks the whole group, and a block learned while a check was in
 * flight is newer than that check's answer.
 */
import type { Authorization } from '../../../src-shared/hub-api.js';
import { needsScopeCheck } from '../../../src-shared/states.js';
import type { InvocationRuntime, ScopeBlock, ScopeCheck } from '../invocation-ports.js';
import type { LiveSession } from '../live-session.js';

export interface ScopeAvailability {
  /** Records a check's answer on the session (a block also empties its declaration cache). */
  apply(s: LiveSession, check: ScopeCheck): void;
  /** A member was found revoked/rebound (a refused run or call): the whole scope is blocked. */
  block(s: LiveSession, block: ScopeBlock): void;
  /**
   * Re-checks an `offline` / `not_opened` scope against the Hub; resolves without a request for any
   * other state. Concurrent callers share one check. Never rejects for an unreachable Hub (the
   * session just stays offline).
   */
  ensure(s: LiveSession): Promise<void>;
  /** An explicit whole-scope check now (sharing one already in flight). */
  recheck(s: LiveSession): Promise<void>;
  /**
   * A Hub `authorization.changed` event: blocks every living session that holds a changed member,
   * and checks again a session blocked by that member's system being retired once it is back.
   */
  authorizationChanged(sessions: Iterable<LiveSession>, a: Authorization): Promise<void>;
}

export interface ScopeAvailabilityDeps {
  invocations: Pick<InvocationRuntime, 'revalidateScope'>;
  /** Called after a session's availability changed. */
  changed(s: LiveSession): void;
}

export function createScopeAvailability(deps: ScopeAvailabilityDeps): ScopeAvailability {
  /** How often each session was blocked, so an older check's answer cannot undo a newer block. */
  const blocks = new WeakMap<LiveSession, number>();
  /** The one whole-scope check in flight per session. */
  const checks = new WeakMap<LiveSession, Promise<void>>();

  function apply(s: LiveSession, check: ScopeCheck): void {
    if (check.state === 'blocked') blocks.set(s, (blocks.get(s) ?? 0) + 1);
    s.availabilityRef = null;
    if (check.state === 'ok') {
      s.availability = 'open';
      s.availabilityReason = null;
    } else if (check.state === 'offline') {
      s.availability = 'offline';
      s.availabilityReason = check.reason;
    } else {
      s.availability = 'blocked';
      s.availabilityReason = check.reason;
      s.availabilityRef = check.authorization_ref;
      // One blocked member blocks the whole group: nothing of this scope stays loaded.
      s.cache.clear();
    }
    deps.changed(s);
  }

  async function checkNow(s: LiveSession): Promise<void> {
    if (s.scope.members.length === 0) {
      s.availability = 'open';
      s.availabilityReason = null;
      s.availabilityRef = null;
      return;
    }
    const blocksBefore = blocks.get(s) ?? 0;
    let check: ScopeCheck;
    try {
      check = await deps.invocations.revalidateScope(s.scope);
    } catch {
      // revalidateScope maps every Hub failure to a coded reason; anything else thrown is coded here
      // (the reason becomes a refusal code, so it is never free text).
      check = { state: 'offline', reason: 'scope_check_failed' };
    }
    // A revocation/rebind learned while this check was in flight (a Hub event, a refused run) is
    // newer than the check's answer: it stays blocked until the next explicit check.
    if (check.state !== 'blocked' && (blocks.get(s) ?? 0) !== blocksBefore) return;
    apply(s, check);
  }

  function recheck(s: LiveSession): Promise<void> {
    const inFlight = checks.get(s);
    if (inFlight) return inFlight;
    const p = checkNow(s).finally(() => {
      checks.delete(s);
      s.background.delete(p);
    });
    checks.set(s, p);
    s.background.add(p); // close() waits for it
    return p;
  }

  return {
    apply,
    block: (s, block) => apply(s, { state: 'blocked', ...block }),
    ensure(s) {
      if (!needsScopeCheck(s.availability)) return checks.get(s) ?? Promise.resolve();
      return recheck(s);
    },
    recheck,
    async authorizationChanged(sessions, a) {
      const rechecks: Array<Promise<void>> = [];
      for (const s of sessions) {
        const m = s.scope.members.find((x) => x.authorization_ref === a.authorization_ref);
        if (!m || a.hub_id !== s.scope.hubId) continue;
        if (a.state === 'revoked')
          apply(s, {
            state: 'blocked',
            reason: 'authorization_revoked',
            authorization_ref: a.authorization_ref,
          });
        else if (a.state === 'rebound' || a.revision !== m.authorization_revision)
          apply(s, {
            state: 'blocked',
            reason: 'authorization_rebound',
            authorization_ref: a.authorization_ref,
          });
        else if (a.system_retired_at)
          apply(s, { state: 'blocked', reason: 'system_retired', authorization_ref: a.authorization_ref });
        else if (
          s.availability === 'blocked' &&
          s.availabilityRef === a.authorization_ref &&
          s.availabilityReason === 'system_retired'
        )
          // the member's system is in service again (revived): the whole scope is checked again
          // rather than opened on the notice's word, as any other member may have changed meanwhile
          rechecks.push(recheck(s));
      }
      await Promise.all(rechecks);
    },
  };
}
