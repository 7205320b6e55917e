// The three stores behind one interface: CAS, durability across reopen, load errors, cost per save,
// the file store's lock, and a property test of two writers interleaving saves.
import { afterEach, describe, expect, it } from 'vitest';
import { fork } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import {
  JournalError,
  createFileInvocationStore,
  createSqliteInvocationStore,
  type InvocationStore,
  type StoredJournalRecord,
} from '../../src-main/journal/index.js';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { createInvocationRuntime } from '../../src-main/runtime/invocations/index.js';
import { createMemoryScopeStore } from '../../src-main/runtime/scope/index.js';
import { STORE_KINDS, entry, record, tempDir } from './helpers/journal-fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function temp() {
  const t = tempDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof JournalError ? err.code : `uncoded: ${String(err)}`;
  }
  return 'no error';
}

for (const kind of STORE_KINDS) {
  describe(`${kind.name} store`, () => {
    it('load is null only when absent; save is CAS on the previous revision and returns the saved record', async () => {
      const store = kind.open(kind.place(temp()));
      expect(await store.load('s1')).toBeNull();
      const r1 = record('s1', 1, [entry()]);
      expect(await store.save('s1', r1, null)).toEqual(r1);
      const r2 = record('s1', 2, [...r1.entries, entry()]);
      expect(await store.save('s1', r2, 1)).toEqual(r2);
      // A stale writer that still expects revision 1 loses, and nothing it carried is stored.
      const stale = record('s1', 2, [entry({ last_state: 'succeeded' })]);
      expect(await codeOf(store.save('s1', stale, 1))).toBe('invocation_store_conflict');
      expect(await codeOf(store.save('s1', record('s1', 1, []), null))).toBe('invocation_store_conflict');
      expect(await store.load('s1')).toEqual(r2);
      expect(await store.load('s2')).toBeNull();
    });

    it('persists the complete record including updates and removals of entries', async () => {
      const place = kind.place(temp());
      const store = kind.open(place);
      const a = entry();
      const b = entry();
      await store.save('s1', record('s1', 1, [a, b]), null);
      const a2 = { ...a, last_state: 'succeeded' as const, receipt_digest: 'b'.repeat(64) };
      await store.save('s1', record('s1', 2, [a2]), 1);
      const reopened = kind.name === 'memory' ? store : kind.open(place);
      expect(await reopened.load('s1')).toEqual(record('s1', 2, [a2]));
    });

    if (kind.name !== 'memory') {
      it('survives a reopen of the same place (durable)', async () => {
        const place = kind.place(temp());
        const s1 = kind.open(place);
        const r = record('s1', 1, [entry(), entry()]);
        await s1.save('s1', r, null);
        await s1.close?.();
        expect(await kind.open(place).load('s1')).toEqual(r);
      });
    }
  });
}

describe('the memory store is not persistent', () => {
  it('a new memory store is empty and says so', async () => {
    const kind = STORE_KINDS.find((k) => k.name === 'memory')!;
    const a = kind.open('');
    await a.save('s1', record('s1', 1, [entry()]), null);
    const b = kind.open('');
    expect(await b.load('s1')).toBeNull();
    expect(b.persistent).toBe(false);
  });
});

describe('load errors are errors, never null', () => {
  it('file store: unreadable JSON and a record of another session', async () => {
    const dir = temp();
    const store = createFileInvocationStore({ directory: dir });
    writeFileSync(join(dir, 's_s1.json'), '{"schema": "bailing.agent-invocations.v2", "sessi');
    expect(await codeOf(store.load('s1'))).toBe('invocation_record_corrupt');
    writeFileSync(join(dir, 's_s2.json'), JSON.stringify(record('other', 1, [])));
    expect(await codeOf(store.load('s2'))).toBe('invocation_record_corrupt');
  });

  it('file store: a directory it cannot read', async () => {
    const dir = temp();
    const store = createFileInvocationStore({ directory: dir });
    // The record path is a directory: reading it fails with EISDIR, which must not look like "absent".
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 's_s1.json'));
    expect(await codeOf(store.load('s1'))).toBe('invocation_store_unavailable');
  });

  it('sqlite store: a corrupt row and a database that is not SQLite', async () => {
    const dir = temp();
    const path = join(dir, 'j.sqlite');
    const store = createSqliteInvocationStore({ path });
    await store.save('s1', record('s1', 1, [entry()]), null);
    const db = new Database(path);
    db.prepare("UPDATE journal_entries SET body = '{broken' WHERE session_id = 's1'").run();
    db.close();
    expect(await codeOf(store.load('s1'))).toBe('invocation_record_corrupt');
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(
      junk,
      'this is not a database file at all, just text that is long enough to look like a header'.repeat(20),
    );
    let code = 'no error';
    try {
      const s = createSqliteInvocationStore({ path: junk });
      await s.load('s1');
    } catch (err) {
      code = err instanceof JournalError ? err.code : 'uncoded';
    }
    expect(code).toBe('invocation_store_unavailable');
  });
});

