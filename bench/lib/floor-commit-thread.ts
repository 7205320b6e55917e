/**
 * The durable proxy's commit thread (bench/lib/proxy-floor.ts): one SQLite connection (WAL,
 * synchronous=FULL, the Hub writer's autocheckpoint) that takes every change waiting on its port as
 * one batch, runs the batch as one transaction and answers it after COMMIT — the Hub's group commit
 * (src-hub/store/sqlite/writer/thread.ts) without the Hub's rows, checks and views. A change is one
 * small row: a permit's (the call, its tool and arguments, when granted) or an outcome's (the
 * call, the business status and body). Started by floor-commits.ts with `workerData.role ===
 * FLOOR_COMMIT_ROLE`; loading this module anywhere else does nothing.
 */
import Database from 'better-sqlite3';
import {
  isMainThread,
  parentPort,
  receiveMessageOnPort,
  workerData,
  type MessagePort,
} from 'node:worker_threads';
import { WRITER_WAL_AUTOCHECKPOINT_PAGES } from '../../src-hub/store/sqlite/open.js';

export const FLOOR_COMMIT_ROLE = 'bench-floor-commits';
export const FLOOR_COMMIT_MODULE_URL = import.meta.url;
const MAX_BATCH = 512;

export type FloorChange =
  | { id: number; kind: 'permit'; call: string; tool: string; args: string; at: number }
  | { id: number; kind: 'outcome'; call: string; status: number; body: string; at: number };

export type FloorCommitRequest =
  { kind: 'changes'; changes: FloorChange[] } | { kind: 'stats' } | { kind: 'close' };

export type FloorCommitAnswer =
  | { kind: 'ready' }
  | { kind: 'committed'; ids: number[] }
  | { kind: 'failed'; ids: number[]; message: string }
  /** Transactions, the changes they carried, and the time spent from BEGIN to COMMIT's return (fsync included). */
  | { kind: 'stats'; batches: number; changes: number; txMs: number };

const SCHEMA = `
CREATE TABLE IF NOT EXISTS floor_permit (
  call_id TEXT PRIMARY KEY, tool TEXT NOT NULL, arguments TEXT NOT NULL, granted_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS floor_outcome (
  call_id TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL, at INTEGER NOT NULL);`;

function serve(port: MessagePort, file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma(`wal_autocheckpoint = ${WRITER_WAL_AUTOCHECKPOINT_PAGES}`);
  db.exec(SCHEMA);
  const insertPermit = db.prepare(
    'INSERT INTO floor_permit (call_id, tool, arguments, granted_at) VALUES (?, ?, ?, ?)',
  );
  const insertOutcome = db.prepare(
    'INSERT INTO floor_outcome (call_id, status, body, at) VALUES (?, ?, ?, ?)',
  );
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  const stats = { batches: 0, changes: 0, txMs: 0 };
  let closing = false;
  let statsAsked = false;
  const take = (m: FloorCommitRequest, batch: FloorChange[]) => {
    if (m.kind === 'close') closing = true;
    else if (m.kind === 'stats') statsAsked = true;
    else batch.push(...m.changes);
  };
  const runBatch = (batch: FloorChange[]): FloorCommitAnswer => {
    const ids = batch.map((c) => c.id);
    const from = performance.now();
    try {
      begin.run();
      for (const c of batch) {
        if (c.kind === 'permit') insertPermit.run(c.call, c.tool, c.args, c.at);
        else insertOutcome.run(c.call, c.status, c.body, c.at);
      }
      commit.run();
      stats.batches += 1;
      stats.changes += batch.length;
      stats.txMs += performance.now() - from;
      return { kind: 'committed', ids };
    } catch (err) {
      if (db.inTransaction) rollback.run();
      return { kind: 'failed', ids, message: String((err as Error)?.message ?? err) };
    }
  };
  const pump = (first: FloorCommitRequest) => {
    let next: FloorCommitRequest | undefined = first;
    while (next) {
      const batch: FloorChange[] = [];
      take(next, batch);
      while (batch.length < MAX_BATCH) {
        const more = receiveMessageOnPort(port);
        if (!more) break;
        take(more.message as FloorCommitRequest, batch);
      }
      if (batch.length > 0) port.postMessage(runBatch(batch));
      if (statsAsked) {
        statsAsked = false;
        port.postMessage({ kind: 'stats', ...stats } satisfies FloorCommitAnswer);
      }
      if (closing) {
        db.close();
        port.close();
        return;
      }
      next = receiveMessageOnPort(port)?.message as FloorCommitRequest | undefined;
    }
  };
  port.on('message', pump);
  port.postMessage({ kind: 'ready' } satisfies FloorCommitAnswer);
}

const data = workerData as { role?: string; file?: string } | undefined;
if (!isMainThread && parentPort && data?.role === FLOOR_COMMIT_ROLE && typeof data.file === 'string') {
  serve(parentPort, data.file);
}
