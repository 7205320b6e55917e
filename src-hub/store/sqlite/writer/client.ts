/**
 * The main thread's side of the SQLite writer thread: `write(op, args)` posts the request and
 * resolves with the answer once the writer thread has committed the batch it was in. If the thread
 * fails or exits, every waiting and later write is refused with StoreUnavailableError.
 */
import { Worker } from 'node:worker_threads';
import { StoreOperationError, StoreUnavailableError } from '../../errors.js';
import { toSqliteStoreError } from '../errors.js';
import type { WriteOpName } from '../../sql/registry.js';
import type {
  GroupCommitStats,
  MainMessage,
  SerializedError,
  WriteRequest,
  WriterMessage,
  WriterStamps,
} from './protocol.js';
import { requestToPost } from './operation-by-text.js';
import { changedCallId, heldFieldsOf, restoreAnswer, type HeldFields } from './slim-answer.js';
import type { WriterData } from './thread.js';

export interface SqliteWriter {
  write(op: WriteOpName, args: unknown[]): Promise<unknown>;
  /** Batches (transactions, fsyncs) and writes committed so far. */
  stats(): Promise<GroupCommitStats>;
  /** Resolves once every task view marked by a write answered before the call is published. */
  flush(): Promise<void>;
  /** Called with the clients that got events outside a write's answer (task views after commit). */
  onEvents(listener: (clients: string[]) => void): () => void;
  /** Waits for every accepted write to be answered, then stops the thread. */
  close(): Promise<void>;
}

/** The code of a write refused because its values cannot be copied to the writer thread (a function, say). */
export const WRITE_NOT_SENDABLE = 'store_write_not_sendable';

const revive = (e: SerializedError): Error => toSqliteStoreError(e.message, e.code);

/**
 * The process's CPU-profiling flags (`--cpu-prof`, `--cpu-prof-dir DIR`, …), so a profiled process's
 * writer thread writes its own profile beside the main thread's. Nothing else is passed on: the
 * thread boots its own loader (boot.mjs), and a second `--import tsx` would register it twice.
 */
export function profilingExecArgv(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i] as string;
    if (!a.startsWith('--cpu-prof')) continue;
    out.push(a);
    const next = execArgv[i + 1];
    // `--cpu-prof-dir DIR` (and the other valued flags) may give the value as the next argument
    if (!a.includes('=') && a !== '--cpu-prof' && next !== undefined) {
      out.push(next);
      i += 1;
    }
  }
  return out;
}

export interface SqliteWriterOptions {
  /** How long after the last batch marked task views wait for another to carry them (tests). */
  viewDelayMs?: number;
  /** Called with the writer thread once it is started (tests stop it, to see what a crash of the thread does). */
  onThread?: (thread: Worker) => void;
  /**
   * Timing mode (benchmarks): called once per batch answered, with the thread's stamps and the
   * main thread's reading when the answers arrived (process.hrtime nanoseconds). Off, it costs nothing.
   */
  onTiming?: (stamps: WriterStamps, arrivedAt: number) => void;
}

async function spawnWriter(dataDir: string, options: SqliteWriterOptions): Promise<Worker> {
  // A dynamic import keeps the writer module its own chunk in a bundled build, so the thread loads
  // only the writer's code; from the TypeScript sources the thread boots through tsx.
  const { WRITER_MODULE_URL, WRITER_ROLE } = await import('./thread.js');
  const data: WriterData & { moduleUrl: string } = {
    role: WRITER_ROLE,
    dataDir,
    moduleUrl: WRITER_MODULE_URL,
    ...(options.viewDelayMs === undefined ? {} : { viewDelayMs: options.viewDelayMs }),
    ...(options.onTiming ? { timing: true } : {}),
  };
  const fromSources = WRITER_MODULE_URL.endsWith('.ts');
  return new Worker(fromSources ? new URL('./boot.mjs', WRITER_MODULE_URL) : new URL(WRITER_MODULE_URL), {
    workerData: data,
    execArgv: profilingExecArgv(process.execArgv),
  });
}

/** The most calls whose operation and arguments are kept for their later answers (beyond it, answers come whole). */
export const MAX_HELD_CALLS = 10_000;

