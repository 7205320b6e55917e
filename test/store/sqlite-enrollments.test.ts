// The SQLite writer keeps the session enrollments it read or wrote (writer/enrollments.ts), so a
// permit does not read its session's enrollment again. A kept enrollment must never be served once
// it is not the stored one: not after the write that enrolled the session was rolled back (the whole
// batch, or that write alone), not after another connection changed the table. Each test here
// fails when one of the group committer's forgets is taken out.
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { READ_ENROLLMENT_SQL } from '../../src-hub/store/sql/ops/invocation-change.js';
import type { SqlSession } from '../../src-hub/store/sql/session.js';
import { connectWriter } from '../../src-hub/store/sqlite/open.js';
import { createSqliteSession } from '../../src-hub/store/sqlite/session.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { createEnrollmentRows } from '../../src-hub/store/sqlite/writer/enrollments.js';
import { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import type { WriteAnswer } from '../../src-hub/store/sqlite/writer/protocol.js';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import type { HubStore, InvocationChange } from '../../src-hub/store/types.js';
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
import { changeResult, runChanges } from './writer-changes.js';

let dir: string;
let store: HubStore;
let db: Database.Database;
let committer: ReturnType<typeof createGroupCommitter>;
let taskA: string;
let taskB: string;
/** Reads of a session's enrollment by the writer. */
let reads: number;
/** How many more times the audit entry of an enrollment fails to be written (a fault after the enrollment row). */
let failEnrollmentAudits: number;

/** The writer's session: counts the enrollment reads, and fails an enrollment's audit entry on demand. */
function faulty(inner: SqlSession): SqlSession {
  return {
    ...inner,
    dialect: inner.dialect,
    get: ((sql: string, params?: never[]) => {
      if (sql === READ_ENROLLMENT_SQL) reads += 1;
      return inner.get(sql, params);
    }) as SqlSession['get'],
    write: ((sql: string, params?: never[], expect?: number) => {
      if (
        failEnrollmentAudits > 0 &&
        sql.startsWith('INSERT INTO audit') &&
        params?.[2] === 'session.enrolled'
      ) {
        failEnrollmentAudits -= 1;
        throw new Error('injected: the enrollment audit entry cannot be written');
      }
      return inner.write(sql, params, expect);
    }) as SqlSession['write'],
  };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hub-kept-enrollments-'));
  store = createSqliteStore({ dataDir: dir });
  await seedCatalog(store);
  const a = task({ budget: 100 });
  const b = task({ budget: 100 });
  taskA = a.task_id;
  taskB = b.task_id;
  await store.createTask(a, audit);
  await store.createTask(b, audit);
  await store.flushEvents();
  db = connectWriter(dir);
  reads = 0;
  failEnrollmentAudits = 0;
  committer = createGroupCommitter(db, { sql: faulty(createSqliteSession(db)), rules: STORE_RULES });
});
afterEach(async () => {
  db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...changes: InvocationChange[]): WriteAnswer[] => runChanges(committer, changes);
const result = changeResult;
/** A new call of `session` bound to `taskId`, asking for its permit with the enrollment gate, as transitionInvocation sends it. */
const permitOf = (session: string, taskId: string): InvocationChange =>
  dispatchChange(invocation({ agent_session_id: session, task_id: taskId }), {
    permit: permitFor(taskId),
    enrollment: { refused_to: 'not_dispatched' },
    audit,
  });
/** A new call of `session` without a task, with the enrollment gate, as transitionInvocation sends it. */
const untaskedOf = (session: string): InvocationChange =>
  dispatchChange(invocation({ agent_session_id: session }), {
    enrollment: { refused_to: 'not_dispatched' },
    audit,
  });
const enrolledIn = (session: string) =>
  db
    .prepare('SELECT task_id FROM session_enrollments WHERE client_id = ? AND agent_session_id = ?')
    .pluck()
    .get('desk', session) as string | undefined;
const session = () => `sess-${crypto.randomUUID()}`;

describe('SQLite writer: the session enrollments it keeps', () => {
  it("a session's later permits are decided from the enrollment the writer kept, without reading it again", () => {
    const s = session();
    expect(result(run(permitOf(s, taskA))[0]).kind).toBe('applied');
    expect(enrolledIn(s)).toBe(taskA);
    reads = 0;
    const answers = run(permitOf(s, taskA), permitOf(s, taskA), permitOf(s, taskB));
    expect(reads).toBe(0);
    expect(answers.map((a) => result(a).kind)).toEqual(['applied', 'applied', 'refused']);
    const refused = result(answers[2]);
    expect(refused.kind === 'refused' ? refused.refusal.code : null).toBe('task_required');
    // an enrollment read from the file (written before this writer started) is kept as well
    const other = session();
    const fresh = createSqliteStore({ dataDir: dir });
    return (async () => {
      try {
        expect((await fresh.applyInvocationChange(permitOf(other, taskB))).kind).toBe('applied');
      } finally {
        await fresh.close();
      }
      reads = 0;
      expect(result(run(permitOf(other, taskB))[0]).kind).toBe('applied');
      expect(reads).toBe(1);
      expect(result(run(permitOf(other, taskA))[0]).kind).toBe('refused');
      expect(reads).toBe(1);
    })();
  });

  it('an enrollment written by a batch that was rolled back is written again when the batch runs again', () => {
    const s = session();
    const broken = dispatchChange(invocation({ task_id: taskA }), {
      permit: permitFor(taskA),
      decide_approval: MISSING_APPROVAL_DECISION,
      audit,
    });
    const answers = run(permitOf(s, taskA), broken);
    expect(answers.map((a) => a.ok)).toEqual([true, false]);
    expect(committer.stats.retried).toBe(1);
    // kept across the rollback, the enrollment would have let the rerun skip writing it
    expect(enrolledIn(s)).toBe(taskA);
  });

  it('an enrollment whose write was undone alone is not served: the session may still enroll in another task', () => {
    const s = session();
    // the enrollment row is written, then its audit entry fails: in the batch, and again when the
    // batch runs write by write, where the write alone is undone
    failEnrollmentAudits = 2;
    const [first] = run(permitOf(s, taskA));
    expect(first?.ok).toBe(false);
    expect(committer.stats.retried).toBe(1);
    expect(enrolledIn(s)).toBeUndefined();
    const next = result(run(permitOf(s, taskB))[0]);
    expect(next.kind).toBe('applied');
    expect(enrolledIn(s)).toBe(taskB);
  });

  it('an enrollment another connection changed is read again, never served as kept', () => {
    const s = session();
    expect(result(run(permitOf(s, taskA))[0]).kind).toBe('applied');
    const other = new Database(join(dir, 'hub.sqlite'));
    try {
      // an operator's repair on the file: the table refuses changes (a trigger), so it is dropped
      // first; the writer's kept enrollment must not outlive it either
      other.exec('DROP TRIGGER session_enrollments_no_update');
      other
        .prepare('UPDATE session_enrollments SET task_id = ? WHERE client_id = ? AND agent_session_id = ?')
        .run(taskB, 'desk', s);
    } finally {
      other.close();
    }
    reads = 0;
    const answers = run(permitOf(s, taskB), permitOf(s, taskA));
    expect(answers.map((a) => result(a).kind)).toEqual(['applied', 'refused']);
    expect(reads).toBe(1);
  });

  it('no code the writer runs but sql/ops/invocation-change.ts writes the session_enrollments table (the enrollments it keeps would not see it)', () => {
    const root = join(import.meta.dirname, '..', '..');
    const writes =
      /\b(insert\s+(or\s+\w+\s+)?into|replace\s+into|update|delete\s+from)\s+session_enrollments\b|'session_enrollments'/i;
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
    // the PostgreSQL batch writes enrollments its own way; it never runs on the SQLite writer
    expect(found.sort()).toEqual([
      'src-hub/store/postgres/permit-run.ts',
      'src-hub/store/sql/ops/invocation-change.ts',
    ]);
  });

  it('a session read as not enrolled is kept: its calls without a task read it once, and its enrollment here is then served', () => {
    const s = session();
    reads = 0;
    expect(run(untaskedOf(s), untaskedOf(s)).map((a) => result(a).kind)).toEqual(['applied', 'applied']);
    expect(result(run(untaskedOf(s))[0]).kind).toBe('applied');
    expect(reads).toBe(1);
    // its first permit enrolls it (this writer's own write): the next, in another task, is refused
    const answers = run(permitOf(s, taskA), permitOf(s, taskB));
    expect(answers.map((a) => result(a).kind)).toEqual(['applied', 'refused']);
    expect(reads).toBe(1);
    expect(enrolledIn(s)).toBe(taskA);
  });

  it('a session kept as not enrolled that another connection enrolled is read again, never served as not enrolled', () => {
    const s = session();
    expect(result(run(untaskedOf(s))[0]).kind).toBe('applied');
    const other = new Database(join(dir, 'hub.sqlite'));
    try {
      other
        .prepare(
          'INSERT INTO session_enrollments (client_id, agent_session_id, task_id, invocation_id, enrolled_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run('desk', s, taskB, 'inv_elsewhere', AT);
    } finally {
      other.close();
    }
    reads = 0;
    const refused = result(run(permitOf(s, taskA))[0]);
    expect(refused.kind === 'refused' ? refused.refusal.code : refused.kind).toBe('task_required');
    expect(reads).toBe(1);
    expect(enrolledIn(s)).toBe(taskB);
  });

  it('a session read as not enrolled by a batch that was rolled back is read again', () => {
    const s = session();
    const broken = dispatchChange(invocation({ task_id: taskA }), {
      permit: permitFor(taskA),
      decide_approval: MISSING_APPROVAL_DECISION,
      audit,
    });
    reads = 0;
    // read in the batch, rolled back, read again in its rerun (the kept null forgotten with it)
    expect(run(untaskedOf(s), broken).map((a) => a.ok)).toEqual([true, false]);
    expect(reads).toBe(2);
    // the failed write undone alone forgot everything kept too: read once more, then kept
    expect(result(run(untaskedOf(s))[0]).kind).toBe('applied');
    expect(reads).toBe(3);
    expect(result(run(untaskedOf(s))[0]).kind).toBe('applied');
    expect(reads).toBe(3);
  });

  it('keeps at most its limit, the one put longest ago going first', () => {
    const rows = createEnrollmentRows(2);
    rows.put('desk', 's1', 't1');
    rows.put('desk', 's2', 't2');
    rows.put('desk', 's1', 't1'); // put again: not a new one
    rows.put('desk', 's3', 't3');
    expect(['s1', 's2', 's3'].map((s) => rows.get('desk', s))).toEqual([undefined, 't2', 't3']);
    expect(rows.get('other', 's2')).toBeUndefined();
    rows.forget();
    expect(rows.size).toBe(0);
  });
});
