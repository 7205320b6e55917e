/** The inventory system's operations: get_stock (read), adjust_stock (write, high risk), find_sku (read). */
import type { SpecVariant } from '../types.js';
import { errorBody, type DemoOperationDef, type JsonSchema, type ParamDef } from '../core/operation.js';
import type { SkuMapping, StockItem } from './seed.js';

export interface InventoryStore {
  stock: Map<string, StockItem>;
  mappings: SkuMapping[];
  adjustments: number;
  now(): string;
}

const skuParam: ParamDef = {
  name: 'sku',
  schema: { type: 'string', pattern: '^[A-Z0-9][A-Z0-9-]{2,39}$' },
  required: true,
  description:
    'Stock keeping unit. Find it for a shop product with find_sku; never guess it from a product number.',
};

const StockSchema: JsonSchema = {
  type: 'object',
  properties: {
    sku: { type: 'string' },
    on_hand: { type: 'integer' },
    reserved: { type: 'integer' },
    location: { type: 'string' },
    revision: { type: 'integer' },
    updated_at: { type: 'string' },
  },
  required: ['sku', 'on_hand', 'reserved'],
};

export function inventoryOperations(store: InventoryStore, variant: SpecVariant): DemoOperationDef[] {
  const reasonMax = variant === 'v1' ? 200 : 500;
  return [
    {
      operationId: 'get_stock',
      method: 'GET',
      path: '/stock/{sku}',
      summary: 'Get the stock level of one SKU',
      description: 'Returns on-hand and reserved quantities of one SKU.',
      pathParams: [skuParam],
      queryParams: [],
      body: null,
      response: { schemaName: 'StockLevel', schema: StockSchema },
      capability: {
        version: 1,
        enabled: true,
        scope: 'inventory.read',
        risk: { level: 'low' },
        execution: {
          readonly: true,
          idempotent: true,
          timeout_ms: 5000,
          rate_limit: { count: 300, window: '1m' },
        },
        audit: { sensitive: false },
        outcome: { result: 'the stock level', side_effect: 'none' },
      },
      write: false,
      execute: ({ args }) => {
        const item = store.stock.get(String(args.sku));
        return item
          ? { status: 200, body: structuredClone(item) }
          : { status: 404, body: errorBody('sku_not_found', `SKU ${String(args.sku)} is unknown`) };
      },
    },
    {
      operationId: 'adjust_stock',
      method: 'POST',
      path: '/stock/{sku}/adjustments',
      summary: 'Adjust the stock level of one SKU',
      description: 'Adds (positive delta) or removes (negative delta) units of one SKU, with a reason.',
      pathParams: [skuParam],
      queryParams: [],
      body: {
        schemaName: 'StockAdjustment',
        required: true,
        schema: {
          type: 'object',
          properties: {
            delta: {
              type: 'integer',
              minimum: -1000,
              maximum: 1000,
              not: { const: 0 },
              description: 'Units to add (positive) or remove (negative).',
            },
            reason: {
              type: 'string',
              minLength: 1,
              maxLength: reasonMax,
              description: 'Why the stock changes.',
            },
          },
          required: ['delta', 'reason'],
          additionalProperties: false,
        },
      },
      response: {
        schemaName: 'StockAdjustmentResult',
        schema: {
          type: 'object',
          properties: {
            adjustment_id: { type: 'string' },
            sku: { type: 'string' },
            on_hand_before: { type: 'integer' },
            on_hand: { type: 'integer' },
          },
          required: ['adjustment_id', 'sku', 'on_hand_before', 'on_hand'],
        },
      },
      capability: {
        version: 1,
        enabled: true,
        scope: 'inventory.adjust',
        subject: { required: true },
        risk: { level: 'high' },
        approval: { required: true, prompt: 'Adjust stock of {sku} by {delta} ({reason})?' },
        execution: {
          readonly: false,
          idempotent: true,
          timeout_ms: 10000,
          rate_limit: { count: 20, window: '1m' },
        },
        audit: { sensitive: false },
        outcome: { result: 'the new stock level', side_effect: 'write' },
        guidance: {
          use_when: 'a stock correction was explicitly requested',
          avoid_when: 'the task says to leave stock levels unchanged',
        },
      },
      write: true,
      execute: ({ args }) => {
        const sku = String(args.sku);
        const item = store.stock.get(sku);
        if (!item) return { status: 404, body: errorBody('sku_not_found', `SKU ${sku} is unknown`) };
        const delta = Number(args.delta);
        const next = item.on_hand + delta;
        if (next < 0) {
          return {
            status: 409,
            body: errorBody(
              'insufficient_stock',
              `SKU ${sku} has ${item.on_hand} on hand; cannot remove ${-delta}`,
            ),
          };
        }
        const before = item.on_hand;
        item.on_hand = next;
        item.revision += 1;
        item.updated_at = store.now();
        store.adjustments += 1;
        const adjustment_id = `ADJ-${String(store.adjustments).padStart(5, '0')}`;
        return {
          status: 200,
          body: { adjustment_id, sku, on_hand_before: before, on_hand: next },
          write: {
            target: `sku:${sku}`,
            changes: { on_hand: { before, after: next }, reason: { before: null, after: args.reason } },
          },
        };
      },
    },
    {
      operationId: 'find_sku',
      method: 'GET',
      path: '/sku-mappings',
      summary: 'Find the SKU of a shop product',
      description:
        'Looks up the verified SKU mapping of one product of one shop. Shops number their products independently: product 42 of shop-a and product 42 of shop-b have different SKUs.',
      pathParams: [],
      queryParams: [
        {
          name: 'shop',
          schema: { type: 'string', minLength: 1, maxLength: 64 },
          required: true,
          description: 'The shop system id, e.g. shop-a.',
        },
        {
          name: 'product_id',
          schema: { type: 'integer', minimum: 1 },
          required: true,
          description: 'The product number in that shop.',
        },
      ],
      body: null,
      response: {
        schemaName: 'SkuMapping',
        schema: {
          type: 'object',
          properties: { shop: { type: 'string' }, product_id: { type: 'integer' }, sku: { type: 'string' } },
          required: ['shop', 'product_id', 'sku'],
        },
      },
      capability: {
        version: 1,
        enabled: true,
        scope: 'inventory.read',
        risk: { level: 'low' },
        execution: { readonly: true, idempotent: true, timeout_ms: 5000 },
        audit: { sensitive: false },
        outcome: { result: 'the SKU mapping', side_effect: 'none' },
        guidance: { use_when: 'you have a shop product and need its stock: map it to a SKU first' },
      },
      write: false,
      execute: ({ args }) => {
        const m = store.mappings.find((x) => x.shop === args.shop && x.product_id === args.product_id);
        return m
          ? { status: 200, body: { ...m } }
          : {
              status: 404,
              body: errorBody(
                'mapping_not_found',
                `no SKU mapping for product ${String(args.product_id)} of ${String(args.shop)}`,
              ),
            };
      },
    },
  ];
}
