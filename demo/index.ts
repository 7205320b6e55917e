/**
 * Demo business systems: two shops (A and B, both with a product 42) and an inventory system,
 * each a real signed Fastify server on 127.0.0.1 with idempotency, a write ledger, a request log,
 * the operations look-up and fault injection. See docs/business-systems.md.
 */
import { randomBytes } from 'node:crypto';
import { demoSystem } from './config.js';
import { startInventory } from './inventory/index.js';
import { startShop } from './shop/index.js';
import type { DemoSystemHandle } from './types.js';

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

export interface DemoSystems {
  shopA: DemoSystemHandle;
  shopB: DemoSystemHandle;
  inventory: DemoSystemHandle;
  all(): DemoSystemHandle[];
  close(): Promise<void>;
}

export interface StartDemoSystemsOptions {
  secrets?: { shopA?: string; shopB?: string; inventory?: string };
  ports?: { shopA?: number; shopB?: number; inventory?: number };
  host?: string;
}

export const generateSecret = (): string => randomBytes(24).toString('hex');

/** Starts shop-a, shop-b and inventory. Secrets default to fresh random values per launch. */
export async function startDemoSystems(opts: StartDemoSystemsOptions = {}): Promise<DemoSystems> {
  const started: DemoSystemHandle[] = [];
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
    });
    started.push(shopA);
    const shopB = await startShop({
      systemId: b.system_id,
      name: b.name,
      variant: 'B',
      secret: opts.secrets?.shopB ?? generateSecret(),
      port: opts.ports?.shopB,
      host: opts.host,
    });
    started.push(shopB);
    const inventory = await startInventory({
      systemId: inv.system_id,
      name: inv.name,
      secret: opts.secrets?.inventory ?? generateSecret(),
      port: opts.ports?.inventory,
      host: opts.host,
      shops: { A: a.system_id, B: b.system_id },
    });
    started.push(inventory);
    return {
      shopA,
      shopB,
      inventory,
      all: () => [shopA, shopB, inventory],
      close: async () => {
        await Promise.all(started.map((s) => s.close()));
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((s) => s.close()));
    throw err;
  }
}
