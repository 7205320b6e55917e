// Retiring a business system (POST /admin/v1/systems/{id}/retire), on SQLite and PostgreSQL (the
// hub-postgres project runs this file again): refused while a call is unresolved, idempotent, no
// new call and no catalogue entry afterwards, history still readable, revived by registering the
// id again, and decided atomically against invokes racing it.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AuditEntrySchema,
  HubErrorBodySchema,
  ReceiptSchema,
  SystemSchema,
  type Declaration,
} from '../../src-shared/hub-api.js';
import { TERMINAL_INVOCATION_STATES } from '../../src-shared/states.js';
import { http, newInvocationId, opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv();
});
afterEach(async () => {
  await env.close();
});

const retire = (id: string) => env.admin('POST', `/admin/v1/systems/${encodeURIComponent(id)}/retire`);
const content = (title: string) => ({ product_id: 42, description: `desc ${title}`, title });

/** A write whose acknowledgement is lost: the shop committed it, the Hub says `unknown`. */
async function lostWrite(): Promise<string> {
  env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
  const r = await env.invoke({ authRef: 'auth-shop-a', tool: 'update_product_content', args: content('x') });
  expect(r.body.state).toBe('unknown');
  env.demo.shopA.faults.clear();
  return r.body.invocation_id as string;
}

const retiredAudit = () =>
  env.sql<{ seq: number }>("SELECT seq FROM audit WHERE kind = 'system.retired' ORDER BY seq");

