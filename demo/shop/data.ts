/** A shop's business data as its store keeps it: the products (checked when read back from disk). */
import { z } from 'zod';
import type { BusinessData } from '../core/business-store.js';
import type { ShopStore } from './operations.js';
import { seedProducts, type Product } from './seed.js';

const ProductSchema: z.ZodType<Product> = z.strictObject({
  product_id: z.number().int().min(1).max(999999),
  title: z.string().max(200),
  description: z.string().max(5000),
  price: z.number().min(0).max(100000),
  currency: z.string().max(8),
  stock: z.number().int(),
  status: z.enum(['draft', 'published']),
  channels: z.array(z.string().max(40)).max(10),
  revision: z.number().int().min(1),
  updated_at: z.string().max(40),
});

export interface ShopData {
  products: Product[];
}

export const ShopDataSchema: z.ZodType<ShopData> = z.strictObject({
  products: z
    .array(ProductSchema)
    .max(10_000)
    .refine((ps) => new Set(ps.map((p) => p.product_id)).size === ps.length, 'product ids must be unique'),
});

export function shopData(store: ShopStore, variant: 'A' | 'B'): BusinessData<ShopData> {
  return {
    seed: () => ({ products: seedProducts(variant) }),
    snapshot: () => ({
      products: [...store.products.values()]
        .sort((a, b) => a.product_id - b.product_id)
        .map((p) => structuredClone(p)),
    }),
    restore: (data) => {
      store.products = new Map(data.products.map((p) => [p.product_id, structuredClone(p)]));
    },
    schema: ShopDataSchema,
  };
}
