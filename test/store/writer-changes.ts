// Drives a SQLite group committer directly with invocation changes, one batch per call — what the
// writer thread does with a message of writes — for the writer's tests of what it keeps in memory.
import type { SqlSession } from '../../src-hub/store/sql/session.js';
import type { createGroupCommitter } from '../../src-hub/store/sqlite/writer/group-commit.js';
import type { WriteAnswer, WriteRequest } from '../../src-hub/store/sqlite/writer/protocol.js';
import type { InvocationChange, InvocationChangeResult } from '../../src-hub/store/types.js';

let nextId = 0;

/** One batch of the changes (each cloned, as a message to the thread would be), its answers in order. */
export const runChanges = (
  committer: ReturnType<typeof createGroupCommitter>,
  changes: InvocationChange[],
): WriteAnswer[] =>
  committer.run(
    changes.map((c): WriteRequest => ({
      id: ++nextId,
      op: 'applyInvocationChange',
      args: [structuredClone(c)],
    })),
  ).answers;

/** The change's result; throws when the write failed. */
export const changeResult = (a: WriteAnswer | undefined): InvocationChangeResult => {
  if (!a?.ok) throw new Error(`the write failed: ${a && !a.ok ? a.error.message : 'no answer'}`);
  return a.value as InvocationChangeResult;
};

/** The writer's session, calling `seen` for every `get` of exactly `sql` (what a kept value saves). */
export function countingGets(inner: SqlSession, sql: string, seen: () => void): SqlSession {
  return {
    ...inner,
    dialect: inner.dialect,
    get: ((text: string, params?: never[]) => {
      if (text === sql) seen();
      return inner.get(text, params);
    }) as SqlSession['get'],
  };
}
