/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON; checked with the zod wire schemas */
// A business system written to BailingHub's published formats (demo/bailinghub-erp), registered
// through the admin API with the defaults, connects unchanged: a signed spec GET, calls signed over
// the operation's path under a base-URL prefix, GET tools as reads, {param, op, value, label}
// approval rules, body `required` inside the schema, guidance carried to the declaration, the
// deprecated tool left out, the `phone` format kept as an annotation (logged once, structured, no
// ajv warning on stderr).
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startBailingHubErp, type ErpHandle } from '../../demo/bailinghub-erp/index.js';
import {
  DeclarationSchema,
  ReceiptSchema,
  SystemSchema,
  TaskViewSchema,
  type Declaration,
} from '../../src-shared/hub-api.js';
import { newInvocationId, startEnv, type HubEnv } from './helpers.js';

const AUTH = 'auth-erp';
const logLines: Array<Record<string, unknown>> = [];
const logSink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});
const stderr: string[] = [];

let env: HubEnv;
let erp: ErpHandle;
beforeAll(async () => {
  erp = await startBailingHubErp({ secret: randomBytes(24).toString('hex') });
  env = await startEnv({ logger: pino({ level: 'info' }, logSink) });
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    stderr.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stderr.write);
  vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void stderr.push(args.join(' ')));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await env?.close();
  await erp?.close();
});

const erpCalls = () => erp.requests().filter((r) => r.kind === 'operation');
const declarations = async (): Promise<Map<string, Declaration>> => {
  const r = await env.agent('POST', '/agent/v1/tools/search', {
    query: '',
    authorization_refs: [AUTH],
    limit: 50,
  });
  expect(r.status).toBe(200);
  return new Map(
    (r.body.declarations as unknown[]).map((d) => {
      const decl = DeclarationSchema.parse(d);
      return [decl.tool, decl] as const;
    }),
  );
};
const call = (tool: string, args: Record<string, unknown>, taskId?: string) =>
  env.invoke({ authRef: AUTH, tool, args, ...(taskId ? { taskId } : {}) });
/** Registers the ERP through the admin API (modes left out take their defaults). */
const register = (systemId: string, modes: Record<string, string> = {}) =>
  env.admin('POST', '/admin/v1/systems', {
    system_id: systemId,
    name: `ERP ${systemId}`,
    base_url: erp.url,
    signing_secret: erp.secret,
    ...modes,
  });
/** An authorization of that system for the client "desk". */
async function authorize(systemId: string, ref: string) {
  const r = await env.admin('POST', '/admin/v1/authorizations', {
    system_id: systemId,
    account: '张三的店铺',
    on_behalf_of: 'ops@erp.example.com',
    authorization_ref: ref,
  });
  expect(r.status, r.text).toBe(201);
  expect(
    (await env.admin('POST', `/admin/v1/authorizations/${ref}/grants`, { client_id: 'desk' })).status,
  ).toBe(200);
}

