/** Unit tests of the declaration cache, function naming, argument validation and history rebuild. */
import { describe, expect, it, vi } from 'vitest';
import type { Declaration } from '../../src-shared/hub-api.js';
import { createArgumentValidator } from '../../src-main/runtime/argument-validation.js';
import { eventsToMessages } from '../../src-main/runtime/conversation.js';
import { legacyProviderCallId } from '../../src-main/runtime/call-ids.js';
import { createDeclarationCache, declarationKey } from '../../src-main/runtime/declaration-cache.js';
import type { ArchiveEvent } from '../../src-main/runtime/desk-runtime.js';

function decl(
  authorization_ref: string,
  tool: string,
  rev = 'r1',
  extra: Partial<Declaration> = {},
): Declaration {
  return {
    hub_id: 'hub-1',
    authorization_ref,
    system_id: authorization_ref.replace(/^auth-/, ''),
    system_name: authorization_ref,
    account: `${authorization_ref}-operator`,
    tool,
    description: `${tool} of ${authorization_ref}`,
    input_schema: {
      type: 'object',
      properties: {
        product_id: { type: 'integer', minimum: 1 },
        description: { type: 'string', maxLength: 20 },
      },
      required: ['product_id'],
      additionalProperties: false,
    },
    effect: 'write',
    side_effect: 'write',
    risk_level: 'low',
    approval: { required: false, prompt: null, when: [] },
    idempotent: true,
    timeout_ms: 1000,
    scope: 's',
    audit_sensitive: false,
    guidance: null,
    declaration_revision: rev,
    ...extra,
  };
}

describe('declaration cache', () => {
  it("gives two systems' update_product different names that map back to their own authorization", () => {
    const c = createDeclarationCache();
    c.put([decl('auth-shop-a', 'update_product'), decl('auth-shop-b', 'update_product')]);
    expect(c.byFunctionName('auth_shop_a__update_product')?.declaration.authorization_ref).toBe(
      'auth-shop-a',
    );
    expect(c.byFunctionName('auth_shop_b__update_product')?.declaration.authorization_ref).toBe(
      'auth-shop-b',
    );
    expect(c.byFunctionName('update_product')).toBeNull();
  });

  it('never collides when two refs slug to the same text, and never takes a built-in name', () => {
    const c = createDeclarationCache();
    const [a, b] = c.put([decl('shop.a', 'update'), decl('shop-a', 'update')]);
    expect(a?.functionName).toBe('shop_a__update');
    expect(b?.functionName).not.toBe(a?.functionName);
    expect(c.byFunctionName(b!.functionName)?.declaration.authorization_ref).toBe('shop-a');
    const [s] = c.put([decl('search', 'tools')]);
    expect(s?.functionName).toBe('search__tools');
    for (const e of c.list()) expect(e.functionName).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    const [long] = c.put([decl('a'.repeat(100), 'b'.repeat(100))]);
    expect(long!.functionName.length).toBeLessThanOrEqual(64);
  });

  it('keys by (hub, authorization, tool, revision), keeps the full schema, and a new revision replaces the old', () => {
    const c = createDeclarationCache();
    const [old] = c.put([decl('auth-shop-a', 'update_product', 'r1')]);
    expect(old?.key).toBe(declarationKey(decl('auth-shop-a', 'update_product', 'r1')));
    expect(old?.declaration.input_schema).toEqual(decl('auth-shop-a', 'update_product').input_schema);
    const [fresh] = c.put([decl('auth-shop-a', 'update_product', 'r2')]);
    expect(fresh?.functionName).toBe(old?.functionName);
    expect(c.stats().entries).toBe(1);
    expect(c.byFunctionName(fresh!.functionName)?.declaration.declaration_revision).toBe('r2');
  });

  it('is bounded by entries and by bytes (least recently used goes first)', () => {
    const c = createDeclarationCache({ maxEntries: 3 });
    c.put([decl('a', 't1'), decl('a', 't2'), decl('a', 't3')]);
    c.byFunctionName('a__t1'); // recently used
    c.put([decl('a', 't4')]);
    expect(
      c
        .list()
        .map((e) => e.functionName)
        .sort(),
    ).toEqual(['a__t1', 'a__t3', 'a__t4']);
    expect(c.evictedReason('a__t2')).toBe('capacity');

    const big = (tool: string) => decl('b', tool, 'r', { description: 'x'.repeat(1000) });
    const small = createDeclarationCache({ maxBytes: 4096 });
    small.put([big('x1'), big('x2'), big('x3')]);
    expect(small.stats().bytes).toBeLessThanOrEqual(4096);
    const size = Buffer.byteLength(JSON.stringify(big('x1')));
    expect(small.stats().entries).toBe(Math.floor(4096 / size));
    expect(small.list()[0]?.functionName).toBe('b__x3'); // the newest stays
    expect(small.put([decl('c', 'huge', 'r', { description: 'y'.repeat(10_000) })])).toEqual([]);
  });

  it('drops every declaration of a revoked or rebound authorization and remembers why', () => {
    const c = createDeclarationCache();
    c.put([decl('auth-shop-a', 'x'), decl('auth-shop-a', 'y'), decl('auth-inventory', 'z')]);
    expect(c.dropAuthorization('auth-shop-a', 'authorization_changed')).toHaveLength(2);
    expect(c.list().map((e) => e.functionName)).toEqual(['auth_inventory__z']);
    expect(c.evictedReason('auth_shop_a__x')).toBe('authorization_changed');
    c.evict(c.list()[0]!.key, 'declaration_changed');
    expect(c.evictedReason('auth_inventory__z')).toBe('declaration_changed');
  });
});

