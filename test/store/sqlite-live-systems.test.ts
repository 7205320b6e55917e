// The SQLite writer keeps the systems new calls found in service (writer/live-systems.ts), so the
// next new calls of a system do not read its row again. A kept system must never be served once it
// may have left service: not after a retire through the writer, not after another connection's
// retire, not after a rollback. Each test here fails when one of the group committer's forgets is
// taken out.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SYSTEM_RETIRED } from '../../src-hub/store/errors.js';
import { connectWriter } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import { createLiveSystems } from '../../src-hub/store/sqlite/writer/live-systems.js';
import type { WriteAnswer } from '../../src-hub/store/sqlite/writer/protocol.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { HubStore, InvocationChange } from '../../src-hub/store/types.js';
import { AT, audit, dispatchChange, invocation, MISSING_APPROVAL_DECISION, seedCatalog } from './fixtures.js';
import { changeResult, countingGets, runChanges } from './writer-changes.js';

const LIVE_SYSTEM_SQL = 'SELECT retired_at FROM systems WHERE system_id = ?';

let dir: string;
let store: HubStore;
let db: Database.Database;
let committer: ReturnType<typeof createGroupCommitter>;
/** Reads of a system's retired_at by the writer. */
let reads: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-kept-live-systems-'));
  store = createSqliteStore({ dataDir: dir });
  await seedCatalog(store);
  await store.flushEvents();
  db = connectWriter(dir);
  reads = 0;
  committer = createGroupCommitter(db, {
    sql: countingGets(createSqliteSession(db), LIVE_SYSTEM_SQL, () => (reads += 1)),
    rules: STORE_RULES,
  });
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...changes: InvocationChange[]): WriteAnswer[] => runChanges(committer, changes);
/** A new call of sys-a, settled at once (so the system has nothing unresolved), its system checked. */
const newCall = (): InvocationChange => ({
  ...dispatchChange(invocation(), { to: 'not_dispatched', audit }),
  live_system: 'sys-a',
});
const failedCode = (a: WriteAnswer | undefined) => (a && !a.ok ? a.error.code : 'not failed');

describe('SQLite writer: the systems it keeps as in service', () => {
  it("a system's next new calls are not checked again; a retire through the writer is seen by the next", () => {
    expect(changeResult(run(newCall())[0]).kind).toBe('applied');
    expect(reads).toBe(1);
    expect(run(newCall(), newCall()).map((a) => changeResult(a).kind)).toEqual(['applied', 'applied']);
    expect(reads).toBe(1);
    const [retired] = committer.run([
      {
        id: 1,
        op: 'retireSystem',
        args: ['sys-a', AT, { actor: 'test', kind: 'system.retired', detail: {} }],
      },
    ]).answers;
    expect(retired?.ok && (retired.value as { kind: string }).kind).toBe('retired');
    // read again (the refused call's batch runs a second time, write by write: a third read)
    expect(failedCode(run(newCall())[0])).toBe(SYSTEM_RETIRED);
    expect(reads).toBe(3);
  });

  it('a kept system another connection retired is read again, never served as in service', () => {
    expect(changeResult(run(newCall())[0]).kind).toBe('applied');
    const other = new Database(join(dir, 'hub.sqlite'));
    try {
      other.prepare('UPDATE systems SET retired_at = ? WHERE system_id = ?').run(AT, 'sys-a');
    } finally {
      other.close();
    }
    expect(failedCode(run(newCall())[0])).toBe(SYSTEM_RETIRED);
    expect(reads).toBe(3); // read again, and once more as the batch runs again write by write
  });

  it('a system found in service by a batch that was rolled back is checked again', () => {
    const broken = dispatchChange(invocation(), { decide_approval: MISSING_APPROVAL_DECISION, audit });
    // checked in the batch, rolled back, checked again in its rerun (the kept system forgotten with it)
    expect(run(newCall(), broken).map((a) => a.ok)).toEqual([true, false]);
    expect(committer.stats.retried).toBe(1);
    expect(reads).toBe(2);
    // the failed write undone alone forgot everything kept too: checked once more, then kept
    expect(changeResult(run(newCall())[0]).kind).toBe('applied');
    expect(reads).toBe(3);
    expect(changeResult(run(newCall())[0]).kind).toBe('applied');
    expect(reads).toBe(3);
  });

  it('keeps at most its limit, the one added longest ago going first', () => {
    const live = createLiveSystems(2);
    live.add('a');
    live.add('b');
    live.add('a'); // added again: not a new one
    live.add('c');
    expect(['a', 'b', 'c'].map((s) => live.has(s))).toEqual([false, true, true]);
    live.forget();
    expect(live.size).toBe(0);
  });
});
