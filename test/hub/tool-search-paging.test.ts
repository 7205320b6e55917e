// Tool search pages: `offset` skips results and `more` says a next page exists, so a client can
// list every tool of a system with more tools than one page (50) holds, each exactly once, in a
// stable order. A bad offset is refused with a coded 400 and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeclarationSchema, TOOL_SEARCH_MAX_OFFSET } from '../../src-shared/hub-api.js';
import { addBulkTools, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
let systemTools: string[];
const EXTRA = 130;

beforeAll(async () => {
  env = await startEnv();
  const { before, added } = await addBulkTools(env, EXTRA);
  systemTools = [...before, ...added];
});
afterAll(async () => env?.close());

const search = (body: Record<string, unknown>) => env.agent('POST', '/agent/v1/tools/search', body);

describe('tool search paging', () => {
  it('an empty query pages through every tool of the authorization, each once, in a stable order', async () => {
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      const r = await search({
        query: '',
        authorization_refs: ['auth-shop-a'],
        limit: 50,
        offset: seen.length,
      });
      expect(r.status, r.text).toBe(200);
      const page = (r.body.declarations as unknown[]).map((d) => DeclarationSchema.parse(d).tool);
      seen.push(...page);
      pages += 1;
      if (!r.body.more) break;
      expect(page).toHaveLength(50);
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBe(Math.ceil(systemTools.length / 50));
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual([...systemTools].sort());
    // the same pages again give the same order
    const again = await search({ query: '', authorization_refs: ['auth-shop-a'], limit: 50, offset: 50 });
    expect((again.body.declarations as Array<{ tool: string }>).map((d) => d.tool)).toEqual(
      seen.slice(50, 100),
    );
  });

  it('a ranked query pages too, and a page past the end is empty with nothing more', async () => {
    const first = await search({ query: 'bulk', authorization_refs: ['auth-shop-a'], limit: 50 });
    expect(first.body.more).toBe(true);
    const second = await search({
      query: 'bulk',
      authorization_refs: ['auth-shop-a'],
      limit: 50,
      offset: 50,
    });
    const tools = [...first.body.declarations, ...second.body.declarations].map(
      (d: { tool: string }) => d.tool,
    );
    expect(new Set(tools).size).toBe(100);
    const past = await search({ query: '', authorization_refs: ['auth-shop-a'], limit: 10, offset: 5_000 });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ declarations: [], more: false });
  });

  it('a bad offset is refused with a coded 400', async () => {
    for (const offset of [-1, 1.5, TOOL_SEARCH_MAX_OFFSET + 1, '10', null]) {
      const r = await search({ query: '', limit: 10, offset });
      expect(r.status, JSON.stringify(offset)).toBe(400);
      expect(typeof r.body.error).toBe('string');
      expect(typeof r.body.message).toBe('string');
    }
  });
});
