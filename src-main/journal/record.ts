/**
 * The invocation journal record `bailing.agent-invocations.v2`
 * (docs/journal.md#the-record-bailingagent-invocationsv2): metadata only.
 * Each entry holds exactly the documented fields plus the task binding, and nothing else: no
 * credentials, raw arguments, receipt bodies or conversation text. Strict: any other field is refused.
 * v1 records (no task binding) stay readable; they never acquire a task.
 */
import { z } from 'zod';
import { JOURNAL_ENTRY_STATES, type JournalEntryState } from '../../src-shared/states.js';
import { JournalError } from './errors.js';

export const JOURNAL_SCHEMA_V2 = 'bailing.agent-invocations.v2';
export const JOURNAL_SCHEMA_V1 = 'bailing.agent-invocations.v1';
/** The record bound: its JSON serialization may not exceed 8 MiB. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

export { JOURNAL_ENTRY_STATES, type JournalEntryState };

const id = z.string().min(1).max(200);
const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

const entryV1Shape = {
  invocation_id: id,
  agent_session_id: id,
  hub_id: id,
  client_id: id,
  workspace_id: id,
  /** Identifies the Hub connection (hub URL + client id), never the token. */
  connection_key: z.string().min(1).max(500),
  scope_fingerprint: z.string().min(1).max(128),
  scope_revision: z.number().int().min(1),
  authorization_ref: id,
  run_id: id,
  tool: id,
  declaration_revision: id,
  host_call_id: id,
  parameter_digest: hex64,
  last_state: z.enum(JOURNAL_ENTRY_STATES),
  receipt_digest: hex64.nullable(),
  retry_at: z.iso.datetime().nullable(),
};

export const JournalEntryV1Schema = z.strictObject(entryV1Shape);
export const JournalEntryV2Schema = z.strictObject({ ...entryV1Shape, task_id: id.nullable() });

export type JournalEntryV1 = z.infer<typeof JournalEntryV1Schema>;
export type JournalEntry = z.infer<typeof JournalEntryV2Schema>;

const headerShape = {
  sessionId: z.string().min(1).max(200),
  revision: z.number().int().min(1),
};
export const JournalRecordV2Schema = z.strictObject({
  schema: z.literal(JOURNAL_SCHEMA_V2),
  ...headerShape,
  entries: z.array(JournalEntryV2Schema),
});
export const JournalRecordV1Schema = z.strictObject({
  schema: z.literal(JOURNAL_SCHEMA_V1),
  ...headerShape,
  entries: z.array(JournalEntryV1Schema),
});
export type JournalRecordV2 = z.infer<typeof JournalRecordV2Schema>;
export type JournalRecordV1 = z.infer<typeof JournalRecordV1Schema>;
/** What a store holds and returns: either version, exactly as saved. */
export type StoredJournalRecord = JournalRecordV2 | JournalRecordV1;

function describeIssues(error: z.ZodError): string {
  // Paths and issue kinds only: never the offending values.
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = i.path.join('.') || '(record)';
      if (i.code === 'unrecognized_keys') return `${path}: field not allowed (${i.keys.join(', ')})`;
      return `${path}: ${i.code}`;
    })
    .join('; ');
}

/** Validates a whole record (either version); throws a coded JournalError. */
export function validateRecord(
  value: unknown,
  code: 'invocation_record_invalid' | 'invocation_record_corrupt' = 'invocation_record_invalid',
): StoredJournalRecord {
  const schema = (value as { schema?: unknown } | null)?.schema;
  const parser = schema === JOURNAL_SCHEMA_V1 ? JournalRecordV1Schema : JournalRecordV2Schema;
  const parsed = parser.safeParse(value);
  if (!parsed.success)
    throw new JournalError(code, `invocation record rejected: ${describeIssues(parsed.error)}`);
  const seen = new Set<string>();
  for (const e of parsed.data.entries) {
    if (seen.has(e.invocation_id))
      throw new JournalError(code, 'invocation record rejected: duplicate invocation_id');
    seen.add(e.invocation_id);
  }
  const bytes = recordByteSize(parsed.data);
  if (bytes > MAX_RECORD_BYTES) {
    throw new JournalError(
      'invocation_record_too_large',
      `invocation record is ${bytes} bytes; the bound is ${MAX_RECORD_BYTES}`,
    );
  }
  return parsed.data;
}

