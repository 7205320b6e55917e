// The budget on schema size and depth (src-shared/schema-safety.ts): a task constraint schema
// nested too deep or too large is refused at task creation with the budget's code in a worded
// reason and nothing stored; a business system's operation whose compiled input schema is past
// the declaration budget is left out with a coded diagnostic while the others compile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSpec } from '../../src-hub/acc/index.js';
import { CONSTRAINT_SCHEMA_BUDGET, DECLARATION_SCHEMA_BUDGET } from '../../src-shared/schema-safety.js';
import { HubErrorBodySchema } from '../../src-shared/hub-api.js';
import { validDoc } from './acc/fixtures.js';
import { startEnv, type HubEnv } from './helpers.js';

/** `{not: {not: … {type: 'string'}}}`: `levels` objects deep. */
const nestedNot = (levels: number): Record<string, unknown> => {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 1; i < levels; i++) s = { not: s };
  return s;
};
/** An object schema with `n` string properties (n + 2 objects). */
const wide = (n: number) => ({
  type: 'object',
  properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }])),
});

describe('constraint schemas past their budget', () => {
  let env: HubEnv;
  beforeAll(async () => {
    env = await startEnv();
  });
  afterAll(async () => {
    await env.close();
  });

  const createWith = (schema: unknown) =>
    env.agent('POST', '/agent/v1/tasks', {
      title: 'budget',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 1,
      in_flight_limit: 1,
      constraints: [
        {
          authorization_ref: 'auth-shop-a',
          tool: 'update_product_content',
          schema: { properties: { description: schema } },
          description: null,
        },
      ],
    });

  it('too deep or too large: 400 with the budget code and reason, nothing stored; at the bound it is accepted', async () => {
    const before = (await env.agent('GET', '/agent/v1/tasks')).body.tasks.length as number;
    const { maxDepth, maxNodes } = CONSTRAINT_SCHEMA_BUDGET;
    for (const [schema, code] of [
      [nestedNot(maxDepth + 2), 'schema_too_deep'],
      [wide(maxNodes + 10), 'schema_too_large'],
    ] as const) {
      const r = await createWith(schema);
      expect(r.status).toBe(400);
      const body = HubErrorBodySchema.parse(r.body);
      expect(body.error).toBe('invalid_request');
      expect(body.message).toContain(`constraint 0 is refused (${code})`);
    }
    expect((await env.agent('GET', '/agent/v1/tasks')).body.tasks).toHaveLength(before);
    // two levels (the constraint's own object and `properties`) sit above the property's schema
    const ok = await createWith(nestedNot(maxDepth - 2));
    expect(ok.status).toBe(201);
  });
});

describe('declarations past their budget', () => {
  it('an operation whose input schema nests too deep or is too large is left out with a coded diagnostic; the others compile', () => {
    for (const [schema, code] of [
      [nestedNot(DECLARATION_SCHEMA_BUDGET.maxDepth + 2), 'schema_too_deep'],
      [wide(DECLARATION_SCHEMA_BUDGET.maxNodes + 10), 'schema_too_large'],
    ] as const) {
      const doc = validDoc();
      doc.paths['/stock/{sku}/adjustments'].post.requestBody = {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', properties: { detail: schema }, required: ['detail'] },
          },
        },
      };
      const r = compileSpec(doc);
      expect(r.diagnostics).toEqual([{ code, operation: 'adjust_stock', message: expect.any(String) }]);
      expect(r.operations.map((o) => o.tool).sort()).toEqual(['get_product', 'update_product']);
    }
  });
});
