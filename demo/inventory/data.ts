/**
 * The inventory's business data as its store keeps it: stock levels and the adjustment counter
 * (checked when read back from disk). The SKU mapping is configuration, not data: no write changes it.
 */
import { z } from 'zod';
import type { BusinessData } from '../core/business-store.js';
import type { InventoryStore } from './operations.js';
import type { StockItem } from './seed.js';

const StockItemSchema: z.ZodType<StockItem> = z.strictObject({
  sku: z.string().regex(/^[A-Z0-9][A-Z0-9-]{2,39}$/),
  on_hand: z.number().int().min(0),
  reserved: z.number().int().min(0),
  location: z.string().max(40),
  revision: z.number().int().min(1),
  updated_at: z.string().max(40),
});

export interface InventoryData {
  stock: StockItem[];
  /** Adjustments made so far: adjustment ids keep counting across a reset, so none is given twice. */
  adjustments: number;
}

export const InventoryDataSchema: z.ZodType<InventoryData> = z.strictObject({
  stock: z
    .array(StockItemSchema)
    .max(10_000)
    .refine((s) => new Set(s.map((i) => i.sku)).size === s.length, 'SKUs must be unique'),
  adjustments: z.number().int().min(0),
});

export function inventoryData(
  store: InventoryStore,
  seedStock: () => StockItem[],
): BusinessData<InventoryData> {
  return {
    seed: (previous) => ({ stock: seedStock(), adjustments: previous?.adjustments ?? 0 }),
    snapshot: () => ({
      stock: [...store.stock.values()]
        .sort((a, b) => a.sku.localeCompare(b.sku))
        .map((i) => structuredClone(i)),
      adjustments: store.adjustments,
    }),
    restore: (data) => {
      store.stock = new Map(data.stock.map((i) => [i.sku, structuredClone(i)]));
      store.adjustments = data.adjustments;
    },
    schema: InventoryDataSchema,
  };
}
