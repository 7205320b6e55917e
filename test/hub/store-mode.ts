/**
 * Which store the Hub tests run against: SQLite (project "node") or PostgreSQL (project
 * "hub-postgres", BAILING_TEST_STORE=postgres). In PostgreSQL mode every data directory a test
 * uses gets its own database in the run's private cluster, so a restart on the same data directory
 * finds the same database, and `sqlRows` reads it through psql (synchronously, like SQLite).
 */
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { describe, inject } from 'vitest';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import type { HubStore } from '../../src-hub/store/types.js';

/**
 * The secret key of the Hubs the tests run on PostgreSQL (every instance sharing a database needs
 * the same one; a SQLite Hub makes its own key file). Test-only: never a real key.
 */
export const TEST_SECRET_KEY = 'dGVzdC1vbmx5LWh1Yi1zZWNyZXQta2V5LTAxMjM0NTY';

export const storeMode: 'sqlite' | 'postgres' =
  process.env.BAILING_TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** The private cluster (null in SQLite mode, or when PostgreSQL could not start: then `reason`). */
export function postgresCluster(): { url: string; binDir: string } | null {
  const p = inject('postgres');
  return p.url && p.binDir ? { url: p.url, binDir: p.binDir } : null;
}

/**
 * A describe block that needs the run's private PostgreSQL. Skipped, with the reason in its title,
 * only where no cluster was provided: a bare `npx vitest` on a machine without PostgreSQL's
 * binaries. Under `npm test` a cluster that does not start fails the run before any file
 * (BAILING_TEST_REQUIRE_POSTGRES, test/setup/postgres.ts), so this never skips there.
 */
export function describeOnPostgres(title: string, body: () => void): void {
  const available = postgresCluster() !== null;
  describe.skipIf(!available)(
    available ? title : `${title} (skipped: PostgreSQL is not available here: ${inject('postgres').reason})`,
    body,
  );
}

/** A fresh, empty database in the run's private cluster. */
export async function createTestDatabase(): Promise<string> {
  const cluster = postgresCluster();
  if (!cluster) throw new Error(`PostgreSQL is not available: ${inject('postgres').reason}`);
  const name = `hub_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

const databases = new Map<string, string>();

/** The store options of a test's data directory: itself (SQLite), or its own database (PostgreSQL). */
export async function storeFor(dataDir: string): Promise<{ dataDir: string; storeUrl?: string }> {
  if (storeMode === 'sqlite') return { dataDir };
  let url = databases.get(dataDir);
  if (!url) databases.set(dataDir, (url = await createTestDatabase()));
  return { dataDir, storeUrl: url };
}

/** Command-line flags for a Hub child process on that data directory's store (a stable instance name per directory). */
export async function storeArgsFor(dataDir: string): Promise<string[]> {
  const s = await storeFor(dataDir);
  return s.storeUrl ? ['--store', s.storeUrl, '--instance', 'test-hub'] : ['--data', dataDir];
}

const literal = (v: unknown): string => {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  return `'${String(v).replace(/'/g, "''")}'`;
};

/** Rows of a read-only query (`?` placeholders) against the test's store, for assertions about rows no route exposes. */
export function sqlRows<T = unknown>(dataDir: string, query: string, params: unknown[]): T[] {
  const url = databases.get(dataDir);
  if (storeMode === 'sqlite' || !url) {
    const db = new Database(join(dataDir, 'hub.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(query).all(...params) as T[];
    } finally {
      db.close();
    }
  }
  let i = 0;
  const text = query.replace(/\?/g, () => literal(params[i++]));
  const cluster = postgresCluster()!;
  const r = spawnSync(
    join(cluster.binDir, 'psql'),
    [
      '-X',
      '-q',
      '-A',
      '-t',
      '-v',
      'ON_ERROR_STOP=1',
      url,
      '-c',
      `SELECT COALESCE(json_agg(q), '[]') FROM (${text}) q`,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`);
  return JSON.parse(r.stdout) as T[];
}

/** Appends `count` copies of an event in one transaction, straight into the store (a long history, fast). */
export function seedStoredEvents(
  dataDir: string,
  clientId: string,
  count: number,
  type: string,
  payloadJson: string,
  at: string,
): void {
  const url = databases.get(dataDir);
  if (storeMode === 'sqlite' || !url) {
    const db = new Database(join(dataDir, 'hub.sqlite'));
    try {
      db.pragma('busy_timeout = 5000');
      const insert = db.prepare('INSERT INTO events (client_id, type, payload_json, at) VALUES (?, ?, ?, ?)');
      db.transaction(() => {
        for (let i = 0; i < count; i++) insert.run(clientId, type, payloadJson, at);
      })();
    } finally {
      db.close();
    }
    return;
  }
  // PostgreSQL: take `count` seqs from the event counter in the same transaction (what the sequencer does)
  const statement = `WITH c AS (UPDATE event_counter SET last_seq = last_seq + ${count} WHERE id = 1 RETURNING last_seq - ${count} AS base)
    INSERT INTO events (seq, client_id, type, payload_json, at)
    SELECT c.base + g, ${literal(clientId)}, ${literal(type)}, ${literal(payloadJson)}, ${literal(at)} FROM c, generate_series(1, ${count}) g`;
  const r = spawnSync(
    join(postgresCluster()!.binDir, 'psql'),
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', url, '-c', statement],
    {
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`psql: ${r.stderr}`);
}

/** The operator CLI's store flags for that data directory (no instance: the CLI never dispatches). */
export async function cliStoreArgsFor(dataDir: string): Promise<string[]> {
  const s = await storeFor(dataDir);
  return s.storeUrl ? ['--store', s.storeUrl] : ['--data', dataDir];
}

/** Opens that data directory's store directly (the same file or database a Hub of the test uses). */
export async function openStoreFor(dataDir: string): Promise<HubStore> {
  const s = await storeFor(dataDir);
  return s.storeUrl ? openPostgresStore({ url: s.storeUrl }) : createSqliteStore({ dataDir });
}
