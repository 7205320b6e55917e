// What a retired system leaves behind is history, on SQLite and PostgreSQL (the hub-postgres
// project runs this file again): its authorizations are offered to no agent (the admin list keeps
// them, marked with system_retired_at; each grantee gets an authorization.changed notice, and another when it is revived), every admin change of its declarations, authorizations
// and grants but a revoke is refused 409 system_retired with nothing stored, a task or a run naming it is
// refused with the same code, no approval of it can be pending, and a restart with a config file
// that names it applies nothing of it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthorizationListSchema,
  HubErrorBodySchema,
  TaskListSchema,
  TaskViewSchema,
  type Authorization,
  type TaskSystem,
} from '../../src-shared/hub-api.js';
import { startEnv, taskBody, type HubEnv, type HttpResult } from './helpers.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv();
});
afterEach(async () => {
  await env.close();
});

const retire = (id: string) => env.admin('POST', `/admin/v1/systems/${encodeURIComponent(id)}/retire`);
const refs = (r: HttpResult) =>
  AuthorizationListSchema.parse(r.body).authorizations.map((a: Authorization) => a.authorization_ref);
const expectRetiredRefusal = (r: HttpResult) => {
  expect(r.status, r.text).toBe(409);
  expect(HubErrorBodySchema.parse(r.body).error).toBe('system_retired');
};
const auditCount = () => Number(env.sql<{ n: number }>('SELECT COUNT(*) AS n FROM audit')[0]!.n);
/** Registering shop-a again revives it. */
const reviveShopA = async () => {
  const again = await env.admin('POST', '/admin/v1/systems', {
    system_id: 'shop-a',
    name: 'Shop A',
    base_url: env.demo.shopA.url,
    signing_secret: env.demo.shopA.secret,
  });
  expect(again.status, again.text).toBe(201);
};
/** The authorization.changed events stored so far, in order: to whom, and the view they carry. */
const changeNotices = () =>
  env
    .sql<{ client_id: string; payload_json: string }>(
      "SELECT client_id, payload_json FROM events WHERE type = 'authorization.changed' ORDER BY seq",
    )
    .map((e) => ({
      client: e.client_id,
      authorization: JSON.parse(e.payload_json).authorization as Authorization,
    }));