interface Pending {
  op: WriteOpName;
  args: unknown[];
  /** The call's operation and arguments kept on this side: its answer comes without them. */
  held: HeldFields | undefined;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export function startSqliteWriter(dataDir: string, options: SqliteWriterOptions = {}): SqliteWriter {
  const pending = new Map<number, Pending>();
  // The operation and arguments of the calls created `dispatching` through this writer, by call id,
  // until an answer shows the call past `dispatching`: their later changes (the outcome) are
  // answered without them (slim-answer.ts). They never change after a call's creation.
  const heldCalls = new Map<string, HeldFields>();
  const keepHeld = (p: Pending, value: unknown) => {
    const id = changedCallId(p.op, p.args);
    if (id !== null) {
      const record = (value as { record?: { state?: unknown } }).record;
      if (record?.state !== 'dispatching') heldCalls.delete(id);
      return;
    }
    const fields = heldFieldsOf(p.op, p.args, value);
    if (!fields) return;
    if (heldCalls.size >= MAX_HELD_CALLS) heldCalls.clear();
    heldCalls.set((p.args[0] as { invocation_id: string }).invocation_id, fields);
  };
  let nextId = 1;
  let failure: StoreUnavailableError | null = null;
  let closing = false;
  const statsWaiters: Array<(s: GroupCommitStats) => void> = [];
  const flushWaiters = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  const listeners = new Set<(clients: string[]) => void>();
  const fail = (err: StoreUnavailableError) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
    for (const f of flushWaiters.values()) f.reject(failure);
    flushWaiters.clear();
  };
  const worker = spawnWriter(dataDir, options);
  const exited: Promise<void> = worker.then(
    (w) =>
      new Promise<void>((resolve) => {
        const onTiming = options.onTiming;
        w.on('message', (m: WriterMessage) => {
          if (m.kind === 'answers') {
            if (onTiming && m.timing) onTiming(m.timing, Number(process.hrtime.bigint()));
            for (const a of m.answers) {
              const p = pending.get(a.id);
              if (!p) continue;
              pending.delete(a.id);
              if (a.ok) {
                const value = restoreAnswer(p.op, p.args, a.value, a.slim, p.held);
                keepHeld(p, value);
                p.resolve(value);
              } else p.reject(revive(a.error));
            }
            if (m.clients) for (const listener of listeners) listener(m.clients);
          } else if (m.kind === 'events') {
            for (const listener of listeners) listener(m.clients);
          } else if (m.kind === 'flushed') {
            for (const id of m.ids) {
              flushWaiters.get(id)?.resolve();
              flushWaiters.delete(id);
            }
          } else if (m.kind === 'stats') {
            for (const resolve of statsWaiters.splice(0)) resolve(m.stats);
          } else if (m.kind === 'fatal') {
            fail(new StoreUnavailableError(`the SQLite writer could not open the store: ${m.error.message}`));
          }
        });
        w.on('error', (err) => fail(new StoreUnavailableError('the SQLite writer thread failed', err)));
        w.on('exit', () => {
          fail(new StoreUnavailableError('the SQLite writer thread has stopped'));
          resolve();
        });
      }),
    (err: unknown) => {
      fail(new StoreUnavailableError('the SQLite writer thread could not start', err));
    },
  );
  // A write the thread cannot be handed (a value that cannot be cloned) is refused alone: the
  // other writes of its message are posted one by one.
  const deliver = (w: Worker, m: MainMessage) => {
    if (m.kind === 'writes' && m.postedAt !== undefined) m.postedAt = Number(process.hrtime.bigint());
    try {
      w.postMessage(m);
    } catch (err) {
      if (m.kind !== 'writes') throw err;
      for (const r of m.requests) {
        try {
          w.postMessage({ kind: 'writes', requests: [r] } satisfies MainMessage);
        } catch (one) {
          const p = pending.get(r.id);
          pending.delete(r.id);
          p?.reject(
            new StoreOperationError(
              `the store write ${r.op} cannot be handed to the writer thread: ${String(one)}`,
              WRITE_NOT_SENDABLE,
            ),
          );
        }
      }
    }
  };
  void worker.then(
    (w) => options.onThread?.(w),
    () => undefined,
  );
  const send = (m: MainMessage) =>
    void worker.then(
      (w) => deliver(w, m),
      () => undefined,
    );
  // Writes issued in the same turn of the event loop go to the thread in one message, in the order
  // they were issued: the callers a batch's answers woke, each issuing its next write, and the
  // requests and business responses whose I/O callbacks ran in the same poll phase (each callback
  // drains its own microtasks, so a microtask would post one message per request at concurrency
  // 16; setImmediate posts once, right after the poll phase). Any other message is sent after the
  // writes issued before it.
  let queued: WriteRequest[] = [];
  const sendQueued = () => {
    if (queued.length === 0) return;
    const requests = queued;
    queued = [];
    send(options.onTiming ? { kind: 'writes', requests, postedAt: 0 } : { kind: 'writes', requests });
  };
  const post = (m: MainMessage) => {
    sendQueued();
    send(m);
  };
  return {
    write(op, args) {
      if (failure) return Promise.reject(failure);
      if (closing) return Promise.reject(new StoreUnavailableError('the store is closed'));
      const id = nextId++;
      const callId = changedCallId(op, args);
      const held = callId === null ? undefined : heldCalls.get(callId);
      return new Promise((resolve, reject) => {
        pending.set(id, { op, args, held, resolve, reject });
        if (queued.length === 0) setImmediate(sendQueued);
        queued.push(requestToPost(held ? { id, op, args, held: true } : { id, op, args }));
      });
    },
    stats() {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve) => {
        statsWaiters.push(resolve);
        post({ kind: 'stats' });
      });
    },
    flush() {
      if (failure) return Promise.reject(failure);
      if (closing) return Promise.resolve();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        flushWaiters.set(id, { resolve, reject });
        post({ kind: 'flush', id });
      });
    },
    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (closing) return exited;
      closing = true;
      post({ kind: 'close' });
      await exited;
    },
  };
}
