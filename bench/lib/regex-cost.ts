/**
 * The cost of running schema regular expressions on RE2 (linear time, what the Hub and the desk
 * do) instead of JavaScript's backtracking engine, per validation, on the demo's own schemas (the
 * compiled input schema of every demo operation, with valid arguments) and on the Hub's invoke
 * request body; plus one pathological pattern to show what the native engine costs there.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { z } from 'zod';
import { InvokeRequestSchema } from '../../src-shared/hub-api.js';
import { addRe2RegexFormat, re2Engine } from '../../src-shared/schema-safety.js';
import { bodySchema } from '../../src-hub/http/schemas.js';
import type { HubStore } from '../../src-hub/store/types.js';
import { fmt, heading, table } from './print.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Valid arguments for each demo operation. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  get_product: { product_id: 42 },
  list_products: { status: 'published', limit: 20 },
  publish_listing: { product_id: 42, channel: 'web' },
  update_product: { product_id: 42, description: 'Hand-thrown stoneware mug, 350 ml.', price: 24.5 },
  update_product_content: { product_id: 42, description: 'Hand-thrown stoneware mug, 350 ml.' },
  adjust_stock: { sku: 'MUG-STONE-350', delta: -2, reason: 'two sold at the market' },
  find_sku: { shop: 'shop-a', product_id: 42 },
  get_stock: { sku: 'MUG-STONE-350' },
};

function engines(): { native: Ajv; re2: Ajv } {
  const native = new Ajv({ strict: false, allErrors: true });
  addFormats(native);
  const re2 = new Ajv({ strict: false, allErrors: true, code: { regExp: re2Engine } });
  addFormats(re2);
  addRe2RegexFormat(re2);
  return { native, re2 };
}

/**
 * Median microseconds per validation of two validators, measured in alternating batches (so the
 * machine's noise falls on both alike), after a warm-up.
 */
function perValidation(a: ValidateFunction, b: ValidateFunction, data: unknown, batch = 2_000, rounds = 101) {
  for (let i = 0; i < batch * 5; i++) {
    a(data);
    b(data);
  }
  const timeBatch = (fn: ValidateFunction) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) fn(data);
    return Number(process.hrtime.bigint() - t0) / 1e3 / batch;
  };
  const ta: number[] = [];
  const tb: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ta.push(timeBatch(a));
    tb.push(timeBatch(b));
  }
  const median = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)] as number;
  return { a: median(ta), b: median(tb) };
}

export async function printRegexCost(store: HubStore): Promise<void> {
  const { native, re2 } = engines();
  const rows: Array<Array<string | number>> = [];
  const add = (label: string, schema: Record<string, unknown>, data: unknown, patterns: number) => {
    const { a: n, b: r } = perValidation(native.compile(schema), re2.compile(schema), data);
    rows.push([label, String(patterns), fmt(n, 3), fmt(r, 3), `${fmt(r / n)}x`]);
  };
  const countPatterns = (schema: unknown) => (JSON.stringify(schema).match(/"pattern"/g) ?? []).length;
  for (const op of await store.currentOperations(['shop-a', 'inventory'])) {
    const data = SAMPLES[op.tool];
    if (!data) continue;
    add(
      `${op.system_id} ${op.tool}`,
      op.operation.input_schema,
      data,
      countPatterns(op.operation.input_schema),
    );
  }
  const invoke = bodySchema(InvokeRequestSchema);
  add(
    'Hub invoke request body',
    invoke,
    {
      invocation_id: 'inv_6f1c0a57-3d53-4a6f-9a1b-2f0d3a5f0c11',
      run_id: 'run_1',
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: 'r',
      arguments: SAMPLES.update_product_content,
      host_call_id: 'call-1',
    },
    countPatterns(invoke),
  );
  const expires = z.toJSONSchema(z.object({ expires_at: z.iso.datetime({ offset: true }) })) as Record<
    string,
    unknown
  >;
  delete expires.$schema;
  add('task expires_at (date-time pattern)', expires, { expires_at: '2028-02-29T12:00:00+08:00' }, 1);

  heading('Schema regular expressions: RE2 (linear time) vs the native engine, per validation');
  console.log(
    'valid arguments for every demo operation; median of 101 alternating batches of 2,000 validations',
  );
  console.log(table(['schema', 'patterns', 'native p50 µs', 'RE2 p50 µs', 'RE2 / native'], rows));

  // what the linear-time engine is for: one pathological pattern, growing input
  const evil = { type: 'string', pattern: '^(a|a)+$' };
  const nativeEvil = native.compile(evil);
  const re2Evil = re2.compile(evil);
  const evilRows: Array<Array<string | number>> = [];
  for (const n of [16, 20, 22]) {
    const input = `${'a'.repeat(n)}!`;
    const t0 = process.hrtime.bigint();
    nativeEvil(input);
    const nativeMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const t1 = process.hrtime.bigint();
    re2Evil(input);
    const re2Ms = Number(process.hrtime.bigint() - t1) / 1e6;
    evilRows.push([`^(a|a)+$ on ${n} × "a" + "!"`, fmt(nativeMs, 3), fmt(re2Ms, 3)]);
  }
  console.log(table(['pathological case', 'native ms', 'RE2 ms'], evilRows));
  console.log(
    '(native time doubles with every further "a": 27 of them blocked the event loop for about 20 s)',
  );
}
