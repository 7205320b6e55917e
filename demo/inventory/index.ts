/** startInventory: the demo inventory system as a real signed HTTP server. */
import { startDemoSystem } from '../core/server.js';
import { demoDataFile } from '../core/data-file.js';
import type { DemoDataError } from '../core/data-errors.js';
import type { DemoSystemHandle } from '../types.js';
import { inventoryData } from './data.js';
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
  /** The folder of the business data file (`<systemId>.sqlite`); absent: in memory, seeded each start. */
  dataDir?: string;
  onDataProblem?: (err: DemoDataError) => void;
}

export function startInventory(opts: StartInventoryOptions): Promise<DemoSystemHandle> {
  const shops = opts.shops ?? { A: 'shop-a', B: 'shop-b' };
  const store: InventoryStore = {
    stock: new Map(),
    mappings: seedInventory(shops).mappings,
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
    data: inventoryData(store, () => seedInventory(shops).stock),
    ...(opts.dataDir ? { dataFile: demoDataFile(opts.dataDir, opts.systemId) } : {}),
    ...(opts.onDataProblem ? { onDataProblem: opts.onDataProblem } : {}),
  });
}
