/**
 * The durability floors a Hub cannot beat on this machine, measured in the same run as the Hub:
 *   - fsync: a 4 KiB write + fdatasync of one file on the data directory's disk;
 *   - a bare SQLite WAL transaction of the permit's shape with synchronous=FULL (insert the call,
 *     spend the task's budget, insert the permit, commit), one at a time;
 *   - the same transaction on the benchmark's PostgreSQL (one connection; and 16 at once).
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { runConcurrent, summarize, type Summary } from './stats.js';

export function measureFsync(dir: string, n = 500): Summary {
  const file = join(dir, 'fsync-floor.bin');
  const fd = openSync(file, 'w');
  const page = Buffer.alloc(4096, 7);
  const samples: number[] = [];
  const start = performance.now();
  try {
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      writeSync(fd, page, 0, page.length, (i % 64) * 4096);
      fdatasyncSync(fd);
      samples.push(performance.now() - t0);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return summarize(samples, performance.now() - start);
}

const SQLITE_SCHEMA = `
CREATE TABLE inv (id TEXT PRIMARY KEY, task_id TEXT, state TEXT, body TEXT);
CREATE TABLE task (id TEXT PRIMARY KEY, writes_used INTEGER, permits INTEGER);
CREATE TABLE permit (id TEXT PRIMARY KEY, task_id TEXT, inv TEXT, granted INTEGER, released INTEGER);
INSERT INTO task VALUES ('t', 0, 0);`;

export function measureSqliteTransaction(dir: string, n = 1000): Summary {
  const file = join(dir, 'tx-floor.sqlite');
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(SQLITE_SCHEMA);
    const insertInv = db.prepare("INSERT INTO inv VALUES (?, 't', 'dispatching', ?)");
    const spend = db.prepare(
      "UPDATE task SET writes_used = writes_used + 1, permits = permits + 1 WHERE id = 't'",
    );
    const insertPermit = db.prepare("INSERT INTO permit VALUES (?, 't', ?, ?, NULL)");
    const tx = db.transaction((id: string) => {
      insertInv.run(id, 'x'.repeat(1500));
      spend.run();
      insertPermit.run(`p${id}`, id, Date.now());
    });
    const samples: number[] = [];
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      tx.immediate(randomUUID());
      samples.push(performance.now() - t0);
    }
    return summarize(samples, performance.now() - start);
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  }
}

export async function measurePostgresTransaction(
  url: string,
  concurrency: number,
  n = 1000,
): Promise<Summary> {
  const pool = new pg.Pool({ connectionString: url, max: concurrency });
  try {
    await pool.query(`DROP TABLE IF EXISTS floor_inv, floor_task, floor_permit;
      CREATE TABLE floor_inv (id TEXT PRIMARY KEY, task_id TEXT, state TEXT, body TEXT);
      CREATE TABLE floor_task (id TEXT PRIMARY KEY, writes_used INTEGER, permits INTEGER);
      CREATE TABLE floor_permit (id TEXT PRIMARY KEY, task_id TEXT, inv TEXT, granted BIGINT, released BIGINT);
      INSERT INTO floor_task VALUES ('t', 0, 0);`);
    const { samples, wallMs } = await runConcurrent(n, concurrency, async () => {
      const c = await pool.connect();
      try {
        const id = randomUUID();
        await c.query('BEGIN');
        await c.query("SELECT * FROM floor_task WHERE id = 't' FOR UPDATE");
        await c.query({
          name: 'fi',
          text: "INSERT INTO floor_inv VALUES ($1, 't', 'dispatching', $2)",
          values: [id, 'x'.repeat(1500)],
        });
        await c.query({
          name: 'fs',
          text: "UPDATE floor_task SET writes_used = writes_used + 1, permits = permits + 1 WHERE id = 't'",
        });
        await c.query({
          name: 'fp',
          text: "INSERT INTO floor_permit VALUES ($1, 't', $2, $3, NULL)",
          values: [`p${id}`, id, Date.now()],
        });
        await c.query('COMMIT');
      } finally {
        c.release();
      }
    });
    await pool.query('DROP TABLE floor_inv, floor_task, floor_permit');
    return summarize(samples, wallMs);
  } finally {
    await pool.end();
  }
}
