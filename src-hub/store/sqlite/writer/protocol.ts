/** Messages between the main thread and the SQLite writer thread. */
import type { WriteOpName } from '../../sql/registry.js';
import type { Slim } from './slim-answer.js';

export interface WriteRequest {
  id: number;
  op: WriteOpName;
  args: unknown[];
  /** The main thread holds this call's operation and arguments: answer its record without them (slim-answer.ts). */
  held?: true;
  /** A created call's operation as its stored text, sent in place of `create.operation` (operation-by-text.ts). */
  operation_text?: string;
}

export interface SerializedError {
  name: string;
  message: string;
  code?: string;
}

export type WriteAnswer =
  /** `slim`: how the record was made smaller (slim-answer.ts): against the created record, or without the held fields. */
  { id: number; ok: true; value: unknown; slim: Slim } | { id: number; ok: false; error: SerializedError };

/** How many transactions (batches) committed how many writes since the writer started. */
export interface GroupCommitStats {
  batches: number;
  writes: number;
  /** Batches run again, each write in a savepoint of its own, because one of their writes failed. */
  retried: number;
}

/**
 * With timing on (SqliteWriterOptions.onTiming): the thread's clock readings for one batch, in
 * nanoseconds of process.hrtime (one clock for every thread of the process).
 */
export interface WriterStamps {
  /** When the main thread posted the batch's first message. */
  postedAt: number;
  /** When the thread's message handler began. */
  receivedAt: number;
  /** The batch's transaction ran from, to (BEGIN to COMMIT returned, answers built). */
  runFrom: number;
  runTo: number;
  /** Its COMMIT (the fsync included) ran from, to. */
  commitFrom: number;
  commitTo: number;
  /** Just before the thread posted the answers. */
  answeredAt: number;
}

export type WriterMessage =
  | { kind: 'ready' }
  /** A batch's answers; `clients` got task views in its transaction. */
  | { kind: 'answers'; answers: WriteAnswer[]; clients?: string[]; timing?: WriterStamps }
  | { kind: 'stats'; stats: GroupCommitStats }
  /** Events were appended for these clients outside any write's answer (task views after commit). */
  | { kind: 'events'; clients: string[] }
  /** Every task view marked before these flush requests is published. */
  | { kind: 'flushed'; ids: number[] }
  | { kind: 'fatal'; error: SerializedError };

export type MainMessage =
  /** The writes issued in one turn of the main thread's event loop, in the order they were issued. */
  | { kind: 'writes'; requests: WriteRequest[]; postedAt?: number }
  | { kind: 'stats' }
  | { kind: 'flush'; id: number }
  | { kind: 'close' };

export function serializeError(err: unknown): SerializedError {
  const e = err as { name?: unknown; message?: unknown; code?: unknown };
  return {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(err),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}