/** Validates one entry of the given schema version (used by stores that write entries one by one). */
export function validateEntry(
  value: unknown,
  schema: StoredJournalRecord['schema'],
): JournalEntry | JournalEntryV1 {
  const parser = schema === JOURNAL_SCHEMA_V1 ? JournalEntryV1Schema : JournalEntryV2Schema;
  const parsed = parser.safeParse(value);
  if (!parsed.success)
    throw new JournalError(
      'invocation_record_invalid',
      `invocation entry rejected: ${describeIssues(parsed.error)}`,
    );
  return parsed.data;
}

export function recordByteSize(record: StoredJournalRecord): number {
  return Buffer.byteLength(JSON.stringify(record), 'utf8');
}

/** Byte size of the record without entries; with per-entry sizes, the exact total is computable incrementally. */
export function headerByteSize(
  record: Pick<StoredJournalRecord, 'schema' | 'sessionId' | 'revision'>,
): number {
  return Buffer.byteLength(
    JSON.stringify({
      schema: record.schema,
      sessionId: record.sessionId,
      revision: record.revision,
      entries: [],
    }),
    'utf8',
  );
}

/** Exact JSON size from the header size, the sum of entry sizes and the entry count (commas). */
export function combinedByteSize(header: number, entryBytes: number, count: number): number {
  return header + entryBytes + Math.max(0, count - 1);
}

/**
 * Normalizes a stored record to the v2 in-memory form. v1 entries get `task_id: null`:
 * they never acquire a task implicitly, whatever the session's current task is.
 */
export function toV2(record: StoredJournalRecord): JournalRecordV2 {
  if (record.schema === JOURNAL_SCHEMA_V2) return record;
  return {
    schema: JOURNAL_SCHEMA_V2,
    sessionId: record.sessionId,
    revision: record.revision,
    entries: record.entries.map((e) => ({ ...e, task_id: null })),
  };
}

/** The save contract: revisions start at 1; a first save expects null; each save is expected + 1. */
export function checkRevisionArithmetic(next: StoredJournalRecord, expectedRevision: number | null): void {
  const want = (expectedRevision ?? 0) + 1;
  if (next.revision !== want) {
    throw new JournalError(
      'invocation_record_invalid',
      `next revision must be ${want} when the expected revision is ${expectedRevision === null ? 'null' : expectedRevision}`,
    );
  }
}

export function checkSessionId(sessionId: string, record: StoredJournalRecord): void {
  if (record.sessionId !== sessionId)
    throw new JournalError(
      'invocation_record_invalid',
      'record sessionId does not match the session it is saved under',
    );
}

/**
 * Validates a whole record like validateRecord, but an entry object this validator already
 * validated (it froze it and remembers its size) is not validated again. Returns a record whose
 * entries are frozen, validated objects. Used by stores that keep whole records (memory, file).
 */
export function createIncrementalValidator(): (next: unknown) => StoredJournalRecord {
  const sizes = new WeakMap<object, number>();
  return (next: unknown) => {
    if (
      next === null ||
      typeof next !== 'object' ||
      !Array.isArray((next as { entries?: unknown }).entries)
    ) {
      throw new JournalError(
        'invocation_record_invalid',
        'invocation record rejected: (record): must be an object with entries',
      );
    }
    const { entries: rawEntries, ...header } = next as { entries: unknown[] } & Record<string, unknown>;
    const parsedHeader = (
      header.schema === JOURNAL_SCHEMA_V1 ? JournalRecordV1Schema : JournalRecordV2Schema
    ).safeParse({ ...header, entries: [] });
    if (!parsedHeader.success)
      throw new JournalError(
        'invocation_record_invalid',
        `invocation record rejected: ${describeIssues(parsedHeader.error)}`,
      );
    const schema = parsedHeader.data.schema;
    const seen = new Set<string>();
    let bytes = 0;
    const entries = rawEntries.map((e) => {
      let valid = e as JournalEntry | JournalEntryV1;
      let size = typeof e === 'object' && e !== null && Object.isFrozen(e) ? sizes.get(e) : undefined;
      if (size === undefined) {
        valid = Object.freeze(validateEntry(e, schema));
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
    const record = { ...parsedHeader.data, entries } as StoredJournalRecord;
    const total = combinedByteSize(headerByteSize(record), bytes, entries.length);
    if (total > MAX_RECORD_BYTES)
      throw new JournalError(
        'invocation_record_too_large',
        `invocation record is ${total} bytes; the bound is ${MAX_RECORD_BYTES}`,
      );
    return record;
  };
}
