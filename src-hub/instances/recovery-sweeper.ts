/**
 * On a store shared by several Hub instances, each instance looks every third of a lease for
 * `dispatching` calls whose owner's lease expired (a sibling was SIGKILLed or lost its database)
 * and recovers them as `unknown` (invocations/recovery.ts). A live sibling's call is never touched.
 */
import type { HubContext } from '../context.js';
import { recoverOrphaned } from '../invocations/recovery.js';

export interface RecoverySweeper {
  /** One pass now (also what the timer runs); answers how many calls it recovered. */
  runOnce(): Promise<number>;
  stop(): void;
}

export function startRecoverySweeper(ctx: HubContext): RecoverySweeper {
  let running: Promise<number> | null = null;
  let stopped = false;
  const runOnce = (): Promise<number> => {
    if (stopped) return Promise.resolve(0);
    running ??= recoverOrphaned(ctx, 'lease')
      .then((n) => {
        if (n > 0)
          ctx.logger.warn({ recovered: n }, 'calls of a stopped Hub instance are now unknown (not re-sent)');
        return n;
      })
      .catch((err: unknown) => {
        ctx.logger.warn({ err: String(err) }, 'recovery sweep failed; retried at the next interval');
        return 0;
      })
      .finally(() => (running = null));
    return running;
  };
  const timer = setInterval(() => void runOnce(), Math.max(50, Math.floor(ctx.settings.leaseMs / 3)));
  timer.unref();
  return {
    runOnce,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
