// Canonical JSON: a recursive walk for the usual shallow values and an iterative one past its depth
// limit; the same text as the recursive definition on every value, and no stack overflow on nesting
// no recursive walk survives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalDeep, canonicalJson, parameterDigest } from '../../src-shared/digest.js';
import { jsonTextDeeperThan, valueDeeperThan } from '../../src-shared/json-depth.js';

/** The definition: JSON.stringify after sorting every object's keys and dropping undefined fields. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as Record<string, unknown>).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
const reference = (v: unknown) => JSON.stringify(sortKeys(v));

const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
console.log(`digest property seed: ${seed} (FC_SEED=${seed} reproduces)`);

describe('canonical JSON', () => {
  it('matches the recursive definition on arbitrary values', () => {
    const values = fc.oneof(
      fc.jsonValue(),
      fc.anything({
        withBoxedValues: true,
        withNullPrototype: true,
        withSparseArray: true,
        withDate: true,
        withObjectString: true,
      }),
    );
    fc.assert(
      fc.property(values, (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
        expect(canonicalDeep(v)).toBe(reference(v));
      }),
      { seed, numRuns: 2000 },
    );
  });

  it('keeps the digests it always gave', () => {
    expect(canonicalJson({ b: [1, { d: undefined, c: 'x' }], a: null })).toBe('{"a":null,"b":[1,{"c":"x"}]}');
    expect(parameterDigest({ product_id: 42, description: 'x' })).toBe(
      parameterDigest({ description: 'x', product_id: 42 }),
    );
  });

  it("gives the same text on either side of the recursive walk's depth limit", () => {
    for (let depth = 60; depth <= 70; depth++) {
      // objects and arrays alternating, with keys to sort and fields to leave out at every level
      let v: unknown = { z: 1, a: [true, null, undefined], m: undefined };
      for (let i = 0; i < depth; i++) v = i % 2 ? [v, 'x'] : { b: v, a: i, '10': 'ten', '9': 'nine' };
      expect(canonicalJson(v)).toBe(reference(v));
      expect(canonicalDeep(v)).toBe(reference(v));
    }
    // a BigInt is refused the same way deep or shallow
    expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
    let deep: unknown = { a: 1n };
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(TypeError);
  });

  it('digests 100,000 levels of nesting without a stack overflow', () => {
    const text = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const deep = JSON.parse(text) as unknown;
    expect(canonicalJson(deep)).toBe(text);
    expect(parameterDigest(deep)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('JSON depth', () => {
  it('text and value depth agree, strings and escapes included', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (v, max) => {
        const text = JSON.stringify(v);
        expect(jsonTextDeeperThan(text, max)).toBe(valueDeeperThan(v, max));
      }),
      { seed, numRuns: 1000 },
    );
    expect(jsonTextDeeperThan('{"a":"[[[[\\"[[["}', 1)).toBe(false);
    expect(jsonTextDeeperThan('[[1]]', 1)).toBe(true);
    expect(valueDeeperThan(JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)), 64)).toBe(true);
  });
});
