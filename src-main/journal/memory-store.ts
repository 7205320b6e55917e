/**
 * In-memory invocation store, exported for tests. NOT persistent: a new memory store after a
 * process restart is empty, so it provides no durable recovery.
 * Same semantics as the durable stores (strict fields, 8 MiB bound, CAS). Saved entries are frozen
 * and shared with callers; an entry already stored (same frozen object) is not re-validated.
 */
import { JournalError } from './errors.js';
import {
  MAX_RECORD_BYTES,
  checkRevisionArithmetic,
  checkSessionId,
  combinedByteSize,
  headerByteSize,
  validateEntry,
  type StoredJournalRecord,
} from './record.js';
import type { InvocationStore } from './store.js';

export function createMemoryInvocationStore(): InvocationStore {
  const records = new Map<string, StoredJournalRecord>();
  const sizes = new WeakMap<object, number>();
  const snapshot = (r: StoredJournalRecord): StoredJournalRecord =>
    ({ ...r, entries: [...r.entries] }) as StoredJournalRecord;

  function validated(next: StoredJournalRecord): StoredJournalRecord {
    if (next === null || typeof next !== 'object' || !Array.isArray(next.entries))
      throw new JournalError('invocation_record_invalid', 'record must be an object with entries');
    const extra = Object.keys(next).filter(
      (k) => !['schema', 'sessionId', 'revision', 'entries'].includes(k),
    );
    if (extra.length)
      throw new JournalError(
        'invocation_record_invalid',
        `invocation record rejected: (record): field not allowed (${extra.join(', ')})`,
      );
    if (next.schema !== 'bailing.agent-invocations.v2' && next.schema !== 'bailing.agent-invocations.v1')
      throw new JournalError('invocation_record_invalid', 'unknown record schema');
    const seen = new Set<string>();
    let bytes = 0;
    const entries = (next.entries as unknown[]).map((e) => {
      let valid = e as { invocation_id: string };
      let size = typeof e === 'object' && e !== null && Object.isFrozen(e) ? sizes.get(e) : undefined;
      if (size === undefined) {
        valid = Object.freeze(validateEntry(e, next.schema));
        size = Buffer.byteLength(JSON.stringify(valid), 'utf8');
        sizes.set(valid, size);
      }
      if (seen.has(valid.invocation_id))
        throw new JournalError(
          'invocation_record_invalid',
          'invocation record rejected: duplicate invocation_id',
        );
      seen.add(valid.invocation_id);
      bytes += size;
      return valid;
    });
    const total = combinedByteSize(headerByteSize(next), bytes, entries.length);
    if (total > MAX_RECORD_BYTES)
      throw new JournalError(
        'invocation_record_too_large',
        `invocation record is ${total} bytes; the bound is ${MAX_RECORD_BYTES}`,
      );
    return {
      schema: next.schema,
      sessionId: next.sessionId,
      revision: next.revision,
      entries,
    } as StoredJournalRecord;
  }

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