describe("a retired system's authorizations", () => {
  it('are not offered to agents; the admin list keeps them, marked with system_retired_at', async () => {
    const before = await env.agent('GET', '/agent/v1/authorizations');
    expect(refs(before)).toContain('auth-shop-a');
    const live = AuthorizationListSchema.parse(before.body).authorizations;
    expect(live.every((a) => a.system_retired_at === null)).toBe(true);

    const retired = await retire('shop-a');
    expect(retired.status, retired.text).toBe(200);
    const retiredAt = retired.body.retired_at as string;
    // every grantee is told at once: an authorization.changed event whose view carries system_retired_at
    expect(changeNotices().map((n) => [n.client, n.authorization.authorization_ref])).toEqual([
      ['desk', 'auth-shop-a'],
      ['other', 'auth-shop-a'],
    ]);
    for (const n of changeNotices()) expect(n.authorization.system_retired_at).toBe(retiredAt);
    expect((await retire('shop-a')).status).toBe(200);
    expect(changeNotices()).toHaveLength(2);

    for (const tok of [env.desk, env.other]) {
      const list = await env.agent('GET', '/agent/v1/authorizations', undefined, tok);
      expect(list.status).toBe(200);
      expect(refs(list)).not.toContain('auth-shop-a');
      expect(refs(list)).toContain('auth-shop-b');
    }
    // a scope check may ask for them, marked: only its own grants, and only with include=retired
    const withRetired = await env.agent('GET', '/agent/v1/authorizations?include=retired');
    expect(withRetired.status, withRetired.text).toBe(200);
    const marked = AuthorizationListSchema.parse(withRetired.body).authorizations;
    expect(marked.find((a) => a.authorization_ref === 'auth-shop-a')?.system_retired_at).toBe(retiredAt);
    expect(marked.find((a) => a.authorization_ref === 'auth-shop-b')?.system_retired_at).toBeNull();
    expect(refs(withRetired).sort()).toEqual([...refs(before)].sort());
    for (const bad of ['?include=all', '?include=retired&include=retired', '?retired=1']) {
      const r = await env.agent('GET', `/agent/v1/authorizations${bad}`);
      expect(r.status, bad).toBe(400);
      expect(HubErrorBodySchema.parse(r.body).error).toBe('invalid_request');
    }
    const admin = AuthorizationListSchema.parse(
      (await env.admin('GET', '/admin/v1/authorizations')).body,
    ).authorizations;
    const kept = admin.find((a) => a.authorization_ref === 'auth-shop-a');
    expect(kept?.state).toBe('active');
    expect(kept?.system_retired_at).toBe(retiredAt);
    expect(admin.find((a) => a.authorization_ref === 'auth-shop-b')?.system_retired_at).toBeNull();

    // revived: offered again, unmarked, and every grantee told so
    await reviveShopA();
    const revivedNotices = changeNotices().slice(2);
    expect(revivedNotices.map((n) => [n.client, n.authorization.authorization_ref])).toEqual([
      ['desk', 'auth-shop-a'],
      ['other', 'auth-shop-a'],
    ]);
    for (const n of revivedNotices) {
      expect(n.authorization.system_retired_at).toBeNull();
      expect(n.authorization.state).toBe('active');
    }
    const back = AuthorizationListSchema.parse((await env.agent('GET', '/agent/v1/authorizations')).body);
    expect(
      back.authorizations.find((a) => a.authorization_ref === 'auth-shop-a')?.system_retired_at,
    ).toBeNull();
  });

  it('admin changes of them are refused 409 system_retired and store nothing: a new authorization, a grant, a rebind', async () => {
    const client = await env.admin('POST', '/admin/v1/clients', { name: 'late', client_id: 'late' });
    expect(client.status, client.text).toBe(201);
    expect((await retire('shop-a')).status).toBe(200);
    const audits = auditCount();
    const authRows = () =>
      env.sql(
        'SELECT authorization_ref, state, revision, account, on_behalf_of FROM authorizations ORDER BY authorization_ref',
      );
    const grantRows = () => env.sql('SELECT authorization_ref, client_id FROM grants ORDER BY 1, 2');
    const [auths, grants] = [authRows(), grantRows()];

    expectRetiredRefusal(
      await env.admin('POST', '/admin/v1/authorizations', {
        system_id: 'shop-a',
        account: 'another',
        on_behalf_of: 'ops@example.com',
        authorization_ref: 'auth-shop-a-2',
      }),
    );
    expectRetiredRefusal(
      await env.admin('POST', '/admin/v1/authorizations/auth-shop-a/grants', { client_id: 'late' }),
    );
    expectRetiredRefusal(
      await env.admin('POST', '/admin/v1/authorizations/auth-shop-a/rebind', { account: 'moved' }),
    );
    expect(authRows()).toEqual(auths);
    expect(grantRows()).toEqual(grants);
    expect(auditCount()).toBe(audits);
    // the other systems' authorizations still change
    const ok = await env.admin('POST', '/admin/v1/authorizations/auth-shop-b/grants', { client_id: 'late' });
    expect(ok.status, ok.text).toBe(200);
  });

  it('a revoke still applies (it only takes access away): audited, every grantee told, and a revived system does not bring the authorization back', async () => {
    expect((await retire('shop-a')).status).toBe(200);
    const audits = auditCount();
    const revoked = await env.admin('POST', '/admin/v1/authorizations/auth-shop-a/revoke');
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.state).toBe('revoked');
    expect(revoked.body.system_retired_at).not.toBeNull();
    expect(auditCount()).toBe(audits + 1);
    const revokeNotices = changeNotices().filter((n) => n.authorization.state === 'revoked');
    expect(revokeNotices.map((n) => n.client)).toEqual(['desk', 'other']);
    // registering the system again does not give the revoked authorization back
    await reviveShopA();
    const listed = AuthorizationListSchema.parse((await env.agent('GET', '/agent/v1/authorizations')).body);
    expect(listed.authorizations.find((a) => a.authorization_ref === 'auth-shop-a')?.state).toBe('revoked');
    const run = await env.agent('POST', '/agent/v1/runs', {
      agent_session_id: 'sess-revoked',
      turn_id: 'turn-1',
      authorization_ref: 'auth-shop-a',
    });
    expect(run.status, run.text).toBe(409);
    expect(HubErrorBodySchema.parse(run.body).error).toBe('authorization_revoked');
  });

  it('a task naming one, or a run on one, is refused 409 system_retired (nothing stored)', async () => {
    expect((await retire('shop-a')).status).toBe(200);
    const tasks = () => Number(env.sql<{ n: number }>('SELECT COUNT(*) AS n FROM tasks')[0]!.n);
    const runs = () => Number(env.sql<{ n: number }>('SELECT COUNT(*) AS n FROM runs')[0]!.n);
    const [t0, r0] = [tasks(), runs()];
    expectRetiredRefusal(
      await env.agent(
        'POST',
        '/agent/v1/tasks',
        taskBody('names a retired system', {
          'auth-shop-b': ['get_product'],
          'auth-shop-a': ['get_product'],
        }),
      ),
    );
    expectRetiredRefusal(
      await env.agent('POST', '/agent/v1/runs', {
        agent_session_id: 'sess-retired',
        turn_id: 'turn-1',
        authorization_ref: 'auth-shop-a',
      }),
    );
    expect([tasks(), runs()]).toEqual([t0, r0]);
  });

  it('no approval of it can be pending: a denied call lets the retire through and the approval stays readable, decided', async () => {
    const r = await env.invoke({ authRef: 'auth-shop-a', tool: 'publish_listing', args: { product_id: 42 } });
    expect(r.body.state).toBe('awaiting_approval');
    const approvalId = r.body.approval.approval_id as string;
    expect((await retire('shop-a')).body.error).toBe('system_has_unresolved_invocations');
    const denied = await env.admin('POST', `/admin/v1/approvals/${approvalId}/decision`, {
      decision_id: 'dec-1',
      decision: 'deny',
    });
    expect(denied.status, denied.text).toBe(200);
    expect((await retire('shop-a')).status).toBe(200);
    const pending = await env.admin('GET', '/admin/v1/approvals?state=pending');
    expect(pending.body.approvals).toEqual([]);
    const kept = await env.admin('GET', `/admin/v1/approvals/${approvalId}`);
    expect(kept.body.state).toBe('denied');
    // the system's name stays in the approval's view: the agent list no longer carries the system
    expect(kept.body.system_name).toBe('Shop A (homeware)');
    const all = await env.admin('GET', '/admin/v1/approvals');
    expect(all.body.approvals.map((a: { system_name: string }) => a.system_name)).toEqual([
      'Shop A (homeware)',
    ]);
  });

  it('a restart with the config file naming it applies nothing of it: the Hub starts, its authorizations stay as they were', async () => {
    expect((await retire('shop-a')).status).toBe(200);
    const grants = env.sql("SELECT client_id FROM grants WHERE authorization_ref = 'auth-shop-a' ORDER BY 1");
    await env.restart();
    expect(
      env.sql("SELECT client_id FROM grants WHERE authorization_ref = 'auth-shop-a' ORDER BY 1"),
    ).toEqual(grants);
    expect(refs(await env.agent('GET', '/agent/v1/authorizations'))).not.toContain('auth-shop-a');
    const b = await env.invoke({ authRef: 'auth-shop-b', tool: 'get_product', args: { product_id: 42 } });
    expect(b.status, b.text).toBe(201);
  });
});

