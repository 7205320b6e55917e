/**
 * Wraps any store (custom adapters included) so the strict metadata-only field rules and the
 * 8 MiB bound hold whatever the adapter does, and so an adapter's failure is always a coded error.
 */
import { JournalError } from './errors.js';
import { checkRevisionArithmetic, checkSessionId, validateRecord } from './record.js';
import type { InvocationStore } from './store.js';

function coded(err: unknown): JournalError {
  if (err instanceof JournalError) return err;
  return new JournalError('invocation_store_unavailable', 'invocation store failed');
}

export function withRecordValidation(
  store: InvocationStore,
  options: { trusted?: boolean } = {},
): InvocationStore {
  // Built-in stores validate themselves; re-validating whole records would make the SQLite store's
  // save cost grow with the record again, so they are passed through (`trusted`).
  if (options.trusted) return store;
  return {
    kind: store.kind ?? 'custom',
    persistent: store.persistent ?? true,
    async load(sessionId) {
      let value: unknown;
      try {
        value = await store.load(sessionId);
      } catch (err) {
        throw coded(err);
      }
      if (value === null) return null;
      if (value === undefined)
        throw new JournalError('invocation_store_unavailable', 'invocation store returned no answer');
      const record = validateRecord(value, 'invocation_record_corrupt');
      if (record.sessionId !== sessionId)
        throw new JournalError('invocation_record_corrupt', 'the stored record belongs to another session');
      return record;
    },
    async save(sessionId, next, expectedRevision) {
      const record = validateRecord(next);
      checkSessionId(sessionId, record);
      checkRevisionArithmetic(record, expectedRevision);
      let saved: unknown;
      try {
        saved = await store.save(sessionId, record, expectedRevision);
      } catch (err) {
        throw coded(err);
      }
      const result = validateRecord(saved, 'invocation_record_corrupt');
      if (result.revision !== record.revision)
        throw new JournalError(
          'invocation_store_unavailable',
          'invocation store acknowledged a different revision',
        );
      return result;
    },
    ...(store.inspectLock ? { inspectLock: store.inspectLock.bind(store) } : {}),
    ...(store.close ? { close: store.close.bind(store) } : {}),
  };
}
