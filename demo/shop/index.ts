/** startShop: a demo shop (variant A or B seed data) as a real signed HTTP server. */
import { startDemoSystem } from '../core/server.js';
import type { DemoSystemHandle } from '../types.js';
import { shopOperations, type ShopStore } from './operations.js';
import { seedProducts } from './seed.js';

export interface StartShopOptions {
  systemId: string;
  name: string;
  variant: 'A' | 'B';
  secret: string;
  port?: number;
  host?: string;
  nowSeconds?: () => number;
}

export function startShop(opts: StartShopOptions): Promise<DemoSystemHandle> {
  const store: ShopStore = {
    products: new Map(seedProducts(opts.variant).map((p) => [p.product_id, p])),
    now: () => new Date().toISOString(),
  };
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
  });
}
