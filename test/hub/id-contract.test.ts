// Every id the wire contract allows works on every route that takes it. Lengths and alphabets are
// derived from the zod schemas (src-shared/hub-api.ts), not written down here, and the extremes —
// shortest, longest, every allowed character, percent-encoded in paths — are tried on each route:
// invocation ids on invoke, inspect, resume (also reconciling a lost answer), admin inspect and the
// audit filter; authorization refs, system ids and client ids on theirs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AuthorizationListSchema,
  ClientIdSchema,
  CreateAuthorizationRequestSchema,
  InvokeRequestSchema,
  ReceiptSchema,
  RegisterSystemRequestSchema,
  ResumeResponseSchema,
  SystemSchema,
} from '../../src-shared/hub-api.js';
import { http, startEnv, type HubEnv } from './helpers.js';

interface IdRule {
  min: number;
  max: number;
  /** Characters allowed after the first one. */
  alphabet: string[];
  valid: (s: string) => boolean;
}

/** Reads an id's rule off its zod schema: lengths from the schema, the alphabet by asking it. */
function ruleOf(schema: z.ZodType): IdRule {
  const valid = (s: string) => schema.safeParse(s).success;
  const lengths = Array.from({ length: 1024 }, (_, i) => i + 1).filter((n) => valid('a'.repeat(n)));
  const min = Math.min(...lengths);
  const max = Math.max(...lengths);
  const probe = Math.max(min, 2);
  const candidates = [
    ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
    'é',
    '\u00a0',
    '\n',
  ];
  const alphabet = candidates.filter((c) => valid(`a${c.repeat(probe - 1)}`));
  return { min, max, alphabet, valid };
}

/** The extremes of a rule: shortest, longest, and the whole alphabet at the longest length. */
function extremes(rule: IdRule, extraLengths: number[] = []): string[] {
  const unique = randomUUID().replace(/-/g, '');
  const ofLength = (n: number) => `a${unique}${'b'.repeat(Math.max(0, n))}`.slice(0, n);
  const ids = [...new Set([rule.min, rule.max, ...extraLengths])].map(ofLength);
  let all = `a${unique.slice(0, 6)}`;
  while (all.length < rule.max) all += rule.alphabet.join('');
  ids.push(all.slice(0, rule.max));
  for (const id of ids) expect(rule.valid(id)).toBe(true);
  return ids;
}

const enc = encodeURIComponent;
let env: HubEnv;
let declarationRevision: string;
beforeAll(async () => {
  env = await startEnv();
  declarationRevision = (await env.declaration('auth-shop-a', 'update_product_content')).declaration_revision;
});
afterAll(async () => {
  await env.close();
});

