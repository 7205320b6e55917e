/**
 * npx tsx bench/hub-client-conn.ts
 *
 * The cost of sending every Hub client write on a fresh connection of its own (the client's
 * transport: never a pooled keep-alive connection, see src-main/hub-client/transport.ts) against
 * sending it on the built-in fetch's keep-alive pool (an injected plain fetch). Same in-process
 * Hub, same calls, the two transports alternated in rounds: a governed write (invoke
 * update_product_content on the bench shop) — Hub, SQLite, signed business call — the request the
 * transport exists for. (The tool search, a POST that changes nothing, is pooled by the client.)
 * Loopback only: over a real network a fresh connection also pays a round trip (and TLS, if any).
 * Prints a table and JSON; asserts nothing.
 */
import { createHubClient, type HubClient } from '../src-main/hub-client/index.js';
import { startBenchHub } from './lib/hub-env.js';
import { BENCH_SHOP } from './lib/bench-shop.js';
import { benchIdsLabel, benchInvocationId } from './lib/invocation-ids.js';
import { heading, summaryRow, SUMMARY_HEADERS, table } from './lib/print.js';
import { runConcurrent, summarize, type Summary } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 400);
const ROUNDS = 4;

const env = await startBenchHub();
try {
  const fresh = createHubClient({ baseUrl: env.hub.url, token: env.token });
  const pooled = createHubClient({
    baseUrl: env.hub.url,
    token: env.token,
    fetch: (i, init) => fetch(i, init),
  });
  const decl = await env.declaration(BENCH_SHOP.authorization_ref, 'update_product_content');
  const runId = await env.run(BENCH_SHOP.authorization_ref);

  const write = (c: HubClient) => async (i: number) => {
    const r = await c.invoke({
      invocation_id: benchInvocationId(),
      run_id: runId,
      authorization_ref: BENCH_SHOP.authorization_ref,
      tool: 'update_product_content',
      declaration_revision: decl.declaration_revision,
      arguments: { product_id: 42, description: `bench ${i}` },
      host_call_id: `hc-${i}`,
    });
    if (r.state !== 'succeeded') throw new Error(`write ended ${r.state}`);
  };

  const rows: Array<Array<string | number>> = [];
  const results: Record<string, Summary> = {};
  for (const [label, make] of [['governed write', write]] as const) {
    for (const conc of [1, 8]) {
      const samples = { pooled: [] as number[], fresh: [] as number[] };
      const wall = { pooled: 0, fresh: 0 };
      await runConcurrent(20, conc, make(pooled)); // warm-up
      await runConcurrent(20, conc, make(fresh));
      for (let round = 0; round < ROUNDS; round++) {
        for (const kind of round % 2 === 0
          ? (['pooled', 'fresh'] as const)
          : (['fresh', 'pooled'] as const)) {
          const r = await runConcurrent(CALLS / ROUNDS, conc, make(kind === 'pooled' ? pooled : fresh));
          samples[kind].push(...r.samples);
          wall[kind] += r.wallMs;
        }
      }
      for (const kind of ['pooled', 'fresh'] as const) {
        const s = summarize(samples[kind], wall[kind]);
        results[`${label} ${kind} c${conc}`] = s;
        rows.push(
          summaryRow(`${label}, ${kind === 'pooled' ? 'keep-alive pool' : 'fresh connection'}`, conc, s),
        );
      }
    }
  }
  heading(`Hub client writes: fresh connection per POST vs keep-alive pool (loopback; ${benchIdsLabel()})`);
  console.log(table(SUMMARY_HEADERS, rows));
  console.log(JSON.stringify({ bench: 'hub-client-conn', calls_per_case: CALLS, results }));
} finally {
  await env.close();
}
