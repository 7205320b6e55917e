// The record itself: strict metadata-only fields, coded refusals, the 8 MiB bound, v1 compatibility.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import {
  JournalError,
  MAX_RECORD_BYTES,
  toV2,
  validateRecord,
  type StoredJournalRecord,
} from '../../src-main/journal/index.js';
import { STORE_KINDS, entry, record, tempDir } from './helpers/journal-fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(JournalError);
    return (err as JournalError).code;
  }
  return 'no error';
}

describe('journal record bailing.agent-invocations.v2', () => {
  it('accepts exactly the metadata fields', () => {
    const r = record('s1', 1, [entry()]);
    expect(validateRecord(r)).toEqual(r);
    expect(Object.keys(r.entries[0]!).sort()).toEqual(
      [
        'agent_session_id',
        'authorization_ref',
        'client_id',
        'connection_key',
        'declaration_revision',
        'host_call_id',
        'hub_id',
        'invocation_id',
        'last_state',
        'parameter_digest',
        'receipt_digest',
        'retry_at',
        'run_id',
        'scope_fingerprint',
        'scope_revision',
        'task_id',
        'tool',
        'workspace_id',
      ].sort(),
    );
  });

  for (const field of ['arguments', 'token', 'receipt', 'message', 'result']) {
    it(`refuses an entry carrying "${field}" with a coded error naming the field, not its value`, () => {
      const bad = record('s1', 1, [{ ...entry(), [field]: 'SECRET-VALUE-42' } as never]);
      let err: unknown;
      try {
        validateRecord(bad);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(JournalError);
      expect((err as JournalError).code).toBe('invocation_record_invalid');
      expect((err as JournalError).message).toContain(field);
      expect((err as JournalError).message).not.toContain('SECRET-VALUE-42');
    });
  }

  it('refuses an extra top-level field and a wrong digest shape', () => {
    expect(() => validateRecord({ ...record('s1', 1, []), conversation: 'hello' })).toThrow(JournalError);
    expect(() => validateRecord(record('s1', 1, [entry({ parameter_digest: 'not-a-digest' })]))).toThrow(
      JournalError,
    );
  });

  for (const kind of STORE_KINDS) {
    describe(`${kind.name} store`, () => {
      it('refuses a save with a forbidden field and keeps the previous record', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        const store = kind.open(kind.place(t.dir));
        const first = record('s1', 1, [entry()]);
        await store.save('s1', first, null);
        const bad = record('s1', 2, [...first.entries, { ...entry(), raw_arguments: { price: 1 } } as never]);
        expect(await codeOf(store.save('s1', bad, 1))).toBe('invocation_record_invalid');
        expect(await store.load('s1')).toEqual(first);
      });

      it('refuses a record over 8 MiB with invocation_record_too_large and keeps the previous one', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        const store = kind.open(kind.place(t.dir));
        const one = entry();
        const perEntry = Buffer.byteLength(JSON.stringify(one));
        const count = Math.ceil(MAX_RECORD_BYTES / (perEntry - 20)) + 10;
        const many = Array.from({ length: count }, (_, i) => ({ ...one, invocation_id: `inv_big_${i}` }));
        const big = record('s1', 1, many);
        expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(MAX_RECORD_BYTES);
        expect(await codeOf(store.save('s1', big, null))).toBe('invocation_record_too_large');
        expect(await store.load('s1')).toBeNull();
        // Just under the bound is fine.
        let under = many;
        while (Buffer.byteLength(JSON.stringify(record('s1', 1, under))) > MAX_RECORD_BYTES)
          under = under.slice(0, under.length - 50);
        await expect(store.save('s1', record('s1', 1, under), null)).resolves.toBeTruthy();
        expect((await store.load('s1'))!.entries.length).toBe(under.length);
      });

      it('enforces revision arithmetic: first save expects null and is revision 1', async () => {
        const t = tempDir();
        cleanups.push(t.cleanup);
        const store = kind.open(kind.place(t.dir));
        expect(await codeOf(store.save('s1', record('s1', 2, []), null))).toBe('invocation_record_invalid');
        expect(await codeOf(store.save('s1', record('other', 1, []), null))).toBe(
          'invocation_record_invalid',
        );
        await store.save('s1', record('s1', 1, []), null);
        expect(await codeOf(store.save('s1', record('s1', 1, []), null))).toBe('invocation_store_conflict');
      });
    });
  }
});

describe('v1 compatibility', () => {
  const v1Entry = () => {
    const { task_id: _omit, ...rest } = entry({ last_state: 'awaiting_approval' });
    return rest;
  };

  it('a v1 file record is readable and its entries never acquire a task', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const kind = STORE_KINDS.find((k) => k.name === 'file')!;
    const dir = kind.place(t.dir);
    const store = kind.open(dir);
    const v1 = {
      schema: 'bailing.agent-invocations.v1',
      sessionId: 'old',
      revision: 3,
      entries: [v1Entry()],
    };
    writeFileSync(join(dir, 's_old.json'), JSON.stringify(v1));
    const loaded = (await store.load('old')) as StoredJournalRecord;
    expect(loaded.schema).toBe('bailing.agent-invocations.v1');
    expect(loaded.entries[0]).not.toHaveProperty('task_id');
    const v2 = toV2(loaded);
    expect(v2.entries[0]!.task_id).toBeNull();
    // Saving it forward (as the runtime does) keeps the old entry without a task.
    await store.save(
      'old',
      { ...v2, revision: 4, entries: [...v2.entries, entry({ task_id: 'task-9' })] },
      3,
    );
    const after = (await store.load('old'))!;
    expect(after.schema).toBe('bailing.agent-invocations.v2');
    expect((after.entries[0] as { task_id: unknown }).task_id).toBeNull();
    expect((after.entries[1] as { task_id: unknown }).task_id).toBe('task-9');
  });

  it('a v1 SQLite record (rows written by an older install) is readable', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const kind = STORE_KINDS.find((k) => k.name === 'sqlite')!;
    const path = kind.place(t.dir);
    kind.open(path).close?.();
    const db = new Database(path);
    const e = v1Entry();
    db.prepare('INSERT INTO journal_records (session_id, schema, revision) VALUES (?, ?, ?)').run(
      'old',
      'bailing.agent-invocations.v1',
      2,
    );
    db.prepare('INSERT INTO journal_entries (session_id, invocation_id, pos, body) VALUES (?, ?, ?, ?)').run(
      'old',
      e.invocation_id,
      0,
      JSON.stringify(e),
    );
    db.close();
    const store = kind.open(path);
    const loaded = (await store.load('old'))!;
    expect(loaded.schema).toBe('bailing.agent-invocations.v1');
    expect(loaded.revision).toBe(2);
    expect(toV2(loaded).entries[0]!.task_id).toBeNull();
  });

  it('a v1 record carrying a task binding is refused as corrupt (v1 never had one)', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const kind = STORE_KINDS.find((k) => k.name === 'file')!;
    const dir = kind.place(t.dir);
    const store = kind.open(dir);
    writeFileSync(
      join(dir, 's_old.json'),
      JSON.stringify({
        schema: 'bailing.agent-invocations.v1',
        sessionId: 'old',
        revision: 1,
        entries: [{ ...v1Entry(), task_id: 't' }],
      }),
    );
    expect(await codeOf(store.load('old'))).toBe('invocation_record_corrupt');
  });
});
