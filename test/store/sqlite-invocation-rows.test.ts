// The SQLite writer keeps the invocation rows it wrote (writer/invocation-rows.ts), so a call's next
// change does not read its row again. A kept row must never be served once it is not the stored
// one: not after its write was rolled back (the whole batch, or the one write alone), not after
// another connection changed the row; and no code but invocation-change.ts (which keeps every row
// it writes) may write the invocations table.
import Database from 'better-sqlite3';
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READ_INVOCATION_SQL } from '../../src-hub/store/sql/ops/invocations.js';
import { INVOCATION_COLUMNS } from '../../src-hub/store/sql/rows.js';
import { connectWriter } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import { createInvocationRows } from '../../src-hub/store/sqlite/writer/invocation-rows.js';
import type { WriteAnswer } from '../../src-hub/store/sqlite/writer/protocol.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import {
  AT,
  audit,
  dispatchChange,
  invocation,
  MISSING_APPROVAL_DECISION,
  permitFor,
  seedCatalog,
  task,
} from './fixtures.js';
import { changeResult, countingGets, runChanges } from './writer-changes.js';

let dir: string;
let store: HubStore;
let db: Database.Database;
let reads: number;
let committer: ReturnType<typeof createGroupCommitter>;
let taskId: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-kept-rows-'));
  store = createSqliteStore({ dataDir: dir });
  await seedCatalog(store);
  const t = task({ budget: 100 });
  taskId = t.task_id;
  await store.createTask(t, audit);
  await store.flushEvents();
  db = connectWriter(dir);
  reads = 0;
  committer = createGroupCommitter(db, {
    sql: countingGets(createSqliteSession(db), READ_INVOCATION_SQL, () => (reads += 1)),
    rules: STORE_RULES,
  });
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...changes: InvocationChange[]): WriteAnswer[] => runChanges(committer, changes);
const result = changeResult;
const move = (
  id: string,
  from: InvocationChange['from'],
  to: InvocationChange['to'],
  extra: Partial<InvocationChange> = {},
): InvocationChange => ({ invocation_id: id, from, to, at: AT, audit, ...extra });

/** A call created `dispatching` with a permit, by the writer under test (so its row is kept). */
function dispatched(): InvocationRecord {
  const rec = invocation({ task_id: taskId });
  const r = result(run(dispatchChange(rec, { permit: permitFor(taskId), audit }))[0]);
  expect(r.kind).toBe('applied');
  return rec;
}
const stored = (id: string) =>
  db.prepare('SELECT state, reason_message FROM invocations WHERE invocation_id = ?').get(id) as {
    state: string;
    reason_message: string | null;
  };