describe('a task naming a retired system', () => {
  it('still names it where the task is served (systems, from the Hub’s records, marked retired); task.changed views read nothing for it', async () => {
    const created = await env.agent(
      'POST',
      '/agent/v1/tasks',
      taskBody('outlives a system', { 'auth-shop-a': ['get_product'], 'auth-inventory': ['get_stock'] }),
    );
    expect(created.status, created.text).toBe(201);
    const taskId = TaskViewSchema.parse(created.body).task_id;
    const inService = (ref: string, id: string, name: string): TaskSystem => ({
      authorization_ref: ref,
      system_id: id,
      system_name: name,
      system_kind: 'http',
      system_retired_at: null,
    });
    const inventory = inService('auth-inventory', 'inventory', 'Inventory');
    expect(TaskViewSchema.parse(created.body).systems).toEqual([
      inService('auth-shop-a', 'shop-a', 'Shop A (homeware)'),
      inventory,
    ]);

    const retired = await retire('shop-a');
    expect(retired.status, retired.text).toBe(200);
    const shopA = {
      ...inService('auth-shop-a', 'shop-a', 'Shop A (homeware)'),
      system_retired_at: retired.body.retired_at as string,
    };
    // the agent list no longer carries it: the task's view is where its name comes from
    expect(refs(await env.agent('GET', '/agent/v1/authorizations'))).not.toContain('auth-shop-a');
    const one = await env.agent('GET', `/agent/v1/tasks/${taskId}`);
    expect(one.status, one.text).toBe(200);
    expect(TaskViewSchema.parse(one.body).systems).toEqual([shopA, inventory]);
    const list = TaskListSchema.parse((await env.agent('GET', '/agent/v1/tasks')).body).tasks;
    expect(list.find((t) => t.task_id === taskId)?.systems).toEqual([shopA, inventory]);
    const paused = await env.agent('POST', `/agent/v1/tasks/${taskId}/pause`);
    expect(TaskViewSchema.parse(paused.body).systems).toEqual([shopA, inventory]);
    const admin = await env.admin('GET', `/admin/v1/tasks/${taskId}`);
    expect(TaskViewSchema.parse(admin.body).systems).toEqual([shopA, inventory]);
    // another client cannot read the task, so not its systems either
    expect((await env.agent('GET', `/agent/v1/tasks/${taskId}`, undefined, env.other)).status).toBe(404);

    // the views published with each change are rendered on the permit path: no systems there
    const published = () =>
      env
        .sql<{ payload_json: string }>(
          "SELECT payload_json FROM events WHERE type = 'task.changed' ORDER BY seq",
        )
        .map((e) => TaskViewSchema.parse(JSON.parse(e.payload_json).task))
        .filter((t) => t.task_id === taskId);
    const deadline = Date.now() + 10_000;
    while (!published().some((t) => t.state === 'paused') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(published().map((t) => t.state)).toEqual(['active', 'paused']);
    expect(published().every((t) => t.systems === undefined)).toBe(true);
  });
});
