/**
 * In-memory invocation store, exported for tests. NOT persistent: a new memory store after a
 * process restart is empty, so it provides no durable recovery.
 * Same semantics as the durable stores (strict fields, 8 MiB bound, CAS). Saved entries are frozen
 * and shared with callers; an entry already stored (same frozen object) is not re-validated.
 */
import { JournalError } from './errors.js';
import {
  checkRevisionArithmetic,
  checkSessionId,
  createIncrementalValidator,
  type StoredJournalRecord,
} from './record.js';
import type { InvocationStore } from './store.js';

export function createMemoryInvocationStore(): InvocationStore {
  const records = new Map<string, StoredJournalRecord>();
  const validated = createIncrementalValidator();
  const snapshot = (r: StoredJournalRecord): StoredJournalRecord =>
    ({ ...r, entries: [...r.entries] }) as StoredJournalRecord;

  return {
    kind: 'memory',
    persistent: false,
    async load(sessionId) {
      const r = records.get(sessionId);
      return r ? snapshot(r) : null;
    },
    async save(sessionId, next, expectedRevision) {
      const record = validated(next);
      checkSessionId(sessionId, record);
      checkRevisionArithmetic(record, expectedRevision);
      const current = records.get(sessionId)?.revision ?? null;
      if (current !== expectedRevision) {
        throw new JournalError(
          'invocation_store_conflict',
          `stored revision is ${current ?? 'absent'}, expected ${expectedRevision ?? 'absent'}`,
          current,
        );
      }
      records.set(sessionId, record);
      return snapshot(record);
    },
  };
}
