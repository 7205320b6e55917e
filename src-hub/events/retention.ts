/**
 * Runs the events table's retention (by age and by count per client, see the store's
 * pruneEvents) once shortly after start and then every `eventPruneIntervalMs`. Receipts, the
 * audit and every other record are never pruned: only the SSE feed, whose readers are told when
 * they resume below a client's horizon (events-route.ts). A failed run is logged and retried at
 * the next interval; it never stops the Hub.
 */
import type { HubContext } from '../context.js';

export interface EventRetention {
  /** One pruning pass now (also what the timer runs). */
  runOnce(): Promise<{ deleted: number; clients: number } | null>;
  stop(): void;
}

export function startEventRetention(ctx: HubContext): EventRetention {
  const { store, settings, logger } = ctx;
  let stopped = false;
  const runOnce = async () => {
    if (stopped) return null;
    try {
      const before = new Date(ctx.now().getTime() - settings.eventRetentionMs).toISOString();
      const result = await store.pruneEvents({ before, keepPerClient: settings.eventRetentionPerClient });
      if (result.deleted > 0) logger.info(result, 'pruned old events from the SSE feed');
      return result;
    } catch (err) {
      logger.warn({ err: String(err) }, 'event pruning failed; retried at the next interval');
      return null;
    }
  };
  const first = setTimeout(() => void runOnce(), 0);
  const timer = setInterval(() => void runOnce(), settings.eventPruneIntervalMs);
  first.unref();
  timer.unref();
  return {
    runOnce,
    stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
