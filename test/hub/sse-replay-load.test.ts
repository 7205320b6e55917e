// 200 subscribers of one client replay a 10,000-event history at once (no Last-Event-ID). The Hub
// runs as a child process: its peak RSS growth comes from the kernel's high-water mark, /health is
// probed from a third process (p99 under 100 ms beyond what the same probe sees on the idle Hub
// just before and on an idle control server during the replay, so a machine busy with other work
// does not count as the Hub's latency), and every
// subscriber must receive the complete history in order. It runs on both stores (SQLite, and
// PostgreSQL in the hub-postgres project): the history is seeded straight into the test's store.
import { request, type IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { spawnHub, type HubChild } from './child.js';
import { demoConfig, http, newInvocationId, token } from './helpers.js';
import { seedStoredEvents, sqlRows } from './store-mode.js';
import { favour, percentile, rssGrowth, startControlledProbe, startHealthProbe } from './probe.js';

const SUBSCRIBERS = 200;
const HISTORY = 10_000;
const MiB = 1024 * 1024;

let demo: DemoSystems;
let hub: HubChild;
let dataDir: string;
const desk = token('desk');

beforeAll(async () => {
  demo = await startDemoSystems();
  dataDir = mkdtempSync(join(tmpdir(), 'hub-sse-load-'));
  hub = await spawnHub(dataDir, {
    ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
    sse_max_streams_per_client: SUBSCRIBERS + 8,
    // 200 streams opened at once are this test's load, not abuse
    rate_limits: { agent: null },
  });
  // one real call gives real receipts; the history is made of copies of them
  const search = await http(hub.url, 'POST', '/agent/v1/tools/search', {
    token: desk,
    body: { query: 'update_product_content', authorization_refs: ['auth-shop-a'] },
  });
  const run = await http(hub.url, 'POST', '/agent/v1/runs', {
    token: desk,
    body: { agent_session_id: 's', turn_id: 't', authorization_ref: 'auth-shop-a' },
  });
  const invoked = await http(hub.url, 'POST', '/agent/v1/invocations', {
    token: desk,
    body: {
      invocation_id: newInvocationId(),
      run_id: run.body.run_id,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: search.body.declarations[0].declaration_revision,
      arguments: { product_id: 42, description: 'history' },
      host_call_id: 'h',
    },
  });
  expect(invoked.body.state).toBe('succeeded');
  // copies of the real events, each in a share of the history (one insert per kind of event)
  const real = sqlRows<{ type: string; payload_json: string }>(
    dataDir,
    'SELECT type, payload_json FROM events WHERE client_id = ? ORDER BY seq',
    ['desk'],
  );
  const at = new Date().toISOString();
  const missing = HISTORY - real.length;
  real.forEach((e, i) => {
    const share = Math.floor(missing / real.length) + (i < missing % real.length ? 1 : 0);
    seedStoredEvents(dataDir, 'desk', share, e.type, e.payload_json, at);
  });
}, 120_000);
afterAll(async () => {
  await hub?.kill('SIGTERM');
  await demo?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Subscriber {
  /** Resolves with how many events arrived, in order, up to `lastSeq`. */
  done: Promise<{ count: number; inOrder: boolean; first: number; last: number }>;
  close(): void;
}

/**
 * An SSE reader that only follows `id:` lines, cheaply enough to run 200 in one process: it scans
 * each chunk in place (no copies) and joins only a few bytes across chunk boundaries.
 */
function subscribe(lastSeq: number): Subscriber {
  let res: IncomingMessage | null = null;
  const needle = Buffer.from('\nid: ');
  const TAIL = 40;
  const req = request(`${hub.url}/agent/v1/events`, {
    headers: { authorization: `Bearer ${desk}` },
    agent: false,
  });
  const done = new Promise<{ count: number; inOrder: boolean; first: number; last: number }>(
    (resolve, reject) => {
      let count = 0;
      let inOrder = true;
      let first = -1;
      let previous = 0;
      let offset = 0; // stream offset of the current chunk
      let counted = -1; // stream offset of the last id line counted
      let tail = Buffer.alloc(0);
      let tailAt = 0;
      const take = (buf: Buffer, base: number, onlyBefore: number) => {
        let at = buf.indexOf(needle);
        while (at >= 0 && at < onlyBefore) {
          const end = buf.indexOf(0x0a, at + needle.length);
          if (end < 0) return;
          if (base + at > counted) {
            const seq = Number(buf.toString('latin1', at + needle.length, end));
            if (first < 0) first = seq;
            if (seq <= previous) inOrder = false;
            previous = seq;
            count += 1;
            counted = base + at;
          }
          at = buf.indexOf(needle, end);
        }
      };
      req.on('error', reject);
      req.on('response', (r) => {
        res = r;
        if (r.statusCode !== 200) return reject(new Error(`status ${r.statusCode}`));
        r.on('data', (chunk: Buffer) => {
          // an id line cut by the chunk boundary: the old tail and the start of this chunk
          if (tail.length > 0) take(Buffer.concat([tail, chunk.subarray(0, TAIL)]), tailAt, tail.length);
          take(chunk, offset, chunk.length);
          // the last TAIL bytes of the stream so far (a chunk shorter than that extends the old tail)
          tail = Buffer.from(
            chunk.length >= TAIL
              ? chunk.subarray(chunk.length - TAIL)
              : Buffer.concat([tail, chunk]).subarray(-TAIL),
          );
          tailAt = offset + chunk.length - tail.length;
          offset += chunk.length;
          if (previous >= lastSeq) resolve({ count, inOrder, first, last: previous });
        });
        r.on('error', reject);
      });
      req.end();
    },
  );
  return {
    done,
    close() {
      res?.destroy();
      req.destroy();
    },
  };
}

describe('SSE replay under load', () => {
  it(`${SUBSCRIBERS} full-history replays of ${HISTORY} events: RSS growth under 256 MiB, /health p99 under 100 ms, every subscriber gets everything in order`, async () => {
    const [stored] = sqlRows<{ last: number | string; total: number | string }>(
      dataDir,
      'SELECT MAX(seq) AS last, COUNT(*) AS total FROM events WHERE client_id = ?',
      ['desk'],
    );
    // PostgreSQL's bigint aggregates arrive as JSON numbers or strings
    const last = Number(stored?.last);
    expect(Number(stored?.total)).toBe(HISTORY);

    // warm up (JIT, SQLite page cache) with one full replay, then measure from rest
    const warm = subscribe(last);
    expect((await warm.done).count).toBe(HISTORY);
    warm.close();
    await new Promise((r) => setTimeout(r, 500));

    favour(hub.proc.pid!);
    // what this machine's own load does to /health on an idle Hub, measured just before: the
    // Hub's part of the latency during the replay is what comes on top of it
    const idle = await startHealthProbe(hub.url, 10);
    await new Promise((r) => setTimeout(r, 2_000));
    const baseline = percentile((await idle.stop()).latencies, 99);

    const rss = rssGrowth(hub.proc.pid!);
    rss.start();
    const probe = await startControlledProbe(hub.url, 10);
    const t0 = performance.now();
    const subscribers = Array.from({ length: SUBSCRIBERS }, () => subscribe(last));
    let results: Array<{ count: number; inOrder: boolean; first: number; last: number }>;
    try {
      results = await Promise.all(subscribers.map((s) => s.done));
    } finally {
      for (const s of subscribers) s.close();
    }
    const seconds = (performance.now() - t0) / 1000;
    const { latencies, failures, control } = await probe.stop();
    // an idle server in its own process, probed over the same interval: the machine's share
    const during = percentile(control, 99);
    const growth = rss.growth();
    console.log(
      `SSE replay: ${SUBSCRIBERS} × ${HISTORY} events in ${seconds.toFixed(1)} s; Hub RSS +${(growth / MiB).toFixed(1)} MiB; /health p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms over ${latencies.length} probes (idle Hub before: p99 ${baseline.toFixed(1)} ms; idle control server during: p99 ${during.toFixed(1)} ms)`,
    );
    for (const r of results) {
      expect(r).toEqual({ count: HISTORY, inOrder: true, first: expect.any(Number), last });
    }
    expect(failures).toBe(0);
    expect(latencies.length).toBeGreaterThan(50);
    // under 100 ms on a quiet machine; on a busy one, under 100 ms more than what the machine's
    // other work does to an idle server (the idle Hub before, the control server during)
    expect(percentile(latencies, 99)).toBeLessThan(100 + Math.max(baseline, during));
    expect(growth).toBeLessThan(256 * MiB);
  });
});
