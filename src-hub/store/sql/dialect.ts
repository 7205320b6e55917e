/**
 * What differs between the SQLite and the PostgreSQL store beyond placeholders: row locks (SQLite
 * holds the whole database's write lock for a transaction, PostgreSQL locks rows and keys), how an
 * event gets its sequence number, the database's clock, and tool search (FTS5 vs tsvector).
 */
import type { OperationRecord } from '../types.js';
import type { SqlSession, Step } from './session.js';

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /** Appended to a SELECT that must lock the rows it reads until the transaction ends. */
  readonly forUpdate: string;
  /** An SQL expression for the database's clock in epoch milliseconds (leases use one clock). */
  readonly nowMs: string;
  /** Serialises transactions that name the same key until they end (PostgreSQL: advisory lock). */
  lock(s: SqlSession, key: string): Step<void>;
  /**
   * Locks a task's row until the transaction ends, without reading it and without waiting for it
   * (the next statement runs once it is held): PostgreSQL takes it where its lock order puts it
   * (postgres/lock-order.ts). Absent where the transaction holds the whole database (SQLite).
   */
  lockTaskRow?(s: SqlSession, taskId: string): void;
  /** Appends one event to the SSE feed (its seq may be assigned at commit: see the dialect). */
  appendEvent(s: SqlSession, clientId: string, type: string, payloadJson: string, at: string): Step<void>;
  /** Rebuilds the search index of one system's current operations. */
  indexOperations(s: SqlSession, systemId: string, systemName: string, ops: OperationRecord[]): Step<void>;
  /** Ranked search over tool name, description and system name; every word a prefix term. */
  searchOperations(
    s: SqlSession,
    words: string[],
    systemIds: string[],
    limit: number,
  ): Step<Array<{ system_id: string; tool: string; score: number }>>;
}
