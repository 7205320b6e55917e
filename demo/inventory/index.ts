/** startInventory: the demo inventory system as a real signed HTTP server. */
import { startDemoSystem } from '../core/server.js';
import type { DemoSystemHandle } from '../types.js';
import { inventoryOperations, type InventoryStore } from './operations.js';
import { seedInventory } from './seed.js';

export interface StartInventoryOptions {
  systemId: string;
  name: string;
  secret: string;
  port?: number;
  host?: string;
  /** System ids of the shops the SKU mapping refers to (default shop-a / shop-b). */
  shops?: { A: string; B: string };
  nowSeconds?: () => number;
}

export function startInventory(opts: StartInventoryOptions): Promise<DemoSystemHandle> {
  const seed = seedInventory(opts.shops ?? { A: 'shop-a', B: 'shop-b' });
  const store: InventoryStore = {
    stock: new Map(seed.stock.map((s) => [s.sku, s])),
    mappings: seed.mappings,
    adjustments: 0,
    now: () => new Date().toISOString(),
  };
  return startDemoSystem({
    systemId: opts.systemId,
    name: opts.name,
    secret: opts.secret,
    port: opts.port,
    host: opts.host,
    nowSeconds: opts.nowSeconds,
    description:
      'Demo inventory: stock levels per SKU, stock adjustments and the SKU mapping of shop products.',
    operations: (variant) => inventoryOperations(store, variant),
    state: () => ({
      stock: [...store.stock.values()].sort((a, b) => a.sku.localeCompare(b.sku)),
      mappings: store.mappings,
    }),
  });
}
