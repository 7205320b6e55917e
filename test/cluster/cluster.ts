/**
 * Several Hub processes on one PostgreSQL database (a fresh database in the run's private cluster),
 * named hub-1..hub-N, with short leases so lease expiry happens within a test.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import pg from 'pg';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import type { HubConfig } from '../../src-hub/index.js';
import { demoConfig, token } from '../hub/helpers.js';
import { createTestDatabase } from '../hub/store-mode.js';
import { spawnHubProcess, type HubProcess } from './hub-process.js';

export interface Cluster {
  demo: DemoSystems;
  storeUrl: string;
  desk: string;
  adminToken: string;
  config: HubConfig & { lease_ms: number };
  hubs: HubProcess[];
  /** Starts (or restarts) instance hub-`n` (1-based). */
  start(n: number): Promise<HubProcess>;
  /** Rows of a query against the shared database. */
  sql<T>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startCluster(count: number, leaseMs: number): Promise<Cluster> {
  const demo = await startDemoSystems();
  const storeUrl = await createTestDatabase();
  const workDir = mkdtempSync(join(tmpdir(), 'hub-cluster-'));
  const desk = token('desk');
  const adminToken = `admin-${randomUUID()}`;
  const config = {
    ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
    admin_token: adminToken,
    lease_ms: leaseMs,
    // Hundreds of workers retrying refused calls at once are these tests' load, not abuse: a client's
    // request rate limit (tested in test/hub/rate-limits.test.ts) would answer 429 instead of the
    // permit decisions the tests count.
    rate_limits: { agent: null },
  };
  const db = new pg.Pool({ connectionString: storeUrl, max: 2 });
  const cluster: Cluster = {
    demo,
    storeUrl,
    desk,
    adminToken,
    config,
    hubs: [],
    async start(n) {
      const hub = await spawnHubProcess(
        workDir,
        `hub-${n}`,
        ['--store', storeUrl, '--instance', `hub-${n}`],
        config,
      );
      cluster.hubs[n - 1] = hub;
      return hub;
    },
    async sql<T>(text: string, params: unknown[] = []) {
      return (await db.query(text, params)).rows as T[];
    },
    async close() {
      await Promise.all(cluster.hubs.map((h) => h?.kill('SIGKILL')));
      await db.end();
      await demo.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
  // all instances start together: one migrates, each applies the same config
  await Promise.all(Array.from({ length: count }, (_, i) => cluster.start(i + 1)));
  return cluster;
}

/** A JSON POST/GET over a keep-alive agent (many concurrent client connections). */
export function call(
  agent: Agent,
  url: string,
  tok: string,
  method: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw JSON answers, checked by each test
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${tok}`,
          ...(data !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
