// The SQLite writer keeps, with each task's unresolved list it keeps between views
// (sql/task-events.ts), the list as JSON, and lays it into the task's next views instead of rendering
// the list again while it is unchanged. Every view must be exactly the text a fresh rendering of
// the stored task gives: after a listed call moved on unresolved, a listed call resolved out of a
// short list, a call joining a short list and a full one, and changes that leave the list as it was
// (each test fails when the JSON is not dropped where its list changes).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TASK_VIEW_UNRESOLVED_LIMIT } from '../../src-shared/hub-api.js';
import { readTask } from '../../src-hub/store/sql/ops/tasks.js';
import { readTaskUsage } from '../../src-hub/store/sql/ops/task-usage.js';
import { runSync } from '../../src-hub/store/sql/session.js';
import { connectWriter, sqliteFile } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { HubStore, InvocationChange, InvocationRecord } from '../../src-hub/store/types.js';
import { AT, audit, dispatchChange, invocation, permitFor, seedCatalog, task } from './fixtures.js';
import { changeResult, runChanges } from './writer-changes.js';

let dir: string;
let store: HubStore;
let db: Database.Database;
let committer: ReturnType<typeof createGroupCommitter>;
let taskId: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-task-view-json-'));
  store = createSqliteStore({ dataDir: dir });
  await seedCatalog(store);
  // a title with text like the writer's stand-in for the list: it must come out as it went in
  const t = task({ budget: 10_000, inFlight: 10_000, title: 'a \u0000unresolved title' });
  taskId = t.task_id;
  await store.createTask(t, audit);
  await store.flushEvents();
  db = connectWriter(dir);
  committer = createGroupCommitter(db, { sql: createSqliteSession(db), rules: STORE_RULES });
});
afterEach(async () => {
  db?.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `n` calls of the task, created `dispatching` with a permit, at the given creation times. */
const created = (times: string[]): InvocationRecord[] =>
  times.map((created_at) => invocation({ task_id: taskId, created_at, updated_at: created_at }));
const opened = (calls: InvocationRecord[]): InvocationChange[] =>
  calls.map((c) => dispatchChange(c, { permit: permitFor(taskId) }));
const moved = (
  call: InvocationRecord,
  to: InvocationChange['to'],
  from: InvocationChange['from'] = 'dispatching',
): InvocationChange => ({
  invocation_id: call.invocation_id,
  from,
  to,
  at: '2026-11-30T11:00:00.000Z',
  audit,
  ...(from === 'dispatching' ? { release_permit: { now_ms: Date.parse(AT) + 1 } } : {}),
});
const at = (minute: number) => new Date(Date.parse(AT) + minute * 60_000).toISOString();

/** Runs one batch (each change applied) and expects its task view to be a fresh rendering, text for text. */
function batchAndExpectFreshView(changes: InvocationChange[]): void {
  for (const a of runChanges(committer, changes)) expect(changeResult(a).kind).toBe('applied');
  const last = db
    .prepare(
      "SELECT payload_json, at FROM events WHERE type = 'task.changed' AND payload_json LIKE ? ORDER BY seq DESC LIMIT 1",
    )
    .get(`%${taskId}%`) as { payload_json: string; at: string };
  const fresh = new Database(sqliteFile(dir), { readonly: true });
  try {
    const s = createSqliteSession(fresh);
    const nowMs = Date.parse(last.at);
    const t = runSync(readTask(s, taskId))!;
    const usage = runSync(readTaskUsage(s, taskId, nowMs, null));
    expect(last.payload_json).toBe(JSON.stringify(STORE_RULES.taskEvent(t, usage, nowMs)));
  } finally {
    fresh.close();
  }
}

/**
 * A batch that leaves the list as it was (a call of the task that is never unresolved), twice: the
 * list's second view as it is lays in its kept JSON, so the next change of the list finds it kept.
 */
function unchangedTwice(): void {
  for (const call of created([at(5), at(6)]))
    batchAndExpectFreshView([dispatchChange(call, { to: 'not_dispatched', patch: {} })]);
}

describe('SQLite writer: a kept unresolved list laid into task views as JSON', () => {
  it('a short list: a listed call moved on, resolved, and a call joining, each shown in the next view', () => {
    const [a, b, c, d] = created([at(10), at(20), at(30), at(1)]);
    batchAndExpectFreshView(opened([a!, b!, c!]));
    unchangedTwice();
    batchAndExpectFreshView([moved(a!, 'unknown')]); // listed, still unresolved: its row replaced
    unchangedTwice();
    batchAndExpectFreshView([moved(b!, 'succeeded')]); // listed, resolved: it leaves the list
    unchangedTwice();
    batchAndExpectFreshView(opened([d!])); // a new call joins, first
    unchangedTwice();
    batchAndExpectFreshView([moved(a!, 'succeeded', 'unknown'), moved(c!, 'failed')]);
  });

  it('a full list: a call created before its last joins it, calls after its last and settled ones leave it as it was', () => {
    const many = created(Array.from({ length: TASK_VIEW_UNRESOLVED_LIMIT + 5 }, (_, i) => at(100 + i)));
    batchAndExpectFreshView(opened(many));
    const [late, early] = created([at(10_000), at(50)]);
    batchAndExpectFreshView(opened([late!])); // after the last: not listed, the list as it was
    batchAndExpectFreshView([moved(late!, 'succeeded')]); // never listed, resolved
    batchAndExpectFreshView(opened([early!])); // before the last: joins, the last drops out
    unchangedTwice();
    batchAndExpectFreshView([moved(many[3]!, 'unknown')]); // listed, moved on unresolved
  });
});
