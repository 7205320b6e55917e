/**
 * Demo business systems: two shops (A and B, both with a product 42) and an inventory system,
 * each a real signed Fastify server on 127.0.0.1 with idempotency, a write ledger, a request log,
 * the operations look-up and fault injection. Their business data is kept in memory, or with
 * `dataDir` in one SQLite file per system there. See docs/business-systems.md.
 */
import { randomBytes } from 'node:crypto';
import { demoSystem } from './config.js';
import { startInventory } from './inventory/index.js';
import { startShop } from './shop/index.js';
import { DemoDataError, DemoDataWriteError } from './core/data-errors.js';
import type { DemoDataReset, DemoDataStatus, DemoSystemHandle } from './types.js';

export { startShop, type StartShopOptions } from './shop/index.js';
export { startInventory, type StartInventoryOptions } from './inventory/index.js';
export {
  DEMO_CONFIG,
  DEMO_SPEC_PATH,
  demoSystem,
  type DemoDescription,
  type DemoSystemDescription,
} from './config.js';
export { SPEC_PATH, LOOKUP_PREFIX, BODY_LIMIT_BYTES } from './core/server.js';
export * from './types.js';
export { DemoDataError, DemoDataWriteError } from './core/data-errors.js';
export { demoDataFile } from './core/data-file.js';

export interface DemoSystems {
  shopA: DemoSystemHandle;
  shopB: DemoSystemHandle;
  inventory: DemoSystemHandle;
  all(): DemoSystemHandle[];
  /** Each system's data status, in the order of `all()`. */
  dataStatus(): { system_id: string; name: string; status: DemoDataStatus }[];
  /** Resets every system's business data to the seed (see DemoSystemHandle.resetData). */
  resetData(): DemoDataReset[];
  close(): Promise<void>;
}

export interface StartDemoSystemsOptions {
  secrets?: { shopA?: string; shopB?: string; inventory?: string };
  ports?: { shopA?: number; shopB?: number; inventory?: number };
  host?: string;
  /** Keep the business data in this folder (one SQLite file per system); absent: in memory. */
  dataDir?: string;
  /** Told when a system's data file cannot be used (that system refuses every call until a reset). */
  onDataProblem?: (systemId: string, err: DemoDataError) => void;
}

export const generateSecret = (): string => randomBytes(24).toString('hex');

/** Starts shop-a, shop-b and inventory. Secrets default to fresh random values per launch. */
export async function startDemoSystems(opts: StartDemoSystemsOptions = {}): Promise<DemoSystems> {
  const started: DemoSystemHandle[] = [];
  const data = (systemId: string) => ({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    ...(opts.onDataProblem
      ? { onDataProblem: (err: DemoDataError) => opts.onDataProblem?.(systemId, err) }
      : {}),
  });
  try {
    const a = demoSystem('shop-a');
    const b = demoSystem('shop-b');
    const inv = demoSystem('inventory');
    const shopA = await startShop({
      systemId: a.system_id,
      name: a.name,
      variant: 'A',
      secret: opts.secrets?.shopA ?? generateSecret(),
      port: opts.ports?.shopA,
      host: opts.host,
      ...data(a.system_id),
    });
    started.push(shopA);
    const shopB = await startShop({
      systemId: b.system_id,
      name: b.name,
      variant: 'B',
      secret: opts.secrets?.shopB ?? generateSecret(),
      port: opts.ports?.shopB,
      host: opts.host,
      ...data(b.system_id),
    });
    started.push(shopB);
    const inventory = await startInventory({
      systemId: inv.system_id,
      name: inv.name,
      secret: opts.secrets?.inventory ?? generateSecret(),
      port: opts.ports?.inventory,
      host: opts.host,
      shops: { A: a.system_id, B: b.system_id },
      ...data(inv.system_id),
    });
    started.push(inventory);
    return {
      shopA,
      shopB,
      inventory,
      all: () => [shopA, shopB, inventory],
      dataStatus: () =>
        [shopA, shopB, inventory].map((s) => ({
          system_id: s.systemId,
          name: s.name,
          status: s.dataStatus(),
        })),
      // Each system on its own: one that cannot be reset does not keep the others from it.
      resetData: () =>
        [shopA, shopB, inventory].map((s) => {
          try {
            return s.resetData();
          } catch (err) {
            if (!(err instanceof DemoDataError || err instanceof DemoDataWriteError)) throw err;
            return { system_id: s.systemId, reset: false, set_aside: null, status: s.dataStatus() };
          }
        }),
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw err;
  }
}