describe('argument validation', () => {
  const v = createArgumentValidator();
  const d = decl('auth-shop-a', 'update_product_content');
  it('checks the full schema with every error', () => {
    expect(v.check('k', d, { product_id: 42, description: 'ok' })).toEqual({ ok: true, errors: [] });
    const bad = v.check('k', d, { product_id: 0, description: 'x'.repeat(30) });
    expect(bad.ok).toBe(false);
    expect(bad.errors.length).toBe(2);
    expect(v.check('k', d, [1, 2]).ok).toBe(false);
  });
  it('refuses target-selecting keys and values naming another member, unless the schema declares the field', () => {
    const open = decl('auth-shop-a', 'note', 'r1', {
      input_schema: { type: 'object', properties: { text: { type: 'string' } } },
    });
    expect(v.check('open', open, { text: 'hi', authorization_ref: 'auth-shop-b' }).errors[0]).toContain(
      'selects a target',
    );
    expect(v.check('open', open, { text: 'hi', extra: 'auth-shop-b' }, ['auth-shop-b']).errors[0]).toContain(
      'another system',
    );
    // a declared business field may name another system (explicit mapping basis, e.g. find_sku's shop)
    const mapping = decl('auth-inventory', 'find_sku', 'r1', {
      input_schema: {
        type: 'object',
        properties: { shop: { type: 'string' }, product_id: { type: 'integer' } },
        required: ['shop', 'product_id'],
      },
    });
    expect(v.check('map', mapping, { shop: 'shop-a', product_id: 42 }, ['shop-a', 'auth-shop-a'])).toEqual({
      ok: true,
      errors: [],
    });
  });

  it("runs a declaration's patterns on RE2: a catastrophic pattern answers at once, one RE2 cannot run is refused", () => {
    const evil = decl('auth-codes', 'check_code', 'r1', {
      input_schema: {
        type: 'object',
        properties: {
          code: { type: 'string', pattern: '^(a|a)+$' },
          tag: { type: 'string', format: 'regex' },
        },
      },
    });
    const t0 = performance.now();
    // 40 characters: the native engine backtracks for days; RE2 answers in microseconds
    const r = v.check('evil', evil, { code: `${'a'.repeat(40)}!` });
    expect(performance.now() - t0).toBeLessThan(2_000);
    expect(r.ok).toBe(false);
    expect(v.check('evil', evil, { code: 'aaa' }).ok).toBe(true);
    // the regex format means "runs on RE2": a back-reference is not one
    expect(v.check('evil', evil, { code: 'a', tag: '(a)\\1' }).ok).toBe(false);
    expect(v.check('evil', evil, { code: 'a', tag: '^[a-z]+$' }).ok).toBe(true);
    const lookahead = decl('auth-codes', 'look', 'r1', {
      input_schema: { type: 'object', properties: { code: { type: 'string', pattern: '^(?=a)' } } },
    });
    const refused = v.check('look', lookahead, { code: 'a' });
    expect(refused.ok).toBe(false);
    expect(refused.errors[0]).toContain('cannot be compiled');
  });
  it('refuses arguments nested deeper than the limit before any recursive check', () => {
    const open = decl('auth-shop-a', 'note', 'r1', {
      input_schema: { type: 'object', properties: { text: {} } },
    });
    const deep = JSON.parse(`{"text":${'['.repeat(100_000)}${']'.repeat(100_000)}}`) as Record<
      string,
      unknown
    >;
    const r = v.check('deep', open, deep, ['auth-shop-b']);
    expect(r.ok).toBe(false);
    expect(r.errors[0]).toContain('deeper than 64');
    expect(v.checkPlain('deep-plain', { type: 'object' }, deep).ok).toBe(false);
  });
});

