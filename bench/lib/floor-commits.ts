/**
 * The durable proxy's side of its commit thread (floor-commit-thread.ts): `commit(change)` resolves
 * once the transaction that carried the change has committed (fsynced). The changes issued in one
 * turn of the event loop are posted together right after its poll phase (setImmediate), as the
 * Hub's SQLite writer client does, so the callers that one batch's answers woke share the next one.
 */
import { Worker } from 'node:worker_threads';
import {
  FLOOR_COMMIT_MODULE_URL,
  FLOOR_COMMIT_ROLE,
  type FloorChange,
  type FloorCommitAnswer,
  type FloorCommitRequest,
} from './floor-commit-thread.js';

export interface FloorCommitStats {
  batches: number;
  changes: number;
  /** Time the commit thread spent inside transactions (BEGIN to COMMIT's return, fsync included), ms. */
  txMs: number;
}

type ChangeInput = FloorChange extends infer C ? (C extends FloorChange ? Omit<C, 'id'> : never) : never;

export interface FloorCommits {
  commit(change: ChangeInput): Promise<void>;
  /** Transactions committed, the changes they carried and their time so far. */
  stats(): Promise<FloorCommitStats>;
  close(): Promise<void>;
}

// from the TypeScript sources the thread boots through tsx, as the Hub's writer does
const BOOT = new URL('../../src-hub/store/sqlite/writer/boot.mjs', import.meta.url);

export async function startFloorCommits(file: string): Promise<FloorCommits> {
  const worker = new Worker(BOOT, {
    workerData: { role: FLOOR_COMMIT_ROLE, file, moduleUrl: FLOOR_COMMIT_MODULE_URL },
    execArgv: [],
  });
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  const statsWaiting: Array<(s: FloorCommitStats) => void> = [];
  let ready: (() => void) | null = null;
  let failed: ((e: Error) => void) | null = null;
  const started = new Promise<void>((res, rej) => {
    ready = res;
    failed = rej;
  });
  worker.on('error', (err) => {
    failed?.(err);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  });
  worker.on('message', (m: FloorCommitAnswer) => {
    if (m.kind === 'ready') ready?.();
    else if (m.kind === 'stats')
      statsWaiting.shift()?.({ batches: m.batches, changes: m.changes, txMs: m.txMs });
    else {
      for (const id of m.ids) {
        const p = pending.get(id);
        pending.delete(id);
        if (m.kind === 'committed') p?.resolve();
        else p?.reject(new Error(`floor commit failed: ${m.message}`));
      }
    }
  });
  await started;
  let nextId = 0;
  let queued: FloorChange[] = [];
  const send = (m: FloorCommitRequest) => worker.postMessage(m);
  const sendQueued = () => {
    if (queued.length === 0) return;
    const changes = queued;
    queued = [];
    send({ kind: 'changes', changes });
  };
  return {
    commit(change) {
      const id = ++nextId;
      if (queued.length === 0) setImmediate(sendQueued);
      queued.push({ ...change, id } as FloorChange);
      return new Promise<void>((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    stats() {
      sendQueued();
      const answer = new Promise<FloorCommitStats>((res) => statsWaiting.push(res));
      send({ kind: 'stats' });
      return answer;
    },
    async close() {
      sendQueued();
      const exited = new Promise((res) => worker.once('exit', res));
      send({ kind: 'close' });
      await exited;
    },
  };
}