describe('sqlite store: a save writes only what changed', () => {
  it('changing one entry of 2,000 writes one entry row, and load still returns all of them', async () => {
    const path = join(temp(), 'j.sqlite');
    const store = createSqliteInvocationStore({ path });
    const entries = Array.from({ length: 2000 }, () => entry());
    const saved = await store.save('s1', record('s1', 1, entries), null);
    const probe = new Database(path);
    probe.exec(`
      CREATE TABLE entry_writes (n INTEGER NOT NULL); INSERT INTO entry_writes VALUES (0);
      CREATE TRIGGER count_ins AFTER INSERT ON journal_entries BEGIN UPDATE entry_writes SET n = n + 1; END;
      CREATE TRIGGER count_upd AFTER UPDATE ON journal_entries BEGIN UPDATE entry_writes SET n = n + 1; END;
      CREATE TRIGGER count_del AFTER DELETE ON journal_entries BEGIN UPDATE entry_writes SET n = n + 1; END;`);
    const writes = () => (probe.prepare('SELECT n FROM entry_writes').get() as { n: number }).n;
    const changed = { ...saved.entries[700]!, last_state: 'succeeded' as const };
    const next = record('s1', 2, saved.entries.map((e, i) => (i === 700 ? changed : e)) as never);
    await store.save('s1', next, 1);
    expect(writes()).toBe(1);
    // Appending one entry: one more row.
    const loaded = (await store.load('s1'))!;
    await store.save(
      's1',
      { ...loaded, revision: 3, entries: [...loaded.entries, entry()] } as StoredJournalRecord,
      2,
    );
    expect(writes()).toBe(2);
    // A second store instance (another process) sees everything.
    const other = createSqliteInvocationStore({ path });
    const all = (await other.load('s1'))!;
    expect(all.entries.length).toBe(2001);
    expect(all.entries[700]).toEqual(changed);
    probe.close();
  });

  it('refuses duplicate invocation ids, whether both copies are new or one is already stored', async () => {
    const store = createSqliteInvocationStore({ path: join(temp(), 'j.sqlite') });
    const a = entry();
    const b = entry();
    expect(await codeOf(store.save('s1', record('s1', 1, [a, { ...a }]), null))).toBe(
      'invocation_record_invalid',
    );
    const saved = await store.save('s1', record('s1', 1, [a, b]), null);
    expect(
      await codeOf(
        store.save('s1', record('s1', 2, [...saved.entries, { ...a, last_state: 'succeeded' }] as never), 1),
      ),
    ).toBe('invocation_record_invalid');
    expect(
      await codeOf(store.save('s1', record('s1', 2, [saved.entries[0]!, saved.entries[0]!] as never), 1)),
    ).toBe('invocation_record_invalid');
    expect(await store.load('s1')).toEqual(record('s1', 1, [a, b]));
  });

  it('an entry mutated in place is not mistaken for unchanged (entries are frozen once saved)', async () => {
    const store = createSqliteInvocationStore({ path: join(temp(), 'j.sqlite') });
    const e = entry();
    await store.save('s1', record('s1', 1, [e]), null);
    expect(() => {
      (e as { last_state: string }).last_state = 'succeeded';
    }).toThrow();
  });

  it('uses WAL and synchronous=FULL', () => {
    const path = join(temp(), 'j.sqlite');
    createSqliteInvocationStore({ path });
    const db = new Database(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});

describe('file store lock', () => {
  it('a writer killed while holding the lock leaves it; it is never removed automatically; an operator resolves it', async () => {
    const dir = temp();
    const store = createFileInvocationStore({ directory: dir, lockWaitMs: 200 });
    await store.save('s1', record('s1', 1, [entry()]), null);
    const before = readFileSync(join(dir, 's_s1.json'), 'utf8');

    // A real child process takes the lock in a save and is SIGKILLed before it finishes.
    const child = fork(join(import.meta.dirname, 'helpers/lock-holder.ts'), [dir, 's1'], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`lock holder exited early (${code})`)));
    });
    const childPid = child.pid!;
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const lock = await store.inspectLock!('s1');
    expect(lock).toMatchObject({ pid: childPid });
    expect(typeof lock!.owner).toBe('string');
    expect(Number.isNaN(Date.parse(lock!.since))).toBe(false);

    const err = await store.save('s1', record('s1', 2, [entry()]), 1).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JournalError);
    expect((err as JournalError).code).toBe('invocation_store_unavailable');
    expect((err as JournalError).message).toContain(String(childPid));
    // Still there after the failed save, and the record is untouched.
    expect(existsSync(join(dir, 's_s1.lock'))).toBe(true);
    expect(readFileSync(join(dir, 's_s1.json'), 'utf8')).toBe(before);
    // Loads still work (readers never need the lock).
    expect((await store.load('s1'))!.revision).toBe(1);
    // The runtime's status reports the lock (and makes no Hub request to do so).
    const scopes = createMemoryScopeStore();
    await scopes.save({
      sessionId: 's1',
      hubId: 'hub-1',
      clientId: 'client-1',
      workspaceId: 'ws-1',
      connectionKey: 'http://127.0.0.1:1#client-1',
      members: [
        { authorization_ref: 'auth-shop-a', authorization_revision: 1, system_id: 'shop-a', account: 'a' },
      ],
      fingerprint: 'f'.repeat(64),
      revision: 1,
      taskId: null,
    });
    const noHub = createHubClient({
      baseUrl: 'http://127.0.0.1:9',
      token: 'unused',
      fetch: async () => {
        throw new Error('status must not call the Hub');
      },
    });
    const status = await createInvocationRuntime({
      hub: noHub,
      invocationStore: store,
      scopeStore: scopes,
    }).getSessionInvocationStatus('s1');
    expect(status.lock).toMatchObject({ pid: childPid });

    // Operator procedure: confirm the owner is gone, preserve the evidence, then remove the lock.
    expect(() => process.kill(childPid, 0)).toThrow();
    copyFileSync(join(dir, 's_s1.lock'), join(dir, 'evidence-s_s1.lock'));
    rmSync(join(dir, 's_s1.lock'));
    await expect(store.save('s1', record('s1', 2, [entry()]), 1)).resolves.toBeTruthy();
    expect(await store.inspectLock!('s1')).toBeNull();
  });

  it('concurrent saves in one process are serialized: one wins, the other gets a CAS conflict', async () => {
    const store = createFileInvocationStore({ directory: temp() });
    await store.save('s1', record('s1', 1, []), null);
    const results = await Promise.allSettled([
      store.save('s1', record('s1', 2, [entry()]), 1),
      store.save('s1', record('s1', 2, [entry()]), 1),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as JournalError).code).toBe('invocation_store_conflict');
  });
});