describe('SQLite writer: the invocation rows it keeps', () => {
  it("a call's next change is applied from the row the writer kept, without reading it again, and answers the stored record", async () => {
    const rec = dispatched();
    reads = 0;
    const r = result(
      run(
        move(rec.invocation_id, 'dispatching', 'succeeded', {
          patch: { dispatch: 'confirmed', result: { ok: true }, business_status: 200 },
          release_permit: { now_ms: Date.parse(AT) + 1 },
        }),
      )[0],
    );
    expect(reads).toBe(0);
    expect(r.kind).toBe('applied');
    // the answer is the row as a fresh read of it decodes it
    expect(r.kind === 'applied' ? r.record : null).toEqual(await store.getInvocation(rec.invocation_id));
    expect(db.prepare('SELECT permits_open FROM tasks WHERE task_id = ?').pluck().get(taskId)).toBe(0);
  });

  // A kept row of the wrong state would mostly fail its compare-and-set UPDATE, and the batch would
  // run again reading the row: these tests also count the batches run again (none may be), and
  // check the fields the state does not guard.
  it('a row written by a write that was rolled back is not served: the next change finds the stored row', () => {
    const rec = dispatched();
    // the whole batch rolled back, then run again write by write: the first move commits, the
    // second writes the row (a state that is not terminal, so it would be kept) and is undone alone
    const answers = run(
      move(rec.invocation_id, 'dispatching', 'unknown', { release_permit: { now_ms: Date.parse(AT) + 1 } }),
      move(rec.invocation_id, 'unknown', 'unverified', {
        patch: { reason_message: 'never stored' },
        decide_approval: MISSING_APPROVAL_DECISION,
      }),
    );
    expect(answers.map((a) => a.ok)).toEqual([true, false]);
    expect(committer.stats.retried).toBe(1);
    expect(stored(rec.invocation_id)).toEqual({ state: 'unknown', reason_message: null });
    reads = 0;
    const r = result(run(move(rec.invocation_id, 'unknown', 'unverified'))[0]);
    expect(r.kind).toBe('applied');
    expect(r.kind === 'applied' ? r.record.reason_message : 'stale').toBeNull();
    expect(reads).toBe(1);
    expect(committer.stats.retried).toBe(1);
    expect(stored(rec.invocation_id)).toEqual({ state: 'unverified', reason_message: null });
  });

  it("a row another connection changed (an operator's SQL, another store's writer) is read again, never served as kept", async () => {
    const a = dispatched();
    const b = dispatched();
    // a plain UPDATE on another connection, of a column that is not the state
    const other = new Database(join(dir, 'hub.sqlite'));
    try {
      other
        .prepare('UPDATE invocations SET reason_message = ? WHERE invocation_id = ?')
        .run('set by an operator', b.invocation_id);
    } finally {
      other.close();
    }
    reads = 0;
    const r = result(
      run(
        move(b.invocation_id, 'dispatching', 'unknown', { release_permit: { now_ms: Date.parse(AT) + 1 } }),
      )[0],
    );
    expect(reads).toBe(1);
    expect(r.kind === 'applied' ? r.record.reason_message : null).toBe('set by an operator');
    expect(stored(b.invocation_id)).toEqual({ state: 'unknown', reason_message: 'set by an operator' });
    // another store on the same file (the operator CLI, a second Hub process) moves a call on
    const moved = await store.applyInvocationChange(
      move(a.invocation_id, 'dispatching', 'unknown', {
        patch: { reason_message: 'moved by the other store' },
        release_permit: { now_ms: Date.parse(AT) + 1 },
      }),
    );
    expect(moved.kind).toBe('applied');
    reads = 0;
    const settled = result(run(move(a.invocation_id, 'unknown', 'unverified'))[0]);
    expect(settled.kind).toBe('applied');
    expect(settled.kind === 'applied' ? settled.record.reason_message : null).toBe(
      'moved by the other store',
    );
    expect(reads).toBe(1);
    expect(committer.stats.retried).toBe(0);
  });

  it('keeps at most its limit, the row written longest ago going first, no call in a terminal state; served as a read decodes them, a copy', () => {
    const rows = createInvocationRows(2);
    const [a, b, c] = [1, 2, 3].map(() => invocation({ state: 'dispatching' }));
    rows.put(a!);
    rows.put(b!);
    rows.put(a!); // written again: now the newest
    rows.put(c!);
    expect([a, b, c].map((r) => rows.get(r!.invocation_id) !== undefined)).toEqual([true, false, true]);
    rows.put({ ...c!, state: 'succeeded' });
    expect(rows.get(c!.invocation_id)).toBeUndefined();
    // a record with fields unset (a refusal without a retry time; no remote task id)
    const unset = { ...b!, retry_after_ms: undefined } as unknown as InvocationRecord;
    delete unset.remote_task_id;
    rows.put(unset);
    const kept = rows.get(b!.invocation_id)!;
    expect(kept.retry_after_ms).toBeNull();
    expect(kept.remote_task_id).toBeNull();
    // served as a read decodes the row: its fields in the stored order
    expect(Object.keys(kept)).toEqual(INVOCATION_COLUMNS.map((c) => c.replace(/_json$/, '')));
    expect(kept).not.toBe(unset);
    rows.forget();
    expect(rows.size).toBe(0);
  });

  it('no code but sql/ops/invocation-change.ts writes the invocations table (the rows it keeps would not see it)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const writes = /\b(insert\s+(or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+invocations\b/i;
    const found: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(ts|mts|js|mjs)$/.test(e.name) && writes.test(readFileSync(p, 'utf8')))
          found.push(relative(root, p));
      }
    };
    for (const d of ['src-hub', 'src-shared', 'src-main', 'scripts']) walk(join(root, d));
    expect(found).toEqual(['src-hub/store/sql/ops/invocation-change.ts']);
  });
});
