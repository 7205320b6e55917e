/**
 * Runs belong to one turn: created lazily by the first business call that needs one for an
 * authorization, ended when the turn ends. A later turn never sees an earlier turn's run, so a
 * cached declaration can never reuse an ended run.
 */
import type { RuntimeHubPort } from './hub-port.js';

export interface TurnRuns {
  /** The current turn's run for this authorization, creating it on first use. */
  runFor(authorizationRef: string): Promise<string>;
  /** Ends every run this turn created; later `runFor` calls are refused. Errors are reported, not thrown. */
  endAll(): Promise<{ run_id: string; error: string | null }[]>;
}

export class TurnEndedError extends Error {
  override name = 'TurnEndedError';
}

export function createTurnRuns(
  hub: Pick<RuntimeHubPort, 'createRun' | 'endRun'>,
  sessionId: string,
  turnId: string,
): TurnRuns {
  const runs = new Map<string, Promise<string>>();
  let ended = false;
  return {
    runFor(authorizationRef) {
      if (ended) return Promise.reject(new TurnEndedError('the turn has ended; its runs are closed'));
      let p = runs.get(authorizationRef);
      if (!p) {
        p = hub
          .createRun({ agent_session_id: sessionId, turn_id: turnId, authorization_ref: authorizationRef })
          .then((r) => r.run_id);
        runs.set(authorizationRef, p);
        p.catch(() => runs.delete(authorizationRef));
      }
      return p;
    },
    async endAll() {
      ended = true;
      const results: { run_id: string; error: string | null }[] = [];
      for (const p of runs.values()) {
        let runId: string;
        try {
          runId = await p;
        } catch {
          continue;
        }
        try {
          await hub.endRun(runId);
          results.push({ run_id: runId, error: null });
        } catch (err) {
          results.push({ run_id: runId, error: err instanceof Error ? err.message : String(err) });
        }
      }
      return results;
    },
  };
}