describe('property: two writers interleaving saves never lose an acknowledged record', () => {
  for (const kind of STORE_KINDS) {
    it(`${kind.name} store`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.scheduler(),
          fc.integer({ min: 1, max: 5 }),
          fc.integer({ min: 1, max: 5 }),
          async (s, na, nb) => {
            const t = tempDir();
            try {
              const place = kind.place(t.dir);
              const shared = kind.open(place);
              // Two writers, each with its own store instance where the store kind allows it (like two processes).
              const stores: InvocationStore[] =
                kind.name === 'memory' ? [shared, shared] : [shared, kind.open(place)];
              const acknowledged: string[] = [];
              const revisions: number[] = [];
              const writer = async (w: number, count: number) => {
                const store = stores[w]!;
                for (let i = 0; i < count; i++) {
                  const e = entry({ host_call_id: `w${w}-${i}` });
                  for (let attempt = 0; attempt < 50; attempt++) {
                    const current = await s.schedule(store.load('sess'), `w${w} load`);
                    const next = record('sess', (current?.revision ?? 0) + 1, [
                      ...((current?.entries ?? []) as never[]),
                      e,
                    ]);
                    try {
                      const saved = await s.schedule(
                        store.save('sess', next, current?.revision ?? null),
                        `w${w} save`,
                      );
                      acknowledged.push(e.invocation_id);
                      revisions.push(saved.revision);
                      break;
                    } catch (err) {
                      if (!(err instanceof JournalError) || err.code !== 'invocation_store_conflict')
                        throw err;
                    }
                  }
                }
              };
              const run = Promise.all([writer(0, na), writer(1, nb)]);
              await s.waitFor(run);
              const final = (await shared.load('sess'))!;
              const ids = new Set(final.entries.map((e) => e.invocation_id));
              for (const id of acknowledged) expect(ids.has(id)).toBe(true);
              expect(new Set(revisions).size).toBe(revisions.length);
              expect(final.revision).toBe(Math.max(...revisions));
              expect(final.entries.length).toBe(acknowledged.length);
            } finally {
              t.cleanup();
            }
          },
        ),
        { numRuns: kind.name === 'memory' ? 100 : 40 },
      );
    });
  }
});
