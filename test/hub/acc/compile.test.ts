import { describe, expect, it } from 'vitest';
import { approvalRequired, compileSpec, type HttpOperation } from '../../../src-hub/acc/index.js';
import { validDoc, type Doc } from './fixtures.js';

const byTool = (ops: HttpOperation[], tool: string) => {
  const op = ops.find((o) => o.tool === tool);
  if (!op) throw new Error(`${tool} not compiled`);
  return op;
};

/** Compile a mutated copy; return the diagnostics and which tools survived. */
function compileWith(mutate: (d: Doc) => void) {
  const doc = validDoc();
  mutate(doc);
  const r = compileSpec(doc);
  return { ...r, tools: r.operations.map((o) => o.tool).sort() };
}

describe('compileSpec: a valid document', () => {
  const result = compileSpec(validDoc());

  it('compiles every enabled operation without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
    expect(result.operations.map((o) => o.tool).sort()).toEqual([
      'adjust_stock',
      'get_product',
      'update_product',
    ]);
    expect(result.spec_revision).toMatch(/^[0-9a-f]{64}$/);
  });

  it('flattens path + query + body into one closed schema with local refs resolved', () => {
    const get = byTool(result.operations, 'get_product');
    expect(get).toMatchObject({
      method: 'GET',
      path_template: '/products/{product_id}',
      path_params: ['product_id'],
      query_params: ['fields'],
      body_params: [],
      has_body: false,
      effect: 'read',
      side_effect: 'none',
      timeout_ms: 3000,
      description: 'Returns one product.',
    });
    expect(get.input_schema).toEqual({
      type: 'object',
      properties: {
        product_id: { type: 'integer', minimum: 1, description: 'Product number' },
        fields: { type: 'string' },
      },
      required: ['product_id'],
      additionalProperties: false,
    });
    const adjust = byTool(result.operations, 'adjust_stock');
    expect(adjust.input_schema).toEqual({
      type: 'object',
      properties: {
        sku: { type: 'string' },
        dry_run: { type: 'boolean' },
        delta: { type: 'integer' },
        reason: { type: 'string' },
        meta: { type: 'object', properties: { source: { type: 'string' } } },
      },
      required: ['delta', 'dry_run', 'reason', 'sku'],
      additionalProperties: false,
    });
    expect(adjust).toMatchObject({
      has_body: true,
      body_required: true,
      body_params: ['delta', 'meta', 'reason'],
      query_params: ['dry_run'],
    });
    expect(JSON.stringify(result.operations)).not.toContain('$ref');
  });

  it('body properties the body schema lists as required are required, even with requestBody.required false', () => {
    const update = byTool(result.operations, 'update_product');
    expect(update.input_schema.required).toEqual(['product_id', 'title']);
    expect(update.body_required).toBe(true);
  });

  it('maps the ACC block, with defaults and approval forced by high risk', () => {
    const update = byTool(result.operations, 'update_product');
    expect(update).toMatchObject({
      description: 'Update a product',
      effect: 'write',
      side_effect: 'write',
      risk_level: 'medium',
      approval: {
        required: false,
        prompt: 'Change {product_id}?',
        when: [{ path: '/price', op: 'gt', value: 100 }],
      },
      idempotent: true,
      timeout_ms: 10000,
      rate_limit: { count: 10, window: '1m' },
      scope: 'products.write',
      subject_required: true,
      audit_sensitive: true,
      guidance: { use_when: 'asked to edit' },
    });
    const adjust = byTool(result.operations, 'adjust_stock');
    expect(adjust).toMatchObject({
      effect: 'write', // no execution block: not readonly
      side_effect: 'write',
      risk_level: 'high',
      approval: { required: true, prompt: null, when: [] },
      idempotent: false,
      rate_limit: null,
      subject_required: false,
      audit_sensitive: false,
      guidance: null,
    });
    expect(adjust.declaration_revision).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('compileSpec: effect', () => {
  const getCap = (d: Doc) => d.paths['/products/{product_id}'].get['x-agent-capability'];

  it.each([
    ['none', 'read'],
    ['read', 'read'],
    ['write', 'write'],
    ['notify', 'write'],
    ['external', 'write'],
  ])('a readonly operation whose outcome side effect is %s is governed as a %s', (sideEffect, effect) => {
    const r = compileWith((d) => {
      getCap(d).outcome = { result: 'x', side_effect: sideEffect };
    });
    expect(byTool(r.operations, 'get_product')).toMatchObject({ effect, side_effect: sideEffect });
  });
});

describe('compileSpec: diagnostics', () => {
  it.each([
    ['not an object', 'a string'],
    ['null', null],
    ['an array', []],
    ['Swagger 2', { swagger: '2.0', paths: {} }],
    ['no paths', { openapi: '3.1.0' }],
  ])('spec_invalid and zero operations for %s', (_label, doc) => {
    const r = compileSpec(doc);
    expect(r.operations).toEqual([]);
    expect(r.diagnostics).toEqual([{ code: 'spec_invalid', operation: null, message: expect.any(String) }]);
  });

  const cases: [string, (d: Doc) => void, string, string | null][] = [
    [
      'acc version 2',
      (d) => (d.paths['/products/{product_id}'].get['x-agent-capability'].version = 2),
      'acc_version_unsupported',
      'get_product',
    ],
    [
      'acc version missing',
      (d) => delete d.paths['/products/{product_id}'].get['x-agent-capability'].version,
      'acc_version_unsupported',
      'get_product',
    ],
    [
      'operationId missing',
      (d) => delete d.paths['/products/{product_id}'].get.operationId,
      'operation_id_missing',
      null,
    ],
    [
      'operationId not a tool name',
      (d) => (d.paths['/products/{product_id}'].get.operationId = 'get-product!'),
      'operation_id_invalid',
      'get-product!',
    ],
    [
      'operationId duplicate',
      (d) => (d.paths['/stock/{sku}/adjustments'].post.operationId = 'get_product'),
      'operation_id_duplicate',
      'get_product',
    ],
    [
      'dangling $ref',
      (d) =>
        (d.paths['/products/{product_id}'].get.parameters[0].schema = { $ref: '#/components/schemas/Nope' }),
      'schema_unresolvable',
      'get_product',
    ],
    [
      'external $ref',
      (d) => (d.components.schemas.Meta = { $ref: 'https://example.com/meta.json' }),
      'schema_unresolvable',
      'adjust_stock',
    ],
    [
      '$ref cycle',
      (d) =>
        (d.components.schemas.Meta = {
          type: 'object',
          properties: { again: { $ref: '#/components/schemas/Meta' } },
        }),
      'schema_unresolvable',
      'adjust_stock',
    ],
    [
      'argument name collision (path vs body)',
      (d) => (d.components.schemas.Adjustment.properties.sku = { type: 'string' }),
      'argument_name_collision',
      'adjust_stock',
    ],
    [
      'argument name collision (query vs body)',
      (d) => (d.components.schemas.Adjustment.properties.dry_run = { type: 'boolean' }),
      'argument_name_collision',
      'adjust_stock',
    ],
    [
      'scope missing',
      (d) => delete d.paths['/products/{product_id}'].get['x-agent-capability'].scope,
      'capability_invalid',
      'get_product',
    ],
    [
      'risk level unknown',
      (d) => (d.paths['/products/{product_id}'].patch['x-agent-capability'].risk.level = 'extreme'),
      'capability_invalid',
      'update_product',
    ],
    [
      'rate window unknown',
      (d) =>
        (d.paths['/products/{product_id}'].patch['x-agent-capability'].execution.rate_limit.window = '5m'),
      'capability_invalid',
      'update_product',
    ],
    [
      'timeout not an integer',
      (d) => (d.paths['/products/{product_id}'].get['x-agent-capability'].execution.timeout_ms = 'soon'),
      'capability_invalid',
      'get_product',
    ],
    [
      'approval rule on an unknown argument',
      (d) =>
        (d.paths['/products/{product_id}'].patch['x-agent-capability'].approval.when = [
          { path: '/colour', op: 'eq', value: 'red' },
        ]),
      'capability_invalid',
      'update_product',
    ],
    [
      'approval rule gt without a number',
      (d) =>
        (d.paths['/products/{product_id}'].patch['x-agent-capability'].approval.when = [
          { path: 'price', op: 'gt', value: [1] },
        ]),
      'capability_invalid',
      'update_product',
    ],
    [
      'approval rule op unknown',
      (d) =>
        (d.paths['/products/{product_id}'].patch['x-agent-capability'].approval.when = [
          { path: 'price', op: 'like', value: 1 },
        ]),
      'capability_invalid',
      'update_product',
    ],
    [
      'capability not an object',
      (d) => (d.paths['/products/{product_id}'].get['x-agent-capability'] = true),
      'capability_invalid',
      'get_product',
    ],
    [
      'capability missing',
      (d) => delete d.paths['/products/{product_id}'].get['x-agent-capability'],
      'capability_missing',
      'get_product',
    ],
    [
      'required header parameter',
      (d) =>
        d.paths['/stock/{sku}/adjustments'].post.parameters.push({
          name: 'x-tenant',
          in: 'header',
          required: true,
        }),
      'parameter_unsupported',
      'adjust_stock',
    ],
    [
      'path param not in template',
      (d) => (d.paths['/stock/{sku}/adjustments'].post.parameters[0].name = 'code'),
      'path_template_mismatch',
      'adjust_stock',
    ],
    [
      'non-JSON request body',
      (d) =>
        (d.paths['/stock/{sku}/adjustments'].post.requestBody = {
          content: { 'text/plain': { schema: { type: 'string' } } },
        }),
      'body_unsupported',
      'adjust_stock',
    ],
    [
      'array request body',
      (d) =>
        (d.paths['/stock/{sku}/adjustments'].post.requestBody = {
          content: { 'application/json': { schema: { type: 'array', items: {} } } },
        }),
      'body_unsupported',
      'adjust_stock',
    ],
    [
      'object-typed path parameter',
      (d) => (d.paths['/stock/{sku}/adjustments'].post.parameters[0].schema = { type: 'object' }),
      'parameter_unsupported',
      'adjust_stock',
    ],
    [
      'object-typed query parameter',
      (d) =>
        (d.paths['/stock/{sku}/adjustments'].post.parameters[1].schema = { type: 'object', properties: {} }),
      'parameter_unsupported',
      'adjust_stock',
    ],
    [
      'a schema that does not compile',
      (d) =>
        (d.paths['/products/{product_id}'].get.parameters[0].schema = { type: 'string', minLength: 'one' }),
      'schema_invalid',
      'get_product',
    ],
  ];

  it.each(cases)('%s: coded diagnostic, only that operation left out', (_label, mutate, code, operation) => {
    const r = compileWith(mutate);
    expect(r.diagnostics).toEqual([{ code, operation, message: expect.any(String) }]);
    const all = ['adjust_stock', 'get_product', 'update_product'];
    const expectedLeftOut =
      code === 'operation_id_missing' || code === 'operation_id_invalid'
        ? 'get_product'
        : code === 'operation_id_duplicate'
          ? 'adjust_stock'
          : operation;
    expect(r.tools).toEqual(all.filter((t) => t !== expectedLeftOut));
  });

  it('a broken shared path-level parameter leaves out every operation of that path, each with a diagnostic', () => {
    const r = compileWith((d) => (d.components.schemas.Id = { $ref: '#/components/schemas/Nope' }));
    expect(r.diagnostics.map((x) => [x.code, x.operation])).toEqual([
      ['schema_unresolvable', 'get_product'],
      ['schema_unresolvable', 'update_product'],
    ]);
    expect(r.tools).toEqual(['adjust_stock']);
  });

  it('an operation with enabled: false is left out silently', () => {
    const r = compileWith(
      (d) => (d.paths['/products/{product_id}'].get['x-agent-capability'].enabled = false),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.tools).toEqual(['adjust_stock', 'update_product']);
  });
});

describe('compileSpec: OpenAPI 3.0 schemas', () => {
  it('rewrites nullable and boolean exclusive bounds into JSON Schema 2020-12', () => {
    const doc = validDoc();
    doc.openapi = '3.0.3';
    doc.components.schemas.Adjustment.properties.delta = {
      type: 'integer',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 10,
      exclusiveMaximum: false,
    };
    doc.components.schemas.Adjustment.properties.reason = {
      type: 'string',
      nullable: true,
      enum: ['a', 'b'],
    };
    const r = compileSpec(doc);
    expect(r.diagnostics).toEqual([]);
    const adjust = byTool(r.operations, 'adjust_stock');
    const props = adjust.input_schema.properties as Record<string, unknown>;
    expect(props.delta).toEqual({ type: 'integer', exclusiveMinimum: 0, maximum: 10 });
    expect(props.reason).toEqual({ type: ['string', 'null'], enum: ['a', 'b', null] });
  });

  it('leaves 3.1 schemas untouched', () => {
    const doc = validDoc();
    doc.components.schemas.Adjustment.properties.delta = { type: 'integer', exclusiveMinimum: 0 };
    const adjust = byTool(compileSpec(doc).operations, 'adjust_stock');
    expect((adjust.input_schema.properties as Record<string, unknown>).delta).toEqual({
      type: 'integer',
      exclusiveMinimum: 0,
    });
  });
});

describe('approvalRequired', () => {
  const op = (required: boolean, when: HttpOperation['approval']['when']) => ({
    approval: { required, prompt: null, when },
  });

  it('is true when approval.required (or risk high, folded in by the compiler)', () => {
    expect(approvalRequired(op(true, []), {})).toBe(true);
    const adjust = byTool(compileSpec(validDoc()).operations, 'adjust_stock');
    expect(approvalRequired(adjust, { sku: 'A', dry_run: false, delta: 1, reason: 'x' })).toBe(true);
  });

  it('evaluates when rules over the arguments', () => {
    const update = byTool(compileSpec(validDoc()).operations, 'update_product');
    expect(approvalRequired(update, { product_id: 1, title: 'x', price: 50 })).toBe(false);
    expect(approvalRequired(update, { product_id: 1, title: 'x', price: 150 })).toBe(true);
    expect(approvalRequired(update, { product_id: 1, title: 'x' })).toBe(false);
  });

  it.each([
    [{ path: 'a', op: 'exists' }, { a: 0 }, true],
    [{ path: 'a', op: 'exists' }, {}, false],
    [{ path: '/a/b', op: 'eq', value: 'x' }, { a: { b: 'x' } }, true],
    [{ path: 'a.b', op: 'eq', value: 'x' }, { a: { b: 'y' } }, false],
    [{ path: 'a', op: 'neq', value: 1 }, { a: 2 }, true],
    [{ path: 'a', op: 'neq', value: 1 }, {}, false],
    [{ path: 'a', op: 'in', value: ['x', 'y'] }, { a: 'y' }, true],
    [{ path: 'a', op: 'in', value: ['x', 'y'] }, { a: 'z' }, false],
    [{ path: 'a', op: 'gte', value: 10 }, { a: 10 }, true],
    [{ path: 'a', op: 'lt', value: 10 }, { a: 10 }, false],
    [{ path: 'a', op: 'lte', value: 10 }, { a: 9 }, true],
    [{ path: 'a', op: 'gt', value: 10 }, { a: '11' }, false],
    [{ path: '/a/1', op: 'eq', value: 'q' }, { a: ['p', 'q'] }, true],
    [{ path: 'a', op: 'eq', value: { k: [1, 2] } }, { a: { k: [1, 2] } }, true],
  ] as const)('rule %j on %j -> %s', (rule, args, expected) => {
    expect(
      approvalRequired(
        op(false, [rule as HttpOperation['approval']['when'][number]]),
        args as Record<string, unknown>,
      ),
    ).toBe(expected);
  });
});
