/**
 * File invocation store: one JSON file per session in a protected directory.
 * A save takes a per-session lock file (created exclusively, naming its owner's host, pid and
 * time), compares the stored revision, writes a temp file, fsyncs it, renames it over the record
 * and fsyncs the directory, then releases the lock. A lock left behind by a writer that exited
 * abnormally is NEVER removed automatically: saves fail with `invocation_store_unavailable`
 * and `inspectLock` reports it until an operator resolves it (see docs/journal.md).
 */
import { randomBytes, createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { JournalError } from './errors.js';
import {
  checkRevisionArithmetic,
  checkSessionId,
  createIncrementalValidator,
  validateRecord,
  type StoredJournalRecord,
} from './record.js';
import type { InvocationStore, StoreLockInfo } from './store.js';

export interface FileInvocationStoreOptions {
  directory: string;
  /** How long a save waits for a lock held by another writer before failing (ms). Default 2000. */
  lockWaitMs?: number;
  /** Fault injection for tests (e.g. a writer killed while it holds the lock). */
  hooks?: { afterLock?: (sessionId: string) => Promise<void> | void };
}

function fileBase(sessionId: string): string {
  if (/^[A-Za-z0-9_-]{1,100}$/.test(sessionId)) return `s_${sessionId}`;
  return `h_${createHash('sha256').update(sessionId).digest('hex')}`;
}

function ioError(err: unknown, what: string): JournalError {
  if (err instanceof JournalError) return err;
  const code = (err as { code?: unknown })?.code;
  return new JournalError(
    'invocation_store_unavailable',
    `file invocation store: ${what} failed${typeof code === 'string' ? ` (${code})` : ''}`,
  );
}

async function fsyncDir(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createFileInvocationStore(options: FileInvocationStoreOptions): InvocationStore {
  const directory = options.directory;
  const lockWaitMs = options.lockWaitMs ?? 2000;
  try {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw ioError(err, 'creating the directory');
  }
  const recordPath = (s: string) => join(directory, `${fileBase(s)}.json`);
  const lockPath = (s: string) => join(directory, `${fileBase(s)}.lock`);
  const chains = new Map<string, Promise<unknown>>();
  const validated = createIncrementalValidator();

  /** The stored file parsed as JSON; null only when there is no file. */
  async function readJson(sessionId: string): Promise<{ value: unknown } | null> {
    let text: string;
    try {
      text = await readFile(recordPath(sessionId), 'utf8');
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return null;
      throw ioError(err, 'reading the record');
    }
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      throw new JournalError('invocation_record_corrupt', 'the stored invocation record is not valid JSON');
    }
  }

  /** The stored revision only (for the CAS compare): parses the file, no full validation. */
  async function readRevision(sessionId: string): Promise<number | null> {
    const stored = await readJson(sessionId);
    if (stored === null) return null;
    const revision = (stored.value as { revision?: unknown } | null)?.revision;
    if (typeof revision !== 'number' || !Number.isInteger(revision) || revision < 1)
      throw new JournalError(
        'invocation_record_corrupt',
        'the stored invocation record has no valid revision',
      );
    return revision;
  }

  async function readRecord(sessionId: string): Promise<StoredJournalRecord | null> {
    const stored = await readJson(sessionId);
    if (stored === null) return null;
    const value = stored.value;
    const record = validateRecord(value, 'invocation_record_corrupt');
    if (record.sessionId !== sessionId)
      throw new JournalError('invocation_record_corrupt', 'the stored record belongs to another session');
    return record;
  }

  async function readLock(sessionId: string): Promise<StoreLockInfo | null> {
    let text: string;
    try {
      text = await readFile(lockPath(sessionId), 'utf8');
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ENOENT') return null;
      throw ioError(err, 'reading the lock');
    }
    try {
      const v = JSON.parse(text) as Partial<StoreLockInfo>;
      return {
        owner: String(v.owner ?? 'unknown'),
        pid: Number(v.pid ?? -1),
        since: String(v.since ?? 'unknown'),
      };
    } catch {
      return { owner: 'unknown (unreadable lock file)', pid: -1, since: 'unknown' };
    }
  }

  async function acquireLock(sessionId: string): Promise<void> {
    const deadline = Date.now() + lockWaitMs;
    const info: StoreLockInfo = { owner: hostname(), pid: process.pid, since: new Date().toISOString() };
    for (;;) {
      try {
        const handle = await open(lockPath(sessionId), 'wx', 0o600);
        try {
          await handle.writeFile(JSON.stringify(info));
          await handle.sync();
        } finally {
          await handle.close();
        }
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'EEXIST') throw ioError(err, 'taking the lock');
      }
      if (Date.now() >= deadline) {
        const held = await readLock(sessionId).catch(() => null);
        throw new JournalError(
          'invocation_store_unavailable',
          `invocation record is locked${held ? ` by pid ${held.pid} on ${held.owner} since ${held.since}` : ''}; a lock is never removed automatically`,
        );
      }
      await sleep(20);
    }
  }

  async function saveLocked(
    sessionId: string,
    next: StoredJournalRecord,
    expectedRevision: number | null,
  ): Promise<StoredJournalRecord> {
    const record = validated(next);
    checkSessionId(sessionId, record);
    checkRevisionArithmetic(record, expectedRevision);
    await acquireLock(sessionId);
    const tmp = join(
      directory,
      `${fileBase(sessionId)}.json.tmp-${process.pid}-${randomBytes(6).toString('hex')}`,
    );
    let renamed = false;
    try {
      if (options.hooks?.afterLock) await options.hooks.afterLock(sessionId);
      const current = await readRevision(sessionId);
      if (current !== expectedRevision) {
        throw new JournalError(
          'invocation_store_conflict',
          `stored revision is ${current ?? 'absent'}, expected ${expectedRevision ?? 'absent'}`,
          current,
        );
      }
      try {
        const handle = await open(tmp, 'wx', 0o600);
        try {
          await handle.writeFile(JSON.stringify(record));
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(tmp, recordPath(sessionId));
        renamed = true;
        await fsyncDir(directory);
      } catch (err) {
        throw ioError(err, 'writing the record');
      }
      return record;
    } finally {
      if (!renamed) await rm(tmp, { force: true }).catch(() => undefined);
      // Our own lock, released by the live writer that took it.
      await rm(lockPath(sessionId), { force: true }).catch(() => undefined);
    }
  }

  return {
    kind: 'file',
    persistent: true,
    load: (sessionId) => readRecord(sessionId),
    save(sessionId, next, expectedRevision) {
      // Saves of one session within this process are serialized; across processes the lock file decides.
      const previous = chains.get(sessionId) ?? Promise.resolve();
      const run = previous.catch(() => undefined).then(() => saveLocked(sessionId, next, expectedRevision));
      chains.set(sessionId, run);
      void run
        .finally(() => {
          if (chains.get(sessionId) === run) chains.delete(sessionId);
        })
        .catch(() => undefined);
      return run;
    },
    inspectLock: (sessionId) => readLock(sessionId),
  };
}
