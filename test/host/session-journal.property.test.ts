// Property tests of the runtime's per-session journal (the CAS writer used by invokeGoverned,
// inspect, resume and restore): two writers over one store, random interleavings, injected save
// failures and lost acknowledgements. A stored outcome never moves backwards (no stale receipt
// overwrites a later one), and nothing a writer saw acknowledged is ever lost.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { INVOCATION_STATES } from '../../src-shared/states.js';
import {
  createMemoryInvocationStore,
  createSqliteInvocationStore,
  type InvocationStore,
  type JournalEntry,
} from '../../src-main/journal/index.js';
import { isLaterState } from '../../src-main/runtime/invocations/entries.js';
import { SessionJournal } from '../../src-main/runtime/invocations/session-journal.js';
import { entry, faulty, tempDir } from './helpers/journal-fixtures.js';

type Op =
  | { kind: 'add'; w: number }
  | { kind: 'advance'; w: number; pick: number; to: number; mode: 'direct' | 'authoritative' }
  | { kind: 'restore'; w: number }
  | { kind: 'fault'; fault: 'none' | 'fail' | 'lost_ack' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), w: fc.integer({ min: 0, max: 1 }) }),
  fc.record({
    kind: fc.constant('advance' as const),
    w: fc.integer({ min: 0, max: 1 }),
    pick: fc.nat(),
    to: fc.nat(),
    mode: fc.constantFrom('direct' as const, 'authoritative' as const),
  }),
  fc.record({ kind: fc.constant('restore' as const), w: fc.integer({ min: 0, max: 1 }) }),
  fc.record({
    kind: fc.constant('fault' as const),
    fault: fc.constantFrom('none' as const, 'fail' as const, 'lost_ack' as const),
  }),
);

async function check(makeStore: () => { store: InvocationStore; cleanup(): void }, ops: Op[]) {
  const { store: base, cleanup } = makeStore();
  try {
    const plan: { failSaveBefore?: number[]; commitThenThrow?: number[] } = {};
    const store = faulty(base, plan);
    const now = () => new Date('2026-01-01T00:00:00Z');
    const writers = [new SessionJournal('sess-1', store, now), new SessionJournal('sess-1', store, now)];
    const acknowledged = new Set<string>();
    const lastStored = new Map<string, JournalEntry['last_state']>();
    for (const op of ops) {
      if (op.kind === 'fault') {
        const next = store.saves + 1;
        plan.failSaveBefore = op.fault === 'fail' ? [next] : [];
        plan.commitThenThrow = op.fault === 'lost_ack' ? [next] : [];
        continue;
      }
      const j = writers[op.w]!;
      await j.ensureLoaded();
      if (op.kind === 'add') {
        const e = entry({ agent_session_id: 'sess-1' });
        const r = await j.serialize(() => j.commit([e], 'direct'));
        if (r.ok) acknowledged.add(e.invocation_id);
      } else if (op.kind === 'advance') {
        const known = j.entries();
        if (known.length === 0) continue;
        const current = known[op.pick % known.length]!;
        const later = INVOCATION_STATES.filter((s) => isLaterState(current.last_state, s));
        if (later.length === 0) continue;
        const to = later[op.to % later.length]!;
        const r = await j.serialize(() => j.commit([{ ...current, last_state: to }], op.mode));
        if (r.ok) acknowledged.add(current.invocation_id);
      } else {
        await j.serialize(() => j.flushMerged());
      }
      const stored = await base.load('sess-1');
      const byId = new Map((stored?.entries ?? []).map((e) => [e.invocation_id, e.last_state] as const));
      for (const id of acknowledged) expect(byId.has(id), `acknowledged ${id} lost`).toBe(true);
      for (const [id, state] of byId) {
        const before = lastStored.get(id);
        if (before !== undefined && before !== state)
          expect(isLaterState(before, state), `${id}: ${before} -> ${state}`).toBe(true);
        lastStored.set(id, state);
      }
    }
  } finally {
    cleanup();
  }
}

describe('property: the per-session CAS journal under two writers and injected faults', () => {
  it('memory store', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) =>
        check(() => ({ store: createMemoryInvocationStore(), cleanup: () => undefined }), ops),
      ),
      { numRuns: 300 },
    );
  });

  it('sqlite store (two writers share one file)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), (ops) =>
        check(() => {
          const t = tempDir();
          return {
            store: createSqliteInvocationStore({ path: join(t.dir, 'j.sqlite') }),
            cleanup: t.cleanup,
          };
        }, ops),
      ),
      { numRuns: 60 },
    );
  });
});

describe('a fresh receipt older than the stored outcome does not replace it', () => {
  it('authoritative save of "approved" while another writer already stored "succeeded": stored kept, local adopts it', async () => {
    const store = createMemoryInvocationStore();
    const now = () => new Date();
    const a = new SessionJournal('sess-1', store, now);
    const b = new SessionJournal('sess-1', store, now);
    await a.ensureLoaded();
    const e = entry({ agent_session_id: 'sess-1', last_state: 'awaiting_approval' });
    expect((await a.serialize(() => a.commit([e], 'direct'))).ok).toBe(true);
    await b.ensureLoaded();
    expect((await b.serialize(() => b.commit([{ ...e, last_state: 'succeeded' }], 'direct'))).ok).toBe(true);
    const r = await a.serialize(() => a.commit([{ ...e, last_state: 'approved' }], 'authoritative'));
    expect(r.ok).toBe(true);
    expect((await store.load('sess-1'))!.entries[0]!.last_state).toBe('succeeded');
    expect(a.local.get(e.invocation_id)!.last_state).toBe('succeeded');
    expect(a.unsaved.size).toBe(0);
  });
});
