/** A small valid OpenAPI + ACC v1 document, built fresh for each test so it can be mutated freely. */

export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function validDoc(): Doc {
  return {
    openapi: '3.1.0',
    info: { title: 'Test shop', version: '1.0.0' },
    paths: {
      '/products/{product_id}': {
        parameters: [{ $ref: '#/components/parameters/ProductId' }],
        get: {
          operationId: 'get_product',
          summary: 'Get a product',
          description: 'Returns one product.',
          parameters: [{ name: 'fields', in: 'query', required: false, schema: { type: 'string' } }],
          responses: { '200': { description: 'ok' } },
          'x-agent-capability': {
            version: 1,
            enabled: true,
            scope: 'products.read',
            execution: { readonly: true, idempotent: true, timeout_ms: 3000 },
          },
        },
        patch: {
          operationId: 'update_product',
          summary: 'Update a product',
          requestBody: { $ref: '#/components/requestBodies/ProductPatch' },
          responses: { '200': { description: 'ok' } },
          'x-agent-capability': {
            version: 1,
            enabled: true,
            scope: 'products.write',
            subject: { required: true },
            risk: { level: 'medium' },
            approval: {
              required: false,
              prompt: 'Change {product_id}?',
              when: [{ path: '/price', op: 'gt', value: 100 }],
            },
            execution: { readonly: false, idempotent: true, rate_limit: { count: 10, window: '1m' } },
            audit: { sensitive: true },
            outcome: { result: 'the product', side_effect: 'write' },
            guidance: { use_when: 'asked to edit' },
          },
        },
      },
      '/stock/{sku}/adjustments': {
        post: {
          operationId: 'adjust_stock',
          parameters: [
            { name: 'sku', in: 'path', required: true, schema: { type: 'string' } },
            { name: 'dry_run', in: 'query', required: true, schema: { type: 'boolean' } },
            { name: 'x-trace', in: 'header', required: false, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Adjustment' } } },
          },
          responses: { '200': { description: 'ok' } },
          'x-agent-capability': {
            version: 1,
            enabled: true,
            scope: 'inventory.adjust',
            risk: { level: 'high' },
          },
        },
      },
    },
    components: {
      parameters: {
        ProductId: {
          name: 'product_id',
          in: 'path',
          required: true,
          description: 'Product number',
          schema: { $ref: '#/components/schemas/Id' },
        },
      },
      requestBodies: {
        ProductPatch: {
          required: false,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  title: { type: 'string', maxLength: 200 },
                  price: { type: 'number', minimum: 0 },
                },
                required: ['title'],
                additionalProperties: false,
              },
            },
          },
        },
      },
      schemas: {
        Id: { type: 'integer', minimum: 1 },
        Adjustment: {
          type: 'object',
          properties: {
            delta: { type: 'integer' },
            reason: { type: 'string' },
            meta: { $ref: '#/components/schemas/Meta' },
          },
          required: ['delta', 'reason'],
        },
        Meta: { type: 'object', properties: { source: { type: 'string' } } },
      },
    },
  };
}
