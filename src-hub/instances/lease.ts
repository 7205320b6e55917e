/**
 * This Hub process as one instance of the store: it registers with a lease (on the database's
 * clock) and renews it every third of `leaseMs`, so siblings know its `dispatching` calls are
 * still being sent. A renewal that finds this incarnation replaced (another process started with
 * the same instance id) or stopped calls `onFenced`: this process must stop dispatching. A failed
 * renewal (store unavailable) is logged and retried; if the lease expires meanwhile, siblings
 * recover this instance's calls as `unknown`, and a late answer is recorded on them as evidence.
 */
import { hostname } from 'node:os';
import type { HubContext, HubInstance } from '../context.js';

export async function registerInstance(ctx: HubContext, instanceId: string): Promise<HubInstance> {
  const rec = await ctx.store.registerInstance({
    instance_id: instanceId,
    host: hostname(),
    pid: process.pid,
    started_at: ctx.now().toISOString(),
    lease_ms: ctx.settings.leaseMs,
  });
  // One serving Hub per SQLite data directory (its lock file): every earlier instance is gone.
  if (!ctx.store.shared) await ctx.store.expireOtherInstances(rec.instance_id);
  return { id: rec.instance_id, incarnation: rec.incarnation };
}

export interface LeaseKeeper {
  stop(): void;
}

export function keepLease(ctx: HubContext, instance: HubInstance, onFenced: () => void): LeaseKeeper {
  let renewing = false;
  let stopped = false;
  const renew = async () => {
    if (renewing || stopped) return;
    renewing = true;
    try {
      const held = await ctx.store.renewInstanceLease(
        instance.id,
        instance.incarnation,
        ctx.settings.leaseMs,
      );
      if (!held && !stopped) {
        ctx.logger.error(
          { instance_id: instance.id, incarnation: instance.incarnation },
          'another Hub process took over this instance id (or it was stopped): this one stops dispatching',
        );
        stopped = true;
        onFenced();
      }
    } catch (err) {
      ctx.logger.warn({ err: String(err) }, 'lease renewal failed; retrying');
    } finally {
      renewing = false;
    }
  };
  const timer = setInterval(() => void renew(), Math.max(50, Math.floor(ctx.settings.leaseMs / 3)));
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
