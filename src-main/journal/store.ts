/** The asynchronous store interface every invocation store implements (docs/journal.md#the-stores). */
import type { StoredJournalRecord } from './record.js';

export interface StoreLockInfo {
  owner: string; // host name
  pid: number;
  since: string; // ISO time the lock was taken
}

export interface InvocationStore {
  /** `null` only when no record exists; any failure is thrown (never reported as null). */
  load(sessionId: string): Promise<StoredJournalRecord | null>;
  /**
   * Atomically compares the stored revision with `expectedRevision` (null = must be absent),
   * persists the complete `next` record (whose revision must be expected + 1) and resolves with the
   * saved record only after durable success. Throws `invocation_store_conflict` on a CAS mismatch.
   */
  save(
    sessionId: string,
    next: StoredJournalRecord,
    expectedRevision: number | null,
  ): Promise<StoredJournalRecord>;
  /** File store: a lock found on disk (possibly left by a crashed writer). Never removed automatically. */
  inspectLock?(sessionId: string): Promise<StoreLockInfo | null>;
  /** Human-readable kind for status and docs: 'sqlite' | 'file' | 'memory' | custom. */
  readonly kind?: string;
  /** True only for stores that survive a process restart. The memory store says false. */
  readonly persistent?: boolean;
  close?(): Promise<void> | void;
}
