import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSpec, declarationRevision, type CompiledOperation } from '../../../src-hub/acc/index.js';
import { validDoc, type Doc } from './fixtures.js';

/** Deep copy with every object's keys re-ordered by a seeded permutation. */
function reorder(value: unknown, rand: () => number): unknown {
  if (Array.isArray(value)) return value.map((v) => reorder(v, rand));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, reorder(v, rand)]));
}

function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const revisions = (doc: unknown) =>
  Object.fromEntries(compileSpec(doc).operations.map((o) => [o.tool, o.declaration_revision]));

describe('declaration_revision', () => {
  it('is stable under key reordering anywhere in the document', () => {
    const base = revisions(validDoc());
    const baseSpec = compileSpec(validDoc()).spec_revision;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        const shuffled = reorder(validDoc(), seeded(seed));
        expect(revisions(shuffled)).toEqual(base);
        expect(compileSpec(shuffled).spec_revision).toBe(baseSpec);
      }),
      { numRuns: 100 },
    );
  });

  const P = '/products/{product_id}';
  const cap = (d: Doc) => d.paths[P].patch['x-agent-capability'];
  // Each mutation changes one thing about update_product as the model or the Hub would see it.
  const mutations: [string, (d: Doc, s: string, n: number) => void][] = [
    ['summary (used as description)', (d, s) => (d.paths[P].patch.summary = `Update ${s}`)],
    ['description', (d, s) => (d.paths[P].patch.description = `Long ${s}`)],
    [
      'body property schema',
      (d, _s, n) =>
        (d.components.requestBodies.ProductPatch.content[
          'application/json'
        ].schema.properties.title.maxLength = 201 + n),
    ],
    [
      'new body property',
      (d, s) =>
        (d.components.requestBodies.ProductPatch.content['application/json'].schema.properties[
          `extra_${s.replace(/\W/g, '')}`
        ] = { type: 'string' }),
    ],
    [
      'body schema required list',
      (d) =>
        (d.components.requestBodies.ProductPatch.content['application/json'].schema.required = ['price']),
    ],
    ['shared path parameter schema', (d, _s, n) => (d.components.schemas.Id.minimum = 2 + n)],
    [
      'new query parameter',
      (d) => (d.paths[P].patch.parameters = [{ name: 'notify', in: 'query', schema: { type: 'boolean' } }]),
    ],
    ['risk level', (d) => (cap(d).risk.level = 'low')],
    ['approval required', (d) => (cap(d).approval.required = true)],
    ['approval prompt', (d, s) => (cap(d).approval.prompt = `Sure? ${s}`)],
    ['approval rule value', (d, _s, n) => (cap(d).approval.when[0].value = 101 + n)],
    ['readonly', (d) => (cap(d).execution.readonly = true)],
    ['idempotent', (d) => (cap(d).execution.idempotent = false)],
    ['timeout', (d, _s, n) => (cap(d).execution.timeout_ms = 10001 + n)],
    ['rate limit count', (d, _s, n) => (cap(d).execution.rate_limit.count = 11 + n)],
    ['rate limit window', (d) => (cap(d).execution.rate_limit.window = '1h')],
    ['scope', (d, s) => (cap(d).scope = `products.write.${s.length}x`)],
    ['subject required', (d) => (cap(d).subject.required = false)],
    ['audit sensitive', (d) => (cap(d).audit.sensitive = false)],
    ['side effect', (d) => (cap(d).outcome.side_effect = 'external')],
    ['guidance', (d, s) => (cap(d).guidance = { use_when: `asked to edit ${s}!` })],
    [
      'method',
      (d) => {
        d.paths[P].put = d.paths[P].patch;
        delete d.paths[P].patch;
      },
    ],
    [
      'path',
      (d) => {
        d.paths['/items/{product_id}'] = { parameters: d.paths[P].parameters, patch: d.paths[P].patch };
        delete d.paths[P].patch;
      },
    ],
  ];

  it('changes when any field of the operation changes', () => {
    const before = revisions(validDoc()).update_product;
    expect(before).toBeDefined();
    fc.assert(
      fc.property(
        fc.constantFrom(...mutations),
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.nat(1000),
        ([label, mutate], s, n) => {
          const doc = validDoc();
          mutate(doc, s, n);
          const after = revisions(doc).update_product;
          expect(after, label).toBeDefined();
          expect(after, label).not.toBe(before);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('does not change for edits outside the operation (responses, other operations)', () => {
    const before = revisions(validDoc());
    const doc = validDoc();
    doc.paths[P].patch.responses['404'] = { description: 'missing' };
    doc.paths[P].get.summary = 'Other text';
    const after = revisions(doc);
    expect(after.update_product).toBe(before.update_product);
    expect(after.adjust_stock).toBe(before.adjust_stock);
  });

  it('declarationRevision: any change to any compiled field changes the hash', () => {
    const op = compileSpec(validDoc()).operations.find(
      (o) => o.tool === 'update_product',
    ) as CompiledOperation;
    const { declaration_revision, ...rest } = op;
    expect(declarationRevision(rest)).toBe(declaration_revision);
    const keys = Object.keys(rest) as (keyof typeof rest)[];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue(), (key, value) => {
        fc.pre(JSON.stringify(value) !== JSON.stringify(rest[key]));
        const changed = { ...rest, [key]: value };
        expect(declarationRevision(changed)).not.toBe(declaration_revision);
      }),
      { numRuns: 300 },
    );
  });
});
