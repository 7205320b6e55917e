// The store's started steps (sql/session.ts `started`, ops/systems.ts `sendLiveSystemCheck`) on a
// real SQLite file: what they answer, that a first query runs at once, and that the generators of
// two calls share one prototype. A generator function made anew per call gives its generators a
// prototype of their own, which kept every property read on them off V8's caches (about 3.5 µs a
// call on the invoke's reads, measured in bench:hub-ab).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSystemRetiredError } from '../../src-hub/store/errors.js';
import { sendLiveSystemCheck } from '../../src-hub/store/sql/ops/systems.js';
import { io, runSync, started, type SqlSession, type Step } from '../../src-hub/store/sql/session.js';
import { openDatabase } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';

function* metaValue(s: SqlSession, key: string): Step<string | null> {
  const row = yield* io(s.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]));
  return row ? row.value : null;
}

function* twoValues(s: SqlSession, seen: string[]): Step<string> {
  seen.push('second step asked');
  const second = yield* io(s.get<{ value: string }>("SELECT value FROM meta WHERE key = 'b'"));
  return `a=${seen[0]} b=${second?.value ?? 'none'}`;
}

function* firstThenSecond(s: SqlSession, seen: string[]): Step<string> {
  const first = yield* io(s.get<{ value: string }>("SELECT value FROM meta WHERE key = 'a'"));
  seen.push(first?.value ?? 'none');
  return yield* twoValues(s, seen);
}

describe('started steps on SQLite', () => {
  let dir: string;
  let db: Database.Database;
  let s: SqlSession;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'started-steps-'));
    db = openDatabase(dir);
    s = createSqliteSession(db);
    db.prepare("INSERT INTO meta (key, value) VALUES ('a', '1'), ('b', '2')").run();
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the first query at once and the rest when run on, with the answers of a plain run', () => {
    const seen: string[] = [];
    const handle = started(firstThenSecond(s, seen));
    expect(seen).toEqual([]);
    // both rows changed after the first query ran: it answers what it read then, the rest reads now
    db.prepare("UPDATE meta SET value = '3' WHERE key = 'b'").run();
    db.prepare("UPDATE meta SET value = '4' WHERE key = 'a'").run();
    expect(runSync(handle)).toBe('a=1 b=3');
    expect(seen).toEqual(['1', 'second step asked']);
    expect(runSync(started(metaValue(s, 'a')))).toBe(runSync(metaValue(s, 'a')));
    expect(runSync(started(metaValue(s, 'missing')))).toBeNull();
  });

  it('keeps each handle to its own step, whichever order they are run on', () => {
    const a = started(metaValue(s, 'a'));
    const b = started(metaValue(s, 'b'));
    const none = started(metaValue(s, 'none'));
    expect(runSync(b)).toBe('2');
    expect(runSync(none)).toBeNull();
    expect(runSync(a)).toBe('1');
  });

  it("gives two calls' handles one prototype (no generator function made per call)", () => {
    const one = started(metaValue(s, 'a'));
    const two = started(metaValue(s, 'b'));
    expect(Object.getPrototypeOf(one)).toBe(Object.getPrototypeOf(two));
    runSync(one);
    runSync(two);
  });

  it('checks a live system: passes an active one, refuses a retired one, one prototype for every check', () => {
    const cols = db.prepare('PRAGMA table_info(systems)').all() as Array<{ name: string; notnull: number }>;
    const value = (name: string) =>
      name === 'system_id' ? 'sys-live' : name === 'retired_at' ? null : name.endsWith('_json') ? '{}' : 'x';
    db.prepare(
      `INSERT INTO systems (${cols.map((c) => c.name).join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
    ).run(...cols.map((c) => value(c.name)));
    const live = sendLiveSystemCheck(s, 'sys-live')();
    const unknown = sendLiveSystemCheck(s, 'sys-unknown')();
    expect(Object.getPrototypeOf(live)).toBe(Object.getPrototypeOf(unknown));
    expect(runSync(live)).toBeUndefined();
    expect(runSync(unknown)).toBeUndefined();
    db.prepare(
      "UPDATE systems SET retired_at = '2026-12-03T00:00:00.000Z' WHERE system_id = 'sys-live'",
    ).run();
    // the check reads the row when it is made (sent ahead), and answers when it is run on
    const retired = sendLiveSystemCheck(s, 'sys-live');
    let caught: unknown = null;
    try {
      runSync(retired());
    } catch (err) {
      caught = err;
    }
    expect(isSystemRetiredError(caught)).toBe(true);
  });
});