describe('registration through the admin API, with the defaults', () => {
  it('an unsigned spec GET is refused by the system: registration fails and nothing is stored', async () => {
    const r = await register('erp-unsigned', { spec_signing: 'unsigned' });
    expect(r.status).toBe(502);
    expect(r.body.error).toBe('system_unreachable');
    expect(r.body.message).toContain('HTTP 401');
    expect((await env.admin('GET', '/admin/v1/systems/erp-unsigned')).status).toBe(404);
  });

  it('registers with a signed spec GET and compiles six tools, leaving the deprecated one out', async () => {
    const r = await register('erp');
    expect(r.status, r.text).toBe(201);
    const sys = SystemSchema.parse(r.body);
    expect(sys).toMatchObject({ spec_signing: 'signed', signed_path: 'operation', tool_count: 6 });
    expect(sys.diagnostics.map((d) => [d.code, d.operation])).toEqual([
      ['format_unknown', 'member_lookup'],
      ['operation_deprecated', 'order_export_legacy'],
    ]);
    const spec = erp.requests().filter((q) => q.kind === 'spec');
    expect(spec.at(-1)).toMatchObject({
      url: '/openapi/.well-known/bailing/tools.json',
      auth: 'valid',
      status: 200,
    });
    await authorize('erp', AUTH);
  });

  it('compiles every operation with the right effect, approval rules and required list', async () => {
    const d = await declarations();
    expect([...d.keys()].sort()).toEqual([
      'member_lookup',
      'order_query',
      'price_update',
      'product_get',
      'product_search',
      'refund_create',
    ]);
    const effects = Object.fromEntries([...d].map(([k, v]) => [k, [v.effect, v.idempotent]]));
    expect(effects).toEqual({
      product_get: ['read', true],
      product_search: ['read', true],
      member_lookup: ['read', true],
      order_query: ['read', false],
      refund_create: ['write', false],
      price_update: ['write', true],
    });
    const refund = d.get('refund_create')!;
    expect(refund.input_schema.required).toEqual(['amount', 'order_id', 'reason']);
    expect(refund.approval).toEqual({
      required: false,
      prompt: 'Refund {amount} on order {order_id}?',
      when: [
        { path: '/amount', op: 'gt', value: 500, label: 'refunds over 500 need a manager' },
        { path: '/reason', op: 'contains', value: 'fraud', label: 'suspected fraud is reviewed' },
        { path: '/tags', op: 'contains', value: 'vip', label: 'VIP refunds are reviewed' },
      ],
    });
    expect(d.get('price_update')!.approval.when.map((w) => w.op)).toEqual([
      'gte',
      'lt',
      'lte',
      'in',
      'neq',
      'eq',
      'exists',
    ]);
    expect(d.get('price_update')!.input_schema.required).toEqual(['id', 'price']);
    expect((d.get('member_lookup')!.input_schema.properties as any).phone).toMatchObject({
      type: 'string',
      format: 'phone',
    });
  });

  it('carries the guidance the model needs in model_guidance', async () => {
    const d = await declarations();
    expect(d.get('product_get')!.model_guidance).toEqual({
      when_to_use: 'you need the current price of one product before changing it',
      returns: 'the product with id, name, price and currency',
      examples: ['{"id":"P-100"}'],
      notes: [],
      approval_prompt: null,
      approval_when: [],
    });
    expect(d.get('refund_create')!.model_guidance).toMatchObject({
      when_to_use: 'the customer was charged and should get money back',
      approval_prompt: 'Refund {amount} on order {order_id}?',
      approval_when: [
        'refunds over 500 need a manager',
        'suspected fraud is reviewed',
        'VIP refunds are reviewed',
      ],
    });
    expect(d.get('product_search')!.model_guidance).toBeNull();
  });
});

