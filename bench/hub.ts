/**
 * npm run bench:hub — latency and throughput of governed calls through the Hub versus the same
 * signed requests sent straight to the demo shop, at concurrency 1 and 16 on loopback.
 * Then the cost of running schema regular expressions on RE2 instead of the native engine, per
 * validation, on the demo's schemas. Figures are printed, never asserted. BENCH_CALLS sets calls
 * per case (default 400). The calls go
 * to the bench shop (shop A without a declared per-operation rate limit, bench/lib/bench-shop.ts).
 */
import { randomUUID } from 'node:crypto';
import { buildRequest, sendSigned } from '../src-hub/dispatch/index.js';
import { BENCH_SHOP } from './lib/bench-shop.js';
import { startBenchHub } from './lib/hub-env.js';
import { fmt, heading, summaryRow, SUMMARY_HEADERS, table } from './lib/print.js';
import { printRegexCost } from './lib/regex-cost.js';
import { runConcurrent, summarize, type Summary } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const CONCURRENCY = [1, 16];

const AUTH = BENCH_SHOP.authorization_ref;

const env = await startBenchHub();
try {
  // The bench shop is demo shop A without a declared rate limit (bench/lib/bench-shop.ts): the
  // demo's 60–120 calls/min per account would otherwise be enforced and the figures would be refusals.
  const shop = env.benchShop;
  const read = await env.declaration(AUTH, 'get_product');
  const write = await env.declaration(AUTH, 'update_product_content');
  const runId = await env.run(AUTH);
  const argsFor = (tool: 'get_product' | 'update_product_content') =>
    tool === 'get_product' ? { product_id: 42 } : { product_id: 42, description: `bench ${randomUUID()}` };

  const viaHub = (tool: 'get_product' | 'update_product_content', rev: string) => async () => {
    const r = await env.post('/agent/v1/invocations', {
      invocation_id: `bench_${randomUUID()}`,
      run_id: runId,
      authorization_ref: AUTH,
      tool,
      declaration_revision: rev,
      arguments: argsFor(tool),
      host_call_id: 'bench',
    });
    if (r.body.state !== 'succeeded') throw new Error(`governed ${tool}: ${JSON.stringify(r.body)}`);
  };
  const direct = (tool: 'get_product' | 'update_product_content') => {
    const op = (tool === 'get_product' ? read : write) as unknown as Parameters<typeof buildRequest>[0];
    const compiled = env.hub.store.currentOperation(BENCH_SHOP.system_id, tool);
    return async () => {
      const o = (await compiled)?.operation ?? op;
      const r = await sendSigned({
        baseUrl: shop.url,
        secret: shop.secret,
        request: buildRequest(o, argsFor(tool)),
        signedPath: 'operation',
        onBehalfOf: 'operator@demo.local',
        jobId: runId,
        idempotencyKey: `direct_${randomUUID()}`,
        timeoutMs: 10_000,
      });
      if (r.kind !== 'response' || r.status !== 200) throw new Error(`direct ${tool}: ${JSON.stringify(r)}`);
    };
  };

  const cases: Array<{ label: string; fn: () => () => Promise<void> }> = [
    { label: 'read via Hub', fn: () => viaHub('get_product', read.declaration_revision) },
    { label: 'read direct', fn: () => direct('get_product') },
    { label: 'write via Hub', fn: () => viaHub('update_product_content', write.declaration_revision) },
    { label: 'write direct', fn: () => direct('update_product_content') },
  ];
  const results = new Map<string, Summary>();
  for (const c of cases) {
    const fn = c.fn();
    await runConcurrent(20, 4, fn); // warm-up
    for (const conc of CONCURRENCY) {
      const { samples, wallMs } = await runConcurrent(CALLS, conc, fn);
      results.set(`${c.label}@${conc}`, summarize(samples, wallMs));
    }
  }

  heading('Governed calls through the Hub vs straight to the demo shop (loopback)');
  console.log(`calls per case: ${CALLS}; Hub store: ${env.hub.store.durability}`);
  console.log(
    'business system: demo shop A data and operations, spec without execution.rate_limit (system bench-shop)',
  );
  const rows: Array<Array<string | number>> = [];
  for (const c of cases)
    for (const conc of CONCURRENCY) rows.push(summaryRow(c.label, conc, results.get(`${c.label}@${conc}`)!));
  console.log(table(SUMMARY_HEADERS, rows));

  heading('Hub overhead (Hub / direct)');
  const ratioRows: Array<Array<string | number>> = [];
  for (const kind of ['read', 'write']) {
    for (const conc of CONCURRENCY) {
      const h = results.get(`${kind} via Hub@${conc}`)!;
      const d = results.get(`${kind} direct@${conc}`)!;
      ratioRows.push([
        kind,
        String(conc),
        `${fmt(h.p50_ms / d.p50_ms)}x`,
        `${fmt(h.p99_ms / d.p99_ms)}x`,
        `${fmt(d.per_s / h.per_s)}x`,
      ]);
    }
  }
  console.log(table(['call', 'conc', 'p50 ratio', 'p99 ratio', 'throughput cost'], ratioRows));
  console.log(`\nbusiness writes in the shop ledger: ${shop.ledger().length}`);

  await printRegexCost(env.hub.store);
} finally {
  await env.close();
}
