// Specs written the way BailingHub's connect SDKs write them compile as BailingHub compiles them:
// GET/HEAD read-only and idempotent unless the capability says otherwise, approval.when rules in
// `{param, op, value, label}` form with every operator, body `required` taken from the body schema,
// deprecated operations not offered, unknown string formats kept as annotations.
import { describe, expect, it } from 'vitest';
import {
  approvalRequired,
  compileSpec,
  ruleMatches,
  type HttpOperation,
} from '../../../src-hub/acc/index.js';

type Json = Record<string, unknown>;
const cap = (extra: Json = {}) => ({ version: 1, enabled: true, scope: 'erp', ...extra });
const spec = (paths: Json) => ({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths });
const compile = (paths: Json) => compileSpec(spec(paths));
const one = (paths: Json): HttpOperation => {
  const r = compile(paths);
  expect(r.operations, JSON.stringify(r.diagnostics)).toHaveLength(1);
  return r.operations[0]!;
};
const body = (properties: Json, required?: string[]) => ({
  content: {
    'application/json': { schema: { type: 'object', properties, ...(required ? { required } : {}) } },
  },
});
const refundBody = body(
  {
    order_id: { type: 'string' },
    amount: { type: 'number' },
    reason: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    channel: { type: 'string', enum: ['web', 'store'] },
  },
  ['order_id', 'amount'],
);
const refundWith = (when: unknown[]) =>
  one({
    '/api/refunds': {
      post: {
        operationId: 'refund_create',
        summary: 'Create a refund',
        requestBody: refundBody,
        'x-agent-capability': cap({ approval: { when } }),
      },
    },
  });

describe('execution defaults by method', () => {
  it('a GET without execution flags is a read, read-only and idempotent', () => {
    const op = one({
      '/api/products/{id}': {
        get: {
          operationId: 'product_get',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          'x-agent-capability': cap(),
        },
      },
    });
    expect(op).toMatchObject({
      effect: 'read',
      declared_readonly: true,
      idempotent: true,
      side_effect: 'none',
    });
  });

  it('HEAD likewise; a GET the capability declares not read-only is a write', () => {
    const head = one({ '/ping': { head: { operationId: 'ping', 'x-agent-capability': cap() } } });
    expect(head).toMatchObject({ method: 'HEAD', effect: 'read', idempotent: true });
    const sideEffecting = one({
      '/report': {
        get: {
          operationId: 'report_send',
          'x-agent-capability': cap({ execution: { readonly: false, idempotent: false } }),
        },
      },
    });
    expect(sideEffecting).toMatchObject({ effect: 'write', declared_readonly: false, idempotent: false });
    const notifies = one({
      '/nudge': {
        get: { operationId: 'nudge', 'x-agent-capability': cap({ outcome: { side_effect: 'notify' } }) },
      },
    });
    expect(notifies.effect).toBe('write');
  });

  it('POST stays a write unless declared read-only (a POST query)', () => {
    const write = one({
      '/a': {
        post: { operationId: 'a', requestBody: body({ q: { type: 'string' } }), 'x-agent-capability': cap() },
      },
    });
    expect(write).toMatchObject({ effect: 'write', idempotent: false });
    const query = one({
      '/q': {
        post: {
          operationId: 'q',
          requestBody: body({ q: { type: 'string' } }),
          'x-agent-capability': cap({ execution: { readonly: true } }),
        },
      },
    });
    expect(query).toMatchObject({ effect: 'read', idempotent: false });
  });
});

describe('body required from the body schema', () => {
  it('required inside the schema counts without requestBody.required', () => {
    const op = refundWith([]);
    expect(op.input_schema.required).toEqual(['amount', 'order_id']);
    expect(op.body_required).toBe(true);
  });
});

