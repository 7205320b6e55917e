/**
 * The scripted assignment every chaos run performs: a task over both shops and the inventory
 * (description-only edits allowed, a small write budget), and a model script that searches once,
 * then issues two rounds of calls through the governed path: reads (SKU mapping, stock) and more
 * description writes than the budget allows, so some are refused at the boundary.
 */
import type { Script } from '../../demo/scripted-model/script.js';

export interface PlannedWrite {
  fn: string;
  product_id: number;
}

export function assignmentScript(runTag: string): Script {
  const desc = (p: number, shop: string) => `Chaos ${runTag}: refreshed copy for ${shop} product ${p}.`;
  const write = (shop: 'a' | 'b', product_id: number) => ({
    name: `auth_shop_${shop}__update_product_content`,
    arguments: { product_id, description: desc(product_id, `shop-${shop}`) },
  });
  return [
    {
      name: `${runTag}:search`,
      match: { userIncludes: runTag },
      reply: {
        toolCalls: [
          { name: 'search_tools', arguments: { query: 'edit product description', limit: 20 } },
          { name: 'search_tools', arguments: { query: 'check stock sku', limit: 20 } },
        ],
      },
    },
    {
      name: `${runTag}:round1`,
      match: { afterToolResultFor: 'search_tools', turnUserIncludes: runTag },
      reply: {
        toolCalls: [
          { name: 'auth_inventory__find_sku', arguments: { shop: 'shop-a', product_id: 42 } },
          write('a', 7),
          write('a', 13),
          write('b', 42),
        ],
      },
    },
    {
      name: `${runTag}:round2`,
      match: { afterToolResultFor: 'auth_shop_a__update_product_content', turnUserIncludes: runTag },
      reply: {
        toolCalls: [
          write('a', 42),
          { name: 'auth_inventory__get_stock', arguments: { sku: 'SKU-A-0042' } },
          write('b', 7),
          write('b', 13),
        ],
      },
    },
    {
      name: `${runTag}:done`,
      match: { turnUserIncludes: runTag },
      reply: { text: `Run ${runTag} finished.` },
    },
  ];
}

export const TASK_TOOLS = {
  'auth-shop-a': ['update_product_content', 'get_product', 'list_products'],
  'auth-shop-b': ['update_product_content', 'get_product', 'list_products'],
  'auth-inventory': ['find_sku', 'get_stock'],
} as const;
