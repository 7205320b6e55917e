/**
 * The systems the writer thread found in service when a new call checked its system
 * (InvocationChange.live_system; sql/ops/invocation-change.ts KeptLiveSystems), kept so that the
 * next new calls of a system do not read its row again. A system leaves service only by a write
 * that is not an invocation change (the retire: sql/ops/systems.ts retireSystem), so a kept one is
 * served only while it is certainly still in service:
 *   - the group committer forgets them all after every write that is not an invocation change, when
 *     a transaction or a savepoint is rolled back, and when another connection committed since its
 *     last transaction (`PRAGMA data_version`: the operator CLI's retire);
 *   - past KEPT_LIVE_SYSTEMS the one added longest ago goes first.
 */
import type { KeptLiveSystems } from '../../sql/ops/invocation-change.js';

/** The most systems kept (a Hub's systems, with room to spare). */
export const KEPT_LIVE_SYSTEMS = 1024;

export interface LiveSystems extends KeptLiveSystems {
  /** Forgets every kept system (a write that may retire one, a rollback, another connection's commit). */
  forget(): void;
  readonly size: number;
}

export function createLiveSystems(limit = KEPT_LIVE_SYSTEMS): LiveSystems {
  const live = new Set<string>();
  return {
    has: (systemId) => live.has(systemId),
    add(systemId) {
      if (!live.has(systemId) && live.size >= limit) live.delete(live.values().next().value as string);
      live.add(systemId);
    },
    forget() {
      live.clear();
    },
    get size() {
      return live.size;
    },
  };
}