describe('calls', () => {
  it('a task with write budget 1 allows any number of reads; the one write goes through, a second is refused', async () => {
    const r = await env.agent('POST', '/agent/v1/tasks', {
      title: 'ERP reads and one refund',
      authorizations: [
        {
          authorization_ref: AUTH,
          tools: ['product_get', 'product_search', 'member_lookup', 'order_query', 'refund_create'],
        },
      ],
      write_budget: 1,
      in_flight_limit: 2,
    });
    expect(r.status).toBe(201);
    const taskId = r.body.task_id as string;
    const reads = [
      ['product_get', { id: 'P-100' }],
      ['product_get', { id: 'P-200' }],
      ['product_search', { keyword: 'tea', limit: 5 }],
      ['member_lookup', { phone: '13800138000' }],
      ['order_query', { status: 'paid' }],
      ['product_get', { id: 'P-100' }],
      ['member_lookup', { phone: '13800138000' }],
    ] as const;
    for (const [tool, args] of reads) {
      const res = await call(tool, args, taskId);
      expect(ReceiptSchema.parse(res.body), `${tool}: ${res.text}`).toMatchObject({
        state: 'succeeded',
        effect: 'read',
      });
    }
    const view = () =>
      env.agent('GET', `/agent/v1/tasks/${taskId}`).then((v) => TaskViewSchema.parse(v.body));
    expect(await view()).toMatchObject({ writes_used: 0, writes_left: 1, permits_granted: reads.length });
    const refund = await call(
      'refund_create',
      { order_id: 'SO-1001', amount: 20, reason: 'damaged' },
      taskId,
    );
    expect(refund.body).toMatchObject({ state: 'succeeded', effect: 'write', business_status: 201 });
    expect(erp.ledger()).toHaveLength(1);
    expect(erp.ledger()[0]).toMatchObject({ tool: 'refund_create', on_behalf_of: 'ops@erp.example.com' });
    expect((await call('product_get', { id: 'P-100' }, taskId)).body.state).toBe('succeeded');
    const second = await call('refund_create', { order_id: 'SO-1002', amount: 10, reason: 'late' }, taskId);
    expect(second.body).toMatchObject({ state: 'not_dispatched', reason_code: 'budget_exhausted' });
    expect(erp.ledger()).toHaveLength(1);
    expect(await view()).toMatchObject({ writes_used: 1, writes_left: 0 });
    // Every call the ERP received verified against the operation's path, under the /openapi prefix.
    expect(erpCalls().every((q) => q.auth === 'valid' && q.url.startsWith('/openapi/api/'))).toBe(true);
  });

  it('a call missing a required body field is not_dispatched / arguments_invalid and nothing is sent', async () => {
    const before = erpCalls().length;
    const r = await call('refund_create', { order_id: 'SO-1003', amount: 5 });
    expect(r.body).toMatchObject({
      state: 'not_dispatched',
      reason_code: 'arguments_invalid',
      dispatch: 'none',
    });
    expect(r.body.reason_message).toContain('reason');
    expect(erpCalls().length).toBe(before);
  });

  it('{param, op, value, label} rules ask for approval, nothing is sent until approved and resumed', async () => {
    const before = erpCalls().length;
    const cases: Array<Record<string, unknown>> = [
      { order_id: 'SO-2001', amount: 600, reason: 'broken' },
      { order_id: 'SO-2002', amount: 5, reason: 'possible fraud on card' },
      { order_id: 'SO-2003', amount: 5, reason: 'late', tags: ['new', 'vip'] },
    ];
    for (const args of cases) {
      const r = await call('refund_create', args);
      expect(r.body.state, JSON.stringify(args)).toBe('awaiting_approval');
    }
    const plain = await call('refund_create', {
      order_id: 'SO-2004',
      amount: 5,
      reason: 'late',
      tags: ['vipish'],
    });
    expect(plain.body.state).toBe('succeeded');
    expect(erpCalls().length).toBe(before + 1);
    const approvals = await env.admin('GET', '/admin/v1/approvals?state=pending');
    expect(approvals.body.approvals.map((a: { prompt: string }) => a.prompt)).toContain(
      'Refund 600 on order SO-2001?',
    );
  });

  it('the unknown phone format was logged once, structured, and ajv wrote nothing to stderr', async () => {
    await call('member_lookup', { phone: '13800138000' });
    const formatLines = logLines.filter((l) => l.event === 'format_unknown');
    expect(formatLines).toHaveLength(1);
    expect(formatLines[0]).toMatchObject({ format: 'phone', level: 30 });
    expect(stderr.join('')).not.toMatch(/unknown format/);
  });

  it('without an operations look-up a lost answer ends unverified, never re-sent', async () => {
    erp.dropAfterCommit('refund_create');
    const id = newInvocationId();
    const lost = await env.invoke({
      authRef: AUTH,
      tool: 'refund_create',
      args: { order_id: 'SO-3001', amount: 30, reason: 'lost answer' },
      id,
    });
    expect(lost.body).toMatchObject({ state: 'unknown', reason_code: 'no_response_connection_lost' });
    const resumed = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(resumed.body).toMatchObject({ action: 'reconciled', receipt: { state: 'unverified' } });
    expect(erp.requests().filter((q) => q.idempotency_key === id)).toHaveLength(1);
    expect(erp.ledger().filter((w) => w.idempotency_key === id)).toHaveLength(1);
  });

  it('signed_path full signs the prefix too: this system refuses such calls (why operation is the default)', async () => {
    expect((await register('erp-full', { signed_path: 'full' })).status).toBe(201);
    await authorize('erp-full', 'auth-erp-full');
    const res = await env.invoke({ authRef: 'auth-erp-full', tool: 'product_get', args: { id: 'P-100' } });
    expect(res.body).toMatchObject({
      state: 'failed',
      business_status: 401,
      result: { error: 'signature_invalid' },
    });
  });
});
