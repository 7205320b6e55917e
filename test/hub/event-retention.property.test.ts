// Property: whatever the interleaving of appends (two clients, any timestamps) and pruning passes
// (any age cut-off, any count), a reader of one client that resumes after any seq it has seen
// either receives exactly the events after that seq, or is told (its seq is below the horizon) —
// never a silent gap — and the horizon never moves back.
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import type { HubStore } from '../../src-hub/store/types.js';

type Step =
  { op: 'append'; client: 'a' | 'b'; minute: number } | { op: 'prune'; beforeMinute: number; keep: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('append' as const),
      client: fc.constantFrom('a' as const, 'b' as const),
      minute: fc.integer({ min: 0, max: 60 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('prune' as const),
      beforeMinute: fc.integer({ min: 0, max: 61 }),
      keep: fc.integer({ min: 0, max: 6 }),
    }),
  },
);

const at = (minute: number) => new Date(Date.UTC(2026, 10, 30, 0, minute)).toISOString();

// One store for every run: each run uses its own two clients, and pruning is per client, so runs
// do not see each other (the writer thread starts once instead of once per run).
let dir: string;
let store: HubStore;
let run = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-retention-prop-'));
  store = createSqliteStore({ dataDir: dir });
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Appends one event and answers its seq (the newest event of that client). */
async function append(client: string, minute: number): Promise<number> {
  await store.appendEvent(client, 'authorization.changed', { type: 'authorization.changed' }, at(minute));
  const events = await store.listEvents(client, 0, 100_000);
  return events[events.length - 1]!.seq;
}

describe('event retention (property)', () => {
  it('a resuming reader gets exactly what is after its seq, or is told it missed events', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 45 }),
        async (steps, readerOffset) => {
          run += 1;
          const name = { a: `a${run}`, b: `b${run}` } as const;
          const appended: Record<'a' | 'b', number[]> = { a: [], b: [] };
          let lastHorizon = 0;
          let firstSeq: number | null = null;
          for (const s of steps) {
            if (s.op === 'append') {
              const seq = await append(name[s.client], s.minute);
              firstSeq ??= seq;
              appended[s.client].push(seq);
            } else await store.pruneEvents({ before: at(s.beforeMinute), keepPerClient: s.keep });
            const h = await store.eventHorizon(name.a);
            expect(h).toBeGreaterThanOrEqual(lastHorizon);
            lastHorizon = h;
          }
          // The reader resumes after some seq of this run (seqs are global across clients and runs).
          const readerSeq = (firstSeq ?? 1) - 1 + readerOffset;
          const horizon = await store.eventHorizon(name.a);
          const left = (await store.listEvents(name.a, readerSeq, 10_000)).map((e) => e.seq);
          const expected = appended.a.filter((seq) => seq > readerSeq);
          if (readerSeq >= horizon) {
            // Nothing this reader has not seen was pruned: it gets every later event, in order.
            expect(left).toEqual(expected);
          } else {
            // It is behind the horizon (the stream sends stream.reset); what remains is exactly what is after the horizon.
            expect(left).toEqual(appended.a.filter((seq) => seq > horizon));
            expect(expected.filter((seq) => seq <= horizon).length).toBeGreaterThan(0);
          }
          // Client b's pruning never touches client a's horizon beyond a's own events.
          expect(horizon === 0 || appended.a.includes(horizon)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });
});