describe('the id contract', () => {
  it('derives sensible rules from the schemas (so the extremes below are the real ones)', () => {
    const inv = ruleOf(InvokeRequestSchema.shape.invocation_id);
    expect([inv.min, inv.max]).toEqual([8, 128]);
    expect(inv.alphabet).toContain('/');
    expect(inv.alphabet).toContain('%');
    expect(inv.alphabet).not.toContain(' ');
    expect(ruleOf(CreateAuthorizationRequestSchema.shape.authorization_ref.unwrap()).max).toBe(128);
    expect(ruleOf(RegisterSystemRequestSchema.shape.system_id).max).toBe(63);
    expect(ruleOf(ClientIdSchema).max).toBe(128);
  });

  it('invocation ids of every allowed length and character: invoke, inspect, resume, admin inspect, audit; a lost answer is reconciled', async () => {
    const rule = ruleOf(InvokeRequestSchema.shape.invocation_id);
    const ids = extremes(rule, [100, 101]);
    expect(ids.map((i) => i.length)).toEqual(expect.arrayContaining([8, 100, 101, 128]));
    for (const id of ids) {
      const runId = await env.run('auth-shop-a');
      env.demo.shopA.faults.set({
        operation: 'update_product_content',
        kind: 'drop_after_commit',
        times: 'once',
      });
      const created = await env.agent('POST', '/agent/v1/invocations', {
        invocation_id: id,
        run_id: runId,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: declarationRevision,
        arguments: { product_id: 42, description: `id of ${id.length}` },
        host_call_id: 'h',
      });
      expect(created.status, `${id}: ${created.text}`).toBe(201);
      expect(ReceiptSchema.parse(created.body)).toMatchObject({ invocation_id: id, state: 'unknown' });

      const inspected = await env.agent('GET', `/agent/v1/invocations/${enc(id)}`);
      expect(inspected.status, `${id}: ${inspected.text}`).toBe(200);
      expect(ReceiptSchema.parse(inspected.body).invocation_id).toBe(id);

      // the call whose answer was lost is recovered by its id: the look-up carries it too
      const resumed = await env.agent('POST', `/agent/v1/invocations/${enc(id)}/resume`);
      expect(resumed.status, `${id}: ${resumed.text}`).toBe(200);
      const r = ResumeResponseSchema.parse(resumed.body);
      expect(r.action).toBe('reconciled');
      expect(r.receipt.state).toBe('succeeded');

      const admin = await env.admin('GET', `/admin/v1/invocations/${enc(id)}`);
      expect(admin.status, `${id}: ${admin.text}`).toBe(200);
      expect(ReceiptSchema.parse(admin.body).invocation_id).toBe(id);

      const audit = await env.admin('GET', `/admin/v1/audit?invocation_id=${enc(id)}`);
      expect(audit.status).toBe(200);
      expect(audit.body.entries.length).toBeGreaterThan(0);
    }
    // one ledger entry per id: exactly one write each, keyed by the id
    const keys = env.demo.shopA.ledger().map((e) => e.idempotency_key);
    for (const id of ids) expect(keys.filter((k) => k === id)).toHaveLength(1);
  });

  it('authorization refs of every allowed length and character: create, grant, list, run, search, invoke, task, rebind, revoke', async () => {
    const rule = ruleOf(CreateAuthorizationRequestSchema.shape.authorization_ref.unwrap());
    for (const ref of extremes(rule)) {
      const created = await env.admin('POST', '/admin/v1/authorizations', {
        system_id: 'shop-a',
        account: 'acct',
        on_behalf_of: 'operator@demo.local',
        authorization_ref: ref,
      });
      expect(created.status, `${ref}: ${created.text}`).toBe(201);
      const granted = await env.admin('POST', `/admin/v1/authorizations/${enc(ref)}/grants`, {
        client_id: 'desk',
      });
      expect(granted.status, `${ref}: ${granted.text}`).toBe(200);
      const listed = AuthorizationListSchema.parse((await env.agent('GET', '/agent/v1/authorizations')).body);
      expect(listed.authorizations.map((a) => a.authorization_ref)).toContain(ref);
      const r = await env.invoke({
        authRef: ref,
        tool: 'update_product_content',
        args: { product_id: 42, description: 'by ref' },
      });
      expect(r.status, `${ref}: ${r.text}`).toBe(201);
      expect(r.body.state).toBe('succeeded');
      const task = await env.agent('POST', '/agent/v1/tasks', {
        title: 'ref',
        authorizations: [{ authorization_ref: ref, tools: ['update_product_content'] }],
        write_budget: 1,
        in_flight_limit: 1,
      });
      expect(task.status, `${ref}: ${task.text}`).toBe(201);
      expect((await env.admin('POST', `/admin/v1/authorizations/${enc(ref)}/rebind`)).status).toBe(200);
      expect((await env.admin('POST', `/admin/v1/authorizations/${enc(ref)}/revoke`)).status).toBe(200);
    }
  });

  it('system ids of every allowed length and character: register, read, refresh', async () => {
    const rule = ruleOf(RegisterSystemRequestSchema.shape.system_id);
    const ids = extremes(rule).map((id) => id.toLowerCase());
    for (const id of ids) {
      const reg = await env.admin('POST', '/admin/v1/systems', {
        system_id: id,
        name: 'copy of shop B',
        base_url: env.demo.shopB.url,
        signing_secret: env.demo.shopB.secret,
      });
      expect(reg.status, `${id}: ${reg.text}`).toBe(201);
      const read = await env.admin('GET', `/admin/v1/systems/${enc(id)}`);
      expect(read.status).toBe(200);
      expect(SystemSchema.parse(read.body).system_id).toBe(id);
      expect((await env.admin('POST', `/admin/v1/systems/${enc(id)}/refresh`)).status).toBe(200);
    }
  });

  it('client ids of every allowed length and character: create, authenticate with the token, be granted', async () => {
    for (const id of extremes(ruleOf(ClientIdSchema))) {
      const created = await env.admin('POST', '/admin/v1/clients', { name: 'edge', client_id: id });
      expect(created.status, `${id}: ${created.text}`).toBe(201);
      const tok = created.body.token as string;
      const granted = await env.admin('POST', '/admin/v1/authorizations/auth-shop-b/grants', {
        client_id: id,
      });
      expect(granted.status, `${id}: ${granted.text}`).toBe(200);
      const mine = await http(env.hub.url, 'GET', '/agent/v1/authorizations', { token: tok });
      expect(mine.status, `${id}: ${mine.text}`).toBe(200);
      expect(AuthorizationListSchema.parse(mine.body).authorizations.map((a) => a.authorization_ref)).toEqual(
        ['auth-shop-b'],
      );
    }
  });

  it('ids the Hub makes: any id up to the route bound is looked up and answered with its own not-found code', async () => {
    for (const [path, code, tok] of [
      ['/agent/v1/runs/', 'run_not_found', env.desk],
      ['/agent/v1/tasks/', 'task_not_found', env.desk],
      ['/admin/v1/tasks/', 'task_not_found', env.adminToken],
      ['/admin/v1/approvals/', 'approval_not_found', env.adminToken],
      ['/agent/v1/invocations/', 'invocation_not_found', env.desk],
    ] as const) {
      for (const id of ['x', 'y'.repeat(200), `${'%2F'.repeat(60)}z`]) {
        const r = await http(env.hub.url, 'GET', `${path}${id}`, { token: tok });
        expect(r.status, `${path}${id}: ${r.text}`).toBe(404);
        expect(r.body.error).toBe(code);
      }
    }
  });
});
