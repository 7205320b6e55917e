/** Seed stock levels and the explicit SKU mapping from (shop system id, product id) to SKU. */

export interface StockItem {
  sku: string;
  on_hand: number;
  reserved: number;
  location: string;
  revision: number;
  updated_at: string;
}

export interface SkuMapping {
  shop: string;
  product_id: number;
  sku: string;
}

const at = '2026-01-05T09:00:00.000Z';

export function seedInventory(shops: { A: string; B: string }): {
  stock: StockItem[];
  mappings: SkuMapping[];
} {
  const item = (sku: string, on_hand: number, location: string): StockItem => ({
    sku,
    on_hand,
    reserved: 0,
    location,
    revision: 1,
    updated_at: at,
  });
  return {
    stock: [
      item('SKU-A-0007', 40, 'WH1-A3'),
      item('SKU-A-0013', 0, 'WH1-B1'),
      item('SKU-A-0042', 12, 'WH1-C7'),
      item('SKU-B-0007', 25, 'WH2-A1'),
      item('SKU-B-0013', 8, 'WH2-A2'),
      item('SKU-B-0042', 3, 'WH2-D4'),
      item('SKU-B-0058', 0, 'WH2-D5'),
    ],
    mappings: [
      { shop: shops.A, product_id: 7, sku: 'SKU-A-0007' },
      { shop: shops.A, product_id: 13, sku: 'SKU-A-0013' },
      { shop: shops.A, product_id: 42, sku: 'SKU-A-0042' },
      { shop: shops.B, product_id: 7, sku: 'SKU-B-0007' },
      { shop: shops.B, product_id: 13, sku: 'SKU-B-0013' },
      { shop: shops.B, product_id: 42, sku: 'SKU-B-0042' },
      { shop: shops.B, product_id: 58, sku: 'SKU-B-0058' },
    ],
  };
}
