import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRequest, BuildRequestError } from '../../../src-hub/dispatch/index.js';

const op = {
  method: 'patch',
  path_template: '/shops/{shop}/products/{product_id}',
  path_params: ['shop', 'product_id'],
  query_params: ['dry_run', 'tags'],
  body_params: ['title', 'price'],
  has_body: true,
  body_required: false,
};

describe('buildRequest', () => {
  it('fills and URL-encodes path params, encodes query params, and sends only body params', () => {
    const r = buildRequest(op, {
      shop: 'a b/c?',
      product_id: 42,
      dry_run: true,
      tags: ['x&y', 'z'],
      title: 'T',
      price: 3.5,
    });
    expect(r).toEqual({
      method: 'PATCH',
      pathWithQuery: '/shops/a%20b%2Fc%3F/products/42?dry_run=true&tags=x%26y&tags=z',
      body: JSON.stringify({ title: 'T', price: 3.5 }),
    });
  });

  it("sends '' without body params, '{}' when the body is required", () => {
    expect(buildRequest(op, { shop: 's', product_id: 1 }).body).toBe('');
    expect(buildRequest({ ...op, body_required: true }, { shop: 's', product_id: 1 }).body).toBe('{}');
    expect(
      buildRequest({ ...op, has_body: false }, { shop: 's', product_id: 1, title: 'ignored' }).body,
    ).toBe('');
  });

  it('omits absent query params and never puts body params in the query', () => {
    expect(buildRequest(op, { shop: 's', product_id: 1, title: 'x' }).pathWithQuery).toBe(
      '/shops/s/products/1',
    );
  });

  it('without query params: every occurrence of a path param filled, `$` patterns never read', () => {
    const noQuery = { ...op, path_template: '/a/{x}/b/{x}', path_params: ['x'], query_params: [] };
    expect(buildRequest(noQuery, { x: "$&$'$`$$", title: 'T' })).toEqual({
      method: 'PATCH',
      pathWithQuery: "/a/%24%26%24'%24%60%24%24/b/%24%26%24'%24%60%24%24",
      body: JSON.stringify({ title: 'T' }),
    });
    expect(buildRequest({ ...noQuery, has_body: false }, { x: 'y', title: 'T' })).toEqual({
      method: 'PATCH',
      pathWithQuery: '/a/y/b/y',
      body: '',
    });
  });

  it('refuses missing or non-scalar path params', () => {
    expect(() => buildRequest(op, { product_id: 1 })).toThrow(BuildRequestError);
    expect(() => buildRequest(op, { shop: { a: 1 }, product_id: 1 })).toThrow(BuildRequestError);
    expect(() => buildRequest(op, { shop: '', product_id: 1 })).toThrow(BuildRequestError);
    expect(() => buildRequest(op, { shop: 's', product_id: 1, tags: [{}] })).toThrow(BuildRequestError);
  });

  it('path params round-trip through decoding for any string (no path injection)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (s) => {
        const r = buildRequest(op, { shop: s, product_id: 1 });
        const segment = r.pathWithQuery.split('/')[2] ?? '';
        expect(decodeURIComponent(segment)).toBe(s);
        expect(r.pathWithQuery.split('?')[0]?.split('/')).toHaveLength(5);
      }),
    );
  });
});
