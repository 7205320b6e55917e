/** The shop's business operations (list/get product, content edit, full edit, publish) and their ACC blocks. */
import type { SpecVariant } from '../types.js';
import {
  errorBody,
  type DemoOperationDef,
  type JsonSchema,
  type OperationResult,
  type ParamDef,
} from '../core/operation.js';
import type { Product } from './seed.js';

export interface ShopStore {
  products: Map<number, Product>;
  now(): string;
}

const NOT_EDITABLE_BY_CONTENT = ['price', 'stock', 'currency', 'status', 'channels'];

const productIdParam: ParamDef = {
  name: 'product_id',
  schema: { type: 'integer', minimum: 1, maximum: 999999 },
  required: true,
  description:
    "The shop's product number (numbers are per shop: product 42 of one shop is not product 42 of another).",
};

const ProductSchema: JsonSchema = {
  type: 'object',
  properties: {
    product_id: { type: 'integer' },
    title: { type: 'string' },
    description: { type: 'string' },
    price: { type: 'number' },
    currency: { type: 'string' },
    stock: { type: 'integer' },
    status: { type: 'string', enum: ['draft', 'published'] },
    channels: { type: 'array', items: { type: 'string' } },
    revision: { type: 'integer' },
    updated_at: { type: 'string' },
  },
  required: ['product_id', 'title', 'description', 'price', 'currency', 'stock', 'status', 'revision'],
};

const titleSchema: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 200,
  description: 'Product title shown to customers.',
};
const descriptionSchema = (max: number): JsonSchema => ({
  type: 'string',
  minLength: 0,
  maxLength: max,
  description: `Product description shown to customers (at most ${max} characters).`,
});

const view = (p: Product) => structuredClone(p);
const notFound = (id: unknown): OperationResult => ({
  status: 404,
  body: errorBody('product_not_found', `product ${String(id)} does not exist in this shop`),
});

/** Apply field changes to a product and describe them for the ledger. */
function applyChanges(store: ShopStore, product: Product, fields: Record<string, unknown>): OperationResult {
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    const before = (product as unknown as Record<string, unknown>)[k];
    if (before !== v) changes[k] = { before, after: v };
    (product as unknown as Record<string, unknown>)[k] = v;
  }
  if (Object.keys(changes).length > 0) {
    product.revision += 1;
    product.updated_at = store.now();
  }
  return {
    status: 200,
    body: view(product),
    write: { target: `product:${product.product_id}`, changes },
  };
}

