/**
 * What bench:hub and bench:tasks share: the bench shop (in this process), a private PostgreSQL
 * cluster, the load generator (its own process), the durability floors measured in the same run,
 * and the three Hub setups each case runs on — SQLite with group commit, PostgreSQL with one
 * instance, PostgreSQL with three instances (Hub processes of their own).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { DemoSystemHandle } from '../../demo/types.js';
import type { CompiledOperation } from '../../src-hub/acc/types.js';
import { startPrivatePostgres, type PrivatePostgres } from '../../scripts/private-postgres.js';
import { benchShopOperations, startBenchShop } from './bench-shop.js';
import { measureFsync, measurePostgresTransaction, measureSqliteTransaction } from './floors.js';
import { startHubs, type BenchHubs } from './hub-processes.js';
import { startLoadGenerator, type LoadGenerator } from './loadgen-client.js';
import { fmt, heading, table } from './print.js';
import type { Summary } from './stats.js';

export type SetupName = 'SQLite, group commit' | 'PostgreSQL, 1 instance' | 'PostgreSQL, 3 instances';

export interface Floors {
  fsync: Summary;
  sqliteTx: Summary;
  pgTx1: Summary | null;
  pgTx16: Summary | null;
}

export interface BenchRun {
  shop: DemoSystemHandle;
  loadgen: LoadGenerator;
  floors: Floors;
  operations: Record<'get_product' | 'update_product_content', CompiledOperation>;
  /** The setups this machine can run (PostgreSQL ones only where its binaries are installed). */
  setups: SetupName[];
  postgresMissing: string | null;
  /** Starts a setup's Hubs on a fresh store. */
  startSetup(name: SetupName): Promise<BenchHubs>;
  close(): Promise<void>;
}

/**
 * BENCH_SETUPS narrows the setups to those whose name contains one of its comma-separated words
 * (case-insensitive), e.g. `BENCH_SETUPS=sqlite` or `BENCH_SETUPS=postgres`; unset runs them all.
 */
function chosenSetups(available: SetupName[]): SetupName[] {
  const words = (process.env.BENCH_SETUPS ?? '')
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter(Boolean);
  if (words.length === 0) return available;
  return available.filter((s) => words.some((w) => s.toLowerCase().includes(w)));
}

export async function startBenchRun(): Promise<BenchRun> {
  const shop = await startBenchShop(randomBytes(24).toString('hex'));
  const scratch = mkdtempSync(join(tmpdir(), 'hub-bench-floors-'));
  const pgStart = await startPrivatePostgres();
  const cluster: PrivatePostgres | null = pgStart.ok ? pgStart.cluster : null;
  const loadgen = await startLoadGenerator();
  let dbCount = 0;
  const newDatabase = async () => {
    const name = `bench_${++dbCount}`;
    const c = new pg.Client({ connectionString: cluster!.adminUrl });
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
    await c.end();
    return cluster!.urlFor(name);
  };
  const floorDb = cluster ? await newDatabase() : null;
  const floors: Floors = {
    fsync: measureFsync(scratch),
    sqliteTx: measureSqliteTransaction(scratch),
    pgTx1: floorDb ? await measurePostgresTransaction(floorDb, 1) : null,
    pgTx16: floorDb ? await measurePostgresTransaction(floorDb, 16) : null,
  };
  const compiled = await benchShopOperations(shop);
  const op = (tool: string) => {
    const o = compiled.find((c) => c.tool === tool);
    if (!o) throw new Error(`bench shop has no ${tool}`);
    return o;
  };
  return {
    shop,
    loadgen,
    floors,
    operations: { get_product: op('get_product'), update_product_content: op('update_product_content') },
    setups: chosenSetups(
      cluster
        ? ['SQLite, group commit', 'PostgreSQL, 1 instance', 'PostgreSQL, 3 instances']
        : ['SQLite, group commit'],
    ),
    postgresMissing: pgStart.ok ? null : pgStart.reason,
    async startSetup(name) {
      if (name === 'SQLite, group commit') return startHubs(name, shop, { sqlite: true });
      return startHubs(name, shop, {
        postgresUrl: await newDatabase(),
        instances: name === 'PostgreSQL, 3 instances' ? 3 : 1,
      });
    },
    async close() {
      await loadgen.close();
      await shop.close();
      cluster?.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

export function printFloors(run: BenchRun): void {
  const f = run.floors;
  heading('Durability floors on this machine (same run)');
  const rows: Array<Array<string | number>> = [
    ['fsync (4 KiB write + fdatasync)', '1', f.fsync.p50_ms, f.fsync.p99_ms, f.fsync.per_s],
    [
      "bare SQLite WAL transaction of the permit's shape, synchronous=FULL",
      '1',
      f.sqliteTx.p50_ms,
      f.sqliteTx.p99_ms,
      f.sqliteTx.per_s,
    ],
  ];
  if (f.pgTx1 && f.pgTx16) {
    rows.push([
      "bare PostgreSQL transaction of the permit's shape (task row locked)",
      '1',
      f.pgTx1.p50_ms,
      f.pgTx1.p99_ms,
      f.pgTx1.per_s,
    ]);
    rows.push([
      "bare PostgreSQL transaction of the permit's shape (task row locked)",
      '16',
      f.pgTx16.p50_ms,
      f.pgTx16.p99_ms,
      f.pgTx16.per_s,
    ]);
  }
  console.log(table(['floor', 'conc', 'p50 ms', 'p99 ms', 'per s'], rows));
  if (run.postgresMissing) console.log(`PostgreSQL cases skipped: ${run.postgresMissing}`);
}

export const ratio = (v: number) => `${fmt(v)}x`;