describe('retiring a system', () => {
  it('an unknown id is 404 system_not_found', async () => {
    const r = await retire('no-such-system');
    expect(r.status).toBe(404);
    expect(HubErrorBodySchema.parse(r.body).error).toBe('system_not_found');
  });

  it('is refused while a call is unknown (409 system_has_unresolved_invocations, nothing changed); once it is settled the retire holds, and retiring again answers the same view', async () => {
    const id = await lostWrite();
    const refused = await retire('shop-a');
    expect(refused.status, refused.text).toBe(409);
    const body = HubErrorBodySchema.parse(refused.body);
    expect(body.error).toBe('system_has_unresolved_invocations');
    expect(body.message).toContain('1 call');
    const still = SystemSchema.parse((await env.admin('GET', '/admin/v1/systems/shop-a')).body);
    expect(still.retired_at).toBeNull();
    expect(retiredAudit()).toHaveLength(0);

    // the call still needs the system to be resolved; here the operator settles it
    const attested = await env.agent('POST', `/agent/v1/invocations/${encodeURIComponent(id)}/attest`, {
      outcome: 'succeeded',
      note: 'checked in the shop',
    });
    expect(attested.status, attested.text).toBe(200);

    const done = await retire('shop-a');
    expect(done.status, done.text).toBe(200);
    const view = SystemSchema.parse(done.body);
    expect(view.system_id).toBe('shop-a');
    expect(Date.parse(view.retired_at ?? '')).not.toBeNaN();
    const again = await retire('shop-a');
    expect(again.status).toBe(200);
    expect(SystemSchema.parse(again.body)).toEqual(view);
    expect(retiredAudit()).toHaveLength(1);
    const audit = await env.admin('GET', '/admin/v1/audit?kind=system.retired');
    const entry = AuditEntrySchema.parse(audit.body.entries[0]);
    expect(entry.actor).toBe('admin');
    expect(entry.detail.system_id).toBe('shop-a');

    // still listed, with its history readable
    const list = (await env.admin('GET', '/admin/v1/systems')).body.systems.map((s: unknown) =>
      SystemSchema.parse(s),
    );
    expect(list.find((s: { system_id: string }) => s.system_id === 'shop-a')?.retired_at).toBe(
      view.retired_at,
    );
    expect(list.find((s: { system_id: string }) => s.system_id === 'shop-b')?.retired_at).toBeNull();
    const old = await env.admin('GET', `/admin/v1/invocations/${encodeURIComponent(id)}`);
    expect(ReceiptSchema.parse(old.body).state).toBe('succeeded');
  });

  it('is refused while a call awaits approval', async () => {
    const r = await env.invoke({ authRef: 'auth-shop-a', tool: 'publish_listing', args: { product_id: 42 } });
    expect(r.body.state).toBe('awaiting_approval');
    const refused = await retire('shop-a');
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('system_has_unresolved_invocations');
  });

  it('after a retire: invokes are refused with system_retired (nothing stored or sent), the tools are in no catalogue, a refresh is refused; a repeated invocation id still answers its receipt', async () => {
    const d = await env.declaration('auth-shop-a', 'get_product');
    const runId = await env.run('auth-shop-a');
    const earlier = newInvocationId();
    const body = (invocationId: string) => ({
      invocation_id: invocationId,
      run_id: runId,
      authorization_ref: 'auth-shop-a',
      tool: 'get_product',
      declaration_revision: d.declaration_revision,
      arguments: { product_id: 42 },
      host_call_id: `call-${randomUUID()}`,
    });
    const first = await env.agent('POST', '/agent/v1/invocations', body(earlier));
    expect(first.status, first.text).toBe(201);
    expect((await retire('shop-a')).status).toBe(200);
    const sent = opRequests(env.demo.shopA);

    const refusedId = newInvocationId();
    const refused = await env.agent('POST', '/agent/v1/invocations', body(refusedId));
    expect(refused.status, refused.text).toBe(409);
    expect(HubErrorBodySchema.parse(refused.body).error).toBe('system_retired');
    expect(env.sql('SELECT invocation_id FROM invocations WHERE invocation_id = ?', refusedId)).toEqual([]);
    expect(opRequests(env.demo.shopA)).toBe(sent);
    // the call made before is its receipt, as ever
    const replay = await env.agent('POST', '/agent/v1/invocations', body(earlier));
    expect(replay.status).toBe(200);
    expect(ReceiptSchema.parse(replay.body).state).toBe('succeeded');

    const search = await env.agent('POST', '/agent/v1/tools/search', { query: '', limit: 50 });
    const systems = new Set((search.body.declarations as Declaration[]).map((x) => x.system_id));
    expect(systems.has('shop-a')).toBe(false);
    expect(systems.has('shop-b')).toBe(true);
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'retired',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['get_product'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    expect(task.status).toBe(409);
    expect(task.body.error).toBe('system_retired');
    const refresh = await env.admin('POST', '/admin/v1/systems/shop-a/refresh');
    expect(refresh.status).toBe(409);
    expect(refresh.body.error).toBe('system_retired');
  });

  it('registering the same id again revives it: retired_at cleared, its tools back, calls go through', async () => {
    expect((await retire('shop-a')).status).toBe(200);
    const again = await env.admin('POST', '/admin/v1/systems', {
      system_id: 'shop-a',
      name: 'Shop A',
      base_url: env.demo.shopA.url,
      signing_secret: env.demo.shopA.secret,
    });
    expect(again.status, again.text).toBe(201);
    expect(SystemSchema.parse(again.body).retired_at).toBeNull();
    const registered = await env.admin('GET', '/admin/v1/audit?kind=system.registered');
    expect(registered.body.entries.at(-1).detail.revived).toBe(true);
    const r = await env.invoke({ authRef: 'auth-shop-a', tool: 'get_product', args: { product_id: 42 } });
    expect(r.status, r.text).toBe(201);
    expect(r.body.state).toBe('succeeded');
  });

  it('survives a restart: the config file does not revive a retired system', async () => {
    expect((await retire('shop-a')).status).toBe(200);
    await env.restart();
    const view = SystemSchema.parse((await env.admin('GET', '/admin/v1/systems/shop-a')).body);
    expect(view.retired_at).not.toBeNull();
    const search = await env.agent('POST', '/agent/v1/tools/search', { query: 'product', limit: 50 });
    expect((search.body.declarations as Declaration[]).some((x) => x.system_id === 'shop-a')).toBe(false);
  });

  it('races invokes atomically: every invoke completed before the retire or was refused system_retired, and a retire is refused while one it raced is unresolved', async () => {
    const d = await env.declaration('auth-shop-a', 'get_product');
    const runs = await Promise.all(Array.from({ length: 4 }, () => env.run('auth-shop-a')));
    const invokeOnce = (i: number) =>
      http(env.hub.url, 'POST', '/agent/v1/invocations', {
        token: env.desk,
        body: {
          invocation_id: newInvocationId(),
          run_id: runs[i % runs.length],
          authorization_ref: 'auth-shop-a',
          tool: 'get_product',
          declaration_revision: d.declaration_revision,
          arguments: { product_id: 42 },
          host_call_id: `call-${randomUUID()}`,
        },
      });
    const answers: Array<{ status: number; body: { state?: string; error?: string } }> = [];
    const retires: Array<{ status: number; error?: string }> = [];
    let retired = false;
    // several streams of invokes with short random gaps (under the agent API's burst of 200), and
    // the retire tried again and again while they run (under the admin API's rate)
    const streams = Array.from({ length: 6 }, async (_, s) => {
      for (let i = 0; i < 25; i++) {
        const r = await invokeOnce(s * 100 + i);
        answers.push(r);
        if (r.status === 409) break;
        await sleep(Math.random() * 8);
      }
    });
    const retirer = (async () => {
      await sleep(20);
      while (!retired) {
        const r = await retire('shop-a');
        retires.push({ status: r.status, error: r.body.error });
        if (r.status === 200) retired = true;
        else await sleep(30);
      }
    })();
    await Promise.all([...streams, retirer]);

    expect(retired).toBe(true);
    for (const a of answers) {
      if (a.status === 201) expect(a.body.state).toBe('succeeded');
      else {
        expect(a.status).toBe(409);
        expect(a.body.error).toBe('system_retired');
      }
    }
    for (const r of retires.slice(0, -1)) expect(r.error).toBe('system_has_unresolved_invocations');
    const created = answers.filter((a) => a.status === 201).length;
    // the store: every call of the system was created and settled before the retire's commit
    const [retiredAt] = retiredAudit();
    const calls = env.sql<{ invocation_id: string; state: string }>(
      "SELECT invocation_id, state FROM invocations WHERE system_id = 'shop-a'",
    );
    expect(calls).toHaveLength(created);
    for (const c of calls) expect(TERMINAL_INVOCATION_STATES as readonly string[]).toContain(c.state);
    const late = env.sql<{ n: number }>(
      `SELECT COUNT(*) AS n FROM audit a JOIN invocations i ON a.invocation_id = i.invocation_id
       WHERE i.system_id = 'shop-a' AND a.seq > ?`,
      retiredAt!.seq,
    );
    expect(Number(late[0]!.n)).toBe(0);
    // the shop saw exactly the calls that were made
    expect(opRequests(env.demo.shopA)).toBe(created);
  });
});
