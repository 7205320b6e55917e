// Form generation from JSON Schema, task boundary building, and language parity.
import { describe, expect, it } from 'vitest';
import { en } from '../../src-renderer/src/i18n/en.js';
import { stateLabel } from '../../src-renderer/src/i18n/index.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { buildArguments, fieldsOf } from '../../src-renderer/src/logic/schema-form.js';
import {
  descriptionOnlySchema,
  keyFieldOf,
  parseProductIds,
  ruleSchema,
  ruleWords,
  taskRequestFrom,
  type ToolRule,
} from '../../src-renderer/src/logic/task-boundary.js';
import { INVOCATION_STATES, INVOCATION_STATE_LABELS } from '../../src-shared/states.js';

describe('schema form', () => {
  const schema = {
    type: 'object',
    properties: {
      product_id: { type: 'integer', description: 'Product' },
      description: { type: 'string' },
      price: { type: 'number' },
      status: { type: 'string', enum: ['draft', 'live'] },
      publish: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['product_id', 'description'],
  };
  it('generates one field per property with its kind', () => {
    const f = fieldsOf(schema);
    expect(f.map((x) => [x.name, x.kind, x.required])).toEqual([
      ['product_id', 'integer', true],
      ['description', 'string', true],
      ['price', 'number', false],
      ['status', 'enum', false],
      ['publish', 'boolean', false],
      ['tags', 'json', false],
    ]);
  });
  it('builds typed arguments and reports the first problem', () => {
    const f = fieldsOf(schema);
    expect(
      buildArguments(f, { product_id: '42', description: ' New text ', tags: '["a"]', publish: true }),
    ).toEqual({
      ok: true,
      args: { product_id: 42, description: 'New text', tags: ['a'], publish: true },
    });
    expect(buildArguments(f, { product_id: '42' })).toEqual({
      ok: false,
      field: 'description',
      problem: 'required',
    });
    expect(buildArguments(f, { product_id: '4.2', description: 'x' })).toEqual({
      ok: false,
      field: 'product_id',
      problem: 'not_a_number',
    });
    expect(buildArguments(f, { product_id: '1', description: 'x', tags: '[oops' })).toEqual({
      ok: false,
      field: 'tags',
      problem: 'invalid_json',
    });
  });
});

describe('task boundary', () => {
  it("turns a write tool's rule (only some key values, only some fields) into a JSON Schema constraint for the tools chosen", () => {
    const rule = (tool: string): ToolRule => ({
      tool,
      keyField: 'product_id',
      keyValues: parseProductIds('41, 42，43'),
      onlyFields: ['description'],
    });
    const req = taskRequestFrom({
      title: ' Campaign ',
      selection: [
        {
          authorization_ref: 'auth-shop-a',
          tools: ['update_product', 'get_product'],
          rules: [rule('update_product'), rule('update_product_content')],
        },
        { authorization_ref: 'auth-inventory', tools: ['get_stock'] },
        { authorization_ref: 'auth-shop-b', tools: [], rules: [rule('update_product')] },
      ],
      writeBudget: 6,
      inFlight: 2,
      rate: { count: 30, window: '1m' },
    });
    expect(req.title).toBe('Campaign');
    expect(req.authorizations).toEqual([
      { authorization_ref: 'auth-shop-a', tools: ['update_product', 'get_product'] },
      { authorization_ref: 'auth-inventory', tools: ['get_stock'] },
    ]);
    // Only the rule of a chosen tool of a chosen system becomes a constraint.
    expect(req.constraints).toEqual([
      {
        authorization_ref: 'auth-shop-a',
        tool: 'update_product',
        schema: descriptionOnlySchema(['41', '42', '43']),
        description: 'only product_id 41, 42, 43; may change only description',
      },
    ]);
    expect(descriptionOnlySchema(['42'])).toMatchObject({
      properties: { product_id: { enum: [42] } },
      required: ['product_id'],
      propertyNames: { enum: ['product_id', 'description'] },
    });
    // A rule that limits nothing is no constraint; one that limits only fields names the key too.
    expect(ruleSchema({ tool: 'x', keyField: 'product_id', keyValues: [], onlyFields: null })).toBeNull();
    expect(ruleSchema({ tool: 'x', keyField: 'product_id', keyValues: [], onlyFields: ['title'] })).toEqual({
      type: 'object',
      propertyNames: { enum: ['product_id', 'title'] },
    });
    expect(keyFieldOf(['description', 'product_id', 'price'])).toBe('product_id');
    expect(keyFieldOf(['note'])).toBeNull();
    // Read back for the boundary, in words built from the schema.
    expect(ruleWords(descriptionOnlySchema(['7', '13']))).toEqual([
      { kind: 'values', field: 'product_id', values: '7, 13' },
      { kind: 'fields', fields: 'description' },
    ]);
    expect(ruleWords({ type: 'object', properties: { price: { maximum: 10 } } })).toBeNull();
  });
});

describe('languages', () => {
  it('Simplified Chinese has every English key, and no empty text', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    for (const v of Object.values(zh)) expect(v.length).toBeGreaterThan(0);
  });
  it('uses the state labels of docs/design.md in English and has a label for every state in Chinese', () => {
    for (const s of INVOCATION_STATES) {
      expect(stateLabel(s, 'en')).toBe(INVOCATION_STATE_LABELS[s]);
      expect(stateLabel(s, 'zh')).not.toBe(s);
    }
  });
});
