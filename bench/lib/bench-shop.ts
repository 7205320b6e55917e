/**
 * The benchmarks' business system: the demo shop A (same data, same operations, same signing,
 * idempotency and ledger) whose published spec declares NO per-operation rate limit. The demo
 * shop declares 30–120 calls per minute per account, which the Hub enforces; a benchmark that
 * sends hundreds of calls per second would only measure refusals. Enforcement is unchanged: this
 * system simply does not ask for a limit.
 */
import { startDemoSystem } from '../../demo/core/server.js';
import { shopData } from '../../demo/shop/data.js';
import { shopOperations, type ShopStore } from '../../demo/shop/operations.js';
import type { DemoSystemHandle } from '../../demo/types.js';
import type { CompiledOperation } from '../../src-hub/acc/types.js';
import { createBusinessEdge } from '../../src-hub/edge.js';

export const BENCH_SHOP = {
  system_id: 'bench-shop',
  authorization_ref: 'auth-bench-shop',
  account: 'bench-operator',
} as const;

export function startBenchShop(secret: string): Promise<DemoSystemHandle> {
  const store: ShopStore = { products: new Map(), now: () => new Date().toISOString() };
  return startDemoSystem({
    systemId: BENCH_SHOP.system_id,
    name: 'Bench shop (shop A data, no declared rate limit)',
    secret,
    description: 'Demo shop A for benchmarks: the same operations without execution.rate_limit.',
    operations: (variant) =>
      shopOperations(store, variant).map((op) => {
        if (!op.capability.execution) return op;
        const { rate_limit: _dropped, ...execution } = op.capability.execution;
        return { ...op, capability: { ...op.capability, execution } };
      }),
    state: () => ({ products: [...store.products.values()].sort((a, b) => a.product_id - b.product_id) }),
    data: shopData(store, 'A'),
  });
}

/** The bench shop's operations as the Hub compiles them from its signed spec (for direct calls). */
export async function benchShopOperations(shop: DemoSystemHandle): Promise<CompiledOperation[]> {
  const edge = createBusinessEdge();
  const spec = await edge.fetchSpec({
    baseUrl: shop.url,
    systemId: shop.systemId,
    allowInsecureHttp: false,
    specPath: '/.well-known/bailing/tools.json',
    timeoutMs: 10_000,
    secret: shop.secret,
  });
  if (!spec.ok) throw new Error(`bench shop spec: ${spec.message}`);
  return edge.compileSpec(spec.doc).operations;
}
