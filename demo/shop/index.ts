/** startShop: a demo shop (variant A or B seed data) as a real signed HTTP server. */
import { startDemoSystem } from '../core/server.js';
import { demoDataFile } from '../core/data-file.js';
import type { DemoDataError } from '../core/data-errors.js';
import type { DemoSystemHandle } from '../types.js';
import { shopData } from './data.js';
import { shopOperations, type ShopStore } from './operations.js';

export interface StartShopOptions {
  systemId: string;
  name: string;
  variant: 'A' | 'B';
  secret: string;
  port?: number;
  host?: string;
  nowSeconds?: () => number;
  /** The folder of the business data file (`<systemId>.sqlite`); absent: in memory, seeded each start. */
  dataDir?: string;
  onDataProblem?: (err: DemoDataError) => void;
}

export function startShop(opts: StartShopOptions): Promise<DemoSystemHandle> {
  const store: ShopStore = { products: new Map(), now: () => new Date().toISOString() };
  return startDemoSystem({
    systemId: opts.systemId,
    name: opts.name,
    secret: opts.secret,
    port: opts.port,
    host: opts.host,
    nowSeconds: opts.nowSeconds,
    description: `Demo shop ${opts.variant}: products, content edits, price edits and listing publication.`,
    operations: (variant) => shopOperations(store, variant),
    state: () => ({
      variant: opts.variant,
      products: [...store.products.values()].sort((a, b) => a.product_id - b.product_id),
    }),
    data: shopData(store, opts.variant),
    ...(opts.dataDir ? { dataFile: demoDataFile(opts.dataDir, opts.systemId) } : {}),
    ...(opts.onDataProblem ? { onDataProblem: opts.onDataProblem } : {}),
  });
}
