// The receipt digest keeps the digests of facts without a result, status or evidence by their
// state, dispatch and reason (receipt.ts PLAIN_DIGESTS): every digest, kept or not, is the sha256
// of the canonical facts, whatever came before it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import { DISPATCH_EVIDENCE, INVOCATION_STATES } from '../../src-shared/states.js';
import { receiptDigest } from '../../src-hub/invocations/receipt.js';

type Facts = Parameters<typeof receiptDigest>[0];

const definition = (f: Facts) =>
  sha256Hex(
    canonicalJson({
      state: f.state,
      dispatch: f.dispatch,
      result: f.result ?? null,
      business_status: f.business_status,
      reason_code: f.reason_code,
      reconciliation: f.reconciliation,
    }),
  );

const plain = (over: Partial<Facts> = {}): Facts => ({
  state: 'dispatching',
  dispatch: 'attempted',
  result: null,
  business_status: null,
  reason_code: null,
  reconciliation: [],
  ...over,
});

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`receipt digest property seed: ${seed} (FC_SEED=${seed} reproduces)`);

describe('receipt digest', () => {
  it('is the digest of the canonical facts in any order of calls, kept ones included', () => {
    const facts = fc.record({
      state: fc.constantFrom(...INVOCATION_STATES),
      dispatch: fc.constantFrom(...DISPATCH_EVIDENCE),
      result: fc.constantFrom(null, undefined, { ok: true }, {}),
      business_status: fc.constantFrom(null, 200, 0),
      // 'null' the text beside null the value
      reason_code: fc.constantFrom(null, 'null', 'budget_exhausted', 'in_flight_limit', ''),
      reconciliation: fc.constantFrom([], [{ kind: 'lookup', at: '2026-12-03T00:00:00.000Z' }]),
    }) as fc.Arbitrary<Facts>;
    fc.assert(
      fc.property(fc.array(facts, { minLength: 1, maxLength: 40 }), (list) => {
        for (const f of list) expect(receiptDigest(f)).toBe(definition(f));
      }),
      { seed, numRuns: 300 },
    );
  });

  it('tells apart kept facts that differ in any one fact', () => {
    const base = plain();
    const variants: Facts[] = [
      base,
      plain({ state: 'not_dispatched' }),
      plain({ dispatch: 'none' }),
      plain({ reason_code: 'budget_exhausted' }),
      plain({ reason_code: 'null' }),
      plain({ business_status: 200 }),
      plain({ result: { ok: true } }),
      plain({ reconciliation: [{ kind: 'lookup' }] as unknown as Facts['reconciliation'] }),
    ];
    // asked twice each, the kept answer second
    const digests = variants.map((f) => [receiptDigest(f), receiptDigest({ ...f })]);
    for (const [i, [first, again]] of digests.entries()) {
      expect(first).toBe(definition(variants[i]!));
      expect(again).toBe(first);
    }
    expect(new Set(digests.map(([d]) => d)).size).toBe(variants.length);
  });
});