describe('history rebuild', () => {
  const base = { sessionId: 's', at: 't' };
  it('answers every recorded call: a call without a result is described as unknown, never as "did not happen"', () => {
    const events: ArchiveEvent[] = [
      { ...base, seq: 1, eventId: 'e1', turnId: 't1', kind: 'user_message', text: 'edit' },
      {
        ...base,
        seq: 2,
        eventId: 'e2',
        turnId: 't1',
        kind: 'assistant_message',
        messageId: 'm',
        text: '',
        finish: 'tool_calls',
      },
      {
        ...base,
        seq: 3,
        eventId: 'e3',
        turnId: 't1',
        kind: 'tool_call',
        callId: 'c1',
        functionName: 'f',
        argumentsText: '{}',
        target: null,
      },
      {
        ...base,
        seq: 4,
        eventId: 'e4',
        turnId: 't1',
        kind: 'tool_call',
        callId: 'c2',
        functionName: 'g',
        argumentsText: '{}',
        target: null,
      },
      {
        ...base,
        seq: 5,
        eventId: 'e5',
        turnId: 't1',
        kind: 'tool_result',
        callId: 'c1',
        functionName: 'f',
        content: '{"ok":true}',
        feedback: null,
        invocation_id: null,
      },
      {
        ...base,
        seq: 6,
        eventId: 'e6',
        turnId: 'manual',
        kind: 'tool_call',
        callId: 'c3',
        functionName: 'h',
        argumentsText: '{}',
        target: null,
      },
      { ...base, seq: 7, eventId: 'e7', turnId: 't2', kind: 'user_message', text: 'again' },
    ];
    const msgs = eventsToMessages(events, 'sys');
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'user']);
    const assistant = msgs[2] as { tool_calls: { id: string }[] };
    // Archived before provider ids were kept: a short id derived from the host call id, the same on every rebuild.
    const ids = [legacyProviderCallId('c1'), legacyProviderCallId('c2')];
    expect(assistant.tool_calls.map((c) => c.id)).toEqual(ids);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(msgs.slice(3, 5).map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual(ids);
    expect(String((msgs[4] as { content: string }).content)).toContain('No result was recorded');
  });
  it('bounds a long history at a user message, keeping the system prompt', () => {
    const events: ArchiveEvent[] = [];
    for (let i = 0; i < 50; i++) {
      events.push({
        ...base,
        seq: 2 * i + 1,
        eventId: `u${i}`,
        turnId: `t${i}`,
        kind: 'user_message',
        text: `q${i}`,
      });
      events.push({
        ...base,
        seq: 2 * i + 2,
        eventId: `a${i}`,
        turnId: `t${i}`,
        kind: 'assistant_message',
        messageId: `m${i}`,
        text: `a${i}`,
        finish: 'stop',
      });
    }
    const msgs = eventsToMessages(events, 'sys', 11);
    expect(msgs[0]).toEqual({ role: 'system', content: 'sys' });
    expect(msgs[1]).toEqual({ role: 'user', content: 'q45' });
    expect(msgs.length).toBe(11);
    expect(msgs.at(-1)).toEqual({ role: 'assistant', content: 'a49' });
  });
});

describe("an unknown string format (e.g. BailingHub systems' phone)", () => {
  it('is an annotation on the host too: validated as a plain string, no ajv warning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const v = createArgumentValidator();
      const d = decl('auth-erp', 'member_lookup', 'r1', {
        input_schema: {
          type: 'object',
          properties: {
            phone: { type: 'string', format: 'phone' },
            email: { type: 'string', format: 'email' },
          },
          required: ['phone'],
          additionalProperties: false,
        },
      });
      expect(v.check('k1', d, { phone: '13800138000' })).toEqual({ ok: true, errors: [] });
      expect(v.check('k1', d, { phone: 42 }).ok).toBe(false);
      expect(v.check('k1', d, { phone: 'x', email: 'not an email' }).ok).toBe(false);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});