export function shopOperations(store: ShopStore, variant: SpecVariant): DemoOperationDef[] {
  const descriptionMax = variant === 'v1' ? 2000 : 5000;
  const get = (id: unknown) => store.products.get(Number(id));

  return [
    {
      operationId: 'list_products',
      method: 'GET',
      path: '/products',
      summary: 'List products',
      description: 'Lists the products of this shop with title, price, stock and publication status.',
      pathParams: [],
      queryParams: [
        {
          name: 'status',
          schema: { type: 'string', enum: ['draft', 'published'] },
          required: false,
          description: 'Only products with this status.',
        },
        {
          name: 'limit',
          schema: { type: 'integer', minimum: 1, maximum: 100 },
          required: false,
          description: 'At most this many products (default 50).',
        },
      ],
      body: null,
      response: {
        schemaName: 'ProductList',
        schema: {
          type: 'object',
          properties: { products: { type: 'array', items: { $ref: '#/components/schemas/Product' } } },
          required: ['products'],
        },
      },
      capability: {
        version: 1,
        enabled: true,
        scope: 'shop.products.read',
        risk: { level: 'low' },
        execution: {
          readonly: true,
          idempotent: true,
          timeout_ms: 5000,
          rate_limit: { count: 120, window: '1m' },
        },
        audit: { sensitive: false },
        outcome: { result: 'a list of products', side_effect: 'none' },
        guidance: { use_when: 'you need an overview of the products of this shop' },
      },
      write: false,
      execute: ({ args }) => {
        const limit = typeof args.limit === 'number' ? args.limit : 50;
        const products = [...store.products.values()]
          .filter((p) => args.status === undefined || p.status === args.status)
          .sort((a, b) => a.product_id - b.product_id)
          .slice(0, limit)
          .map(view);
        return { status: 200, body: { products } };
      },
    },
    {
      operationId: 'get_product',
      method: 'GET',
      path: '/products/{product_id}',
      summary: 'Get one product',
      description: 'Returns one product of this shop: title, description, price, stock, status.',
      pathParams: [productIdParam],
      queryParams: [],
      body: null,
      response: { schemaName: 'Product', schema: ProductSchema },
      capability: {
        version: 1,
        enabled: true,
        scope: 'shop.products.read',
        risk: { level: 'low' },
        execution: { readonly: true, idempotent: true, timeout_ms: 5000 },
        audit: { sensitive: false },
        outcome: { result: 'the product', side_effect: 'none' },
      },
      write: false,
      execute: ({ args }) => {
        const product = get(args.product_id);
        return product ? { status: 200, body: view(product) } : notFound(args.product_id);
      },
    },
    {
      operationId: 'update_product_content',
      method: 'PATCH',
      path: '/products/{product_id}/content',
      summary: 'Update product title and description',
      description:
        variant === 'v1'
          ? 'Changes the title and/or description of one product. Prices and stock cannot be changed by this operation.'
          : 'Changes the title and/or description (up to 5000 characters) of one product. Prices and stock cannot be changed by this operation.',
      pathParams: [productIdParam],
      queryParams: [],
      body: {
        schemaName: 'ProductContentPatch',
        required: true,
        schema: {
          type: 'object',
          properties: { title: titleSchema, description: descriptionSchema(descriptionMax) },
          additionalProperties: false,
          minProperties: 1,
        },
      },
      response: { schemaName: 'Product', schema: ProductSchema },
      capability: {
        version: 1,
        enabled: true,
        scope: 'shop.products.content',
        subject: { required: true },
        risk: { level: 'low' },
        approval: { required: false },
        execution: {
          readonly: false,
          idempotent: true,
          timeout_ms: 10000,
          rate_limit: { count: 60, window: '1m' },
        },
        audit: { sensitive: false },
        outcome: { result: 'the updated product', side_effect: 'write' },
        guidance: {
          use_when: 'only the title or description of a product should change',
          restrictions: 'price, stock, currency and status are refused by the shop (422 field_not_editable)',
          ...(variant === 'v2' ? { note: 'descriptions may now be up to 5000 characters' } : {}),
        },
      },
      write: true,
      precheck: (body) => {
        const refused = Object.keys(body).filter((k) => NOT_EDITABLE_BY_CONTENT.includes(k));
        return refused.length > 0
          ? {
              status: 422,
              body: errorBody(
                'field_not_editable',
                `update_product_content cannot change: ${refused.join(', ')}`,
              ),
            }
          : null;
      },
      execute: ({ args }) => {
        const product = get(args.product_id);
        if (!product) return notFound(args.product_id);
        return applyChanges(store, product, { title: args.title, description: args.description });
      },
    },
    {
      operationId: 'update_product',
      method: 'PATCH',
      path: '/products/{product_id}',
      summary: 'Update a product, including its price',
      description:
        'Changes title, description and/or price of one product. Stock is managed by the inventory system.',
      pathParams: [productIdParam],
      queryParams: [],
      body: {
        schemaName: 'ProductPatch',
        required: true,
        schema: {
          type: 'object',
          properties: {
            title: titleSchema,
            description: descriptionSchema(descriptionMax),
            price: {
              type: 'number',
              minimum: 0,
              maximum: 100000,
              description: 'New price in the shop currency.',
            },
          },
          additionalProperties: false,
          minProperties: 1,
        },
      },
      response: { schemaName: 'Product', schema: ProductSchema },
      capability: {
        version: 1,
        enabled: true,
        scope: 'shop.products.write',
        subject: { required: true },
        risk: { level: 'medium' },
        approval: {
          required: false,
          prompt: 'Change product {product_id} (price {price})?',
          when: [{ path: '/price', op: 'gt', value: 1000 }],
        },
        execution: {
          readonly: false,
          idempotent: true,
          timeout_ms: 10000,
          rate_limit: { count: 30, window: '1m' },
        },
        audit: { sensitive: false },
        outcome: { result: 'the updated product', side_effect: 'write' },
        guidance: {
          use_when: 'a price change is explicitly requested; prefer update_product_content for text edits',
        },
      },
      write: true,
      execute: ({ args }) => {
        const product = get(args.product_id);
        if (!product) return notFound(args.product_id);
        return applyChanges(store, product, {
          title: args.title,
          description: args.description,
          price: args.price,
        });
      },
    },
    {
      operationId: 'publish_listing',
      method: 'POST',
      path: '/products/{product_id}/publish',
      summary: 'Publish a product listing',
      description: 'Publishes one product on a sales channel, making it visible to customers.',
      pathParams: [productIdParam],
      queryParams: [],
      body: {
        schemaName: 'PublishRequest',
        required: false,
        schema: {
          type: 'object',
          properties: {
            channel: {
              type: 'string',
              enum: ['web', 'marketplace'],
              description: "Sales channel (default 'web').",
            },
          },
          additionalProperties: false,
        },
      },
      response: { schemaName: 'Product', schema: ProductSchema },
      capability: {
        version: 1,
        enabled: true,
        scope: 'shop.listings.publish',
        subject: { required: true },
        risk: { level: 'medium' },
        approval: {
          required: true,
          prompt: 'Publish product {product_id} on {channel}? Customers will see it immediately.',
        },
        execution: { readonly: false, idempotent: true, timeout_ms: 15000 },
        audit: { sensitive: false },
        outcome: { result: 'the published product', side_effect: 'external' },
        guidance: { use_when: 'the operator asked to publish a listing' },
      },
      write: true,
      execute: ({ args }) => {
        const product = get(args.product_id);
        if (!product) return notFound(args.product_id);
        const channel = typeof args.channel === 'string' ? args.channel : 'web';
        if (product.channels.includes(channel)) {
          return {
            status: 409,
            body: errorBody('already_published', `product ${product.product_id} is already on ${channel}`),
          };
        }
        return applyChanges(store, product, {
          status: 'published',
          channels: [...product.channels, channel],
        });
      },
    },
  ];
}