describe('approval.when in BailingHub format', () => {
  it('compiles every operator, keeps labels, and mixes with our format', () => {
    const op = refundWith([
      { param: 'amount', op: '>', value: 500, label: 'refunds over 500 need a manager' },
      { param: 'amount', op: '>=', value: 10000 },
      { param: 'amount', op: '<', value: 0 },
      { param: 'amount', op: '<=', value: -100 },
      { param: 'channel', op: '==', value: 'store' },
      { param: 'channel', op: '!=', value: 'web' },
      { param: 'order_id', op: 'in', value: ['SO-1', 'SO-2'] },
      { param: 'reason', op: 'contains', value: 'fraud' },
      { param: 'tags', op: 'contains', value: 'vip' },
      { param: 'reason', op: 'exists' },
      { path: '/amount', op: 'gt', value: 99999 },
    ]);
    expect(op.approval.when).toEqual([
      { path: '/amount', op: 'gt', value: 500, label: 'refunds over 500 need a manager' },
      { path: '/amount', op: 'gte', value: 10000 },
      { path: '/amount', op: 'lt', value: 0 },
      { path: '/amount', op: 'lte', value: -100 },
      { path: '/channel', op: 'eq', value: 'store' },
      { path: '/channel', op: 'neq', value: 'web', match_absent: true },
      { path: '/order_id', op: 'in', value: ['SO-1', 'SO-2'] },
      { path: '/reason', op: 'contains', value: 'fraud' },
      { path: '/tags', op: 'contains', value: 'vip' },
      { path: '/reason', op: 'exists' },
      { path: '/amount', op: 'gt', value: 99999 },
    ]);
  });

  it('evaluates them as BailingHub does', () => {
    const needs = (when: unknown[], args: Json) => approvalRequired(refundWith(when), args);
    const base = { order_id: 'SO-9', amount: 100, channel: 'web' };
    expect(needs([{ param: 'amount', op: '>', value: 500 }], { ...base, amount: 501 })).toBe(true);
    expect(needs([{ param: 'amount', op: '>', value: 500 }], { ...base, amount: 500 })).toBe(false);
    expect(needs([{ param: 'amount', op: '>=', value: 500 }], { ...base, amount: 500 })).toBe(true);
    expect(needs([{ param: 'amount', op: '<', value: 1 }], { ...base, amount: 0.5 })).toBe(true);
    expect(needs([{ param: 'amount', op: '<=', value: 1 }], { ...base, amount: 2 })).toBe(false);
    expect(needs([{ param: 'channel', op: '==', value: 'store' }], { ...base, channel: 'store' })).toBe(true);
    // `!=` matches a different value and an absent one (BailingHub); ours (`neq`) not the absent one.
    expect(needs([{ param: 'channel', op: '!=', value: 'web' }], { ...base, channel: 'store' })).toBe(true);
    expect(needs([{ param: 'channel', op: '!=', value: 'web' }], { order_id: 'SO-9', amount: 1 })).toBe(true);
    expect(needs([{ param: 'channel', op: '!=', value: 'web' }], base)).toBe(false);
    expect(needs([{ path: 'channel', op: 'neq', value: 'web' }], { order_id: 'SO-9', amount: 1 })).toBe(
      false,
    );
    expect(needs([{ param: 'order_id', op: 'in', value: ['SO-1', 'SO-9'] }], base)).toBe(true);
    expect(needs([{ param: 'order_id', op: 'in', value: ['SO-1'] }], base)).toBe(false);
    // contains: substring of a string, element of an array; absent never matches.
    expect(
      needs([{ param: 'reason', op: 'contains', value: 'fraud' }], {
        ...base,
        reason: 'suspected fraud case',
      }),
    ).toBe(true);
    expect(needs([{ param: 'reason', op: 'contains', value: 'fraud' }], { ...base, reason: 'damaged' })).toBe(
      false,
    );
    expect(needs([{ param: 'reason', op: 'contains', value: 'fraud' }], base)).toBe(false);
    expect(needs([{ param: 'tags', op: 'contains', value: 'vip' }], { ...base, tags: ['new', 'vip'] })).toBe(
      true,
    );
    expect(needs([{ param: 'tags', op: 'contains', value: 'vip' }], { ...base, tags: ['vipish'] })).toBe(
      false,
    );
    expect(needs([{ param: 'reason', op: 'exists' }], { ...base, reason: '' })).toBe(true);
    expect(needs([{ param: 'reason', op: 'exists' }], base)).toBe(false);
    expect(ruleMatches({ path: '/tags', op: 'contains', value: { a: 1 } }, { tags: [{ a: 1 }] })).toBe(true);
  });

  it('refuses rules BailingHub could never apply (capability_invalid, operation left out)', () => {
    const refused = (when: unknown[]) => {
      const r = compile({
        '/api/refunds': {
          post: {
            operationId: 'refund_create',
            requestBody: refundBody,
            'x-agent-capability': cap({ approval: { when } }),
          },
        },
      });
      expect(r.operations).toEqual([]);
      return r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n');
    };
    expect(refused([{ param: 'nope', op: '>', value: 1 }])).toMatch(/capability_invalid.*names no argument/);
    expect(refused([{ param: 'amount', op: '>', value: '500' }])).toMatch(/needs a number value/);
    expect(refused([{ param: 'reason', op: '>', value: 5 }])).toMatch(/compares numbers/);
    expect(refused([{ param: 'amount', op: 'contains', value: 5 }])).toMatch(/string or array argument/);
    expect(refused([{ param: 'reason', op: 'contains', value: 5 }])).toMatch(/needs a string value/);
    expect(refused([{ param: 'order_id', op: 'in', value: 'SO-1' }])).toMatch(/array value/);
    expect(refused([{ param: 'amount', op: '==' }])).toMatch(/needs a value/);
    expect(refused([{ param: 'amount', op: 'gt', value: 1 }])).toMatch(/capability_invalid/); // our op word in their format
    expect(refused([{ param: 'amount', op: '>', value: 1, extra: true }])).toMatch(/capability_invalid/);
  });
});

describe('deprecated operations and unknown formats', () => {
  it('a deprecated operation is not offered; the others are', () => {
    const r = compile({
      '/old': { get: { operationId: 'old_export', deprecated: true, 'x-agent-capability': cap() } },
      '/new': { get: { operationId: 'new_export', 'x-agent-capability': cap() } },
    });
    expect(r.operations.map((o) => o.tool)).toEqual(['new_export']);
    expect(r.diagnostics).toEqual([
      {
        code: 'operation_deprecated',
        operation: 'old_export',
        message: 'GET /old is deprecated; not offered to agents',
      },
    ]);
  });

  it('an unknown string format is kept as an annotation: offered, noted once, never checked', () => {
    const r = compile({
      '/api/members': {
        get: {
          operationId: 'member_lookup',
          parameters: [
            { name: 'phone', in: 'query', required: true, schema: { type: 'string', format: 'phone' } },
            { name: 'email', in: 'query', schema: { type: 'string', format: 'email' } },
          ],
          'x-agent-capability': cap(),
        },
      },
    });
    expect(r.operations.map((o) => o.tool)).toEqual(['member_lookup']);
    expect((r.operations[0]!.input_schema.properties as Json).phone).toEqual({
      type: 'string',
      format: 'phone',
    });
    expect(r.diagnostics).toHaveLength(1);
    expect(r.diagnostics[0]).toMatchObject({ code: 'format_unknown', operation: 'member_lookup' });
    expect(r.diagnostics[0]!.message).toContain('phone');
    expect(r.diagnostics[0]!.message).not.toContain('email');
  });
});
