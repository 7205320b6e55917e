/**
 * In-memory invocation store, exported for tests. NOT persistent: a new memory store after a
 * process restart is empty, so it provides no durable recovery.
 */
import { JournalError } from './errors.js';
import { checkRevisionArithmetic, checkSessionId, validateRecord, type StoredJournalRecord } from './record.js';
import type { InvocationStore } from './store.js';

export function createMemoryInvocationStore(): InvocationStore {
  const records = new Map<string, StoredJournalRecord>();
  return {
    kind: 'memory',
    persistent: false,
    async load(sessionId) {
      const r = records.get(sessionId);
      return r ? structuredClone(r) : null;
    },
    async save(sessionId, next, expectedRevision) {
      const record = validateRecord(next);
      checkSessionId(sessionId, record);
      checkRevisionArithmetic(record, expectedRevision);
      const current = records.get(sessionId)?.revision ?? null;
      if (current !== expectedRevision) {
        throw new JournalError('invocation_store_conflict', `stored revision is ${current ?? 'absent'}, expected ${expectedRevision ?? 'absent'}`, current);
      }
      records.set(sessionId, structuredClone(record));
      return structuredClone(record);
    },
  };
}
