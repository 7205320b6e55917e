// A Hub keeps the tokens it verified in memory under the configuration generation
// (src-hub/auth/verified-tokens.ts, http/auth.ts). A client token or the admin token changed
// through another connection — the operator CLI's own store on the same file, another instance on
// the same PostgreSQL database — must be refused by the very next request, also by the invoke
// route, which lets a remembered token through and confirms it from its own reads: nothing is
// stored or sent for it. Runs on both stores (projects "node" and "hub-postgres").
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createHub, type Hub } from '../../src-hub/index.js';
import { hashToken } from '../../src-hub/auth/tokens.js';
import { demoConfig, http, newInvocationId, opRequests, startEnv, token, type HubEnv } from './helpers.js';
import { openStoreFor, storeFor, storeMode, TEST_SECRET_KEY } from './store-mode.js';

const AUDIT = { actor: 'operator:test', kind: 'client.configured', detail: {} };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function env(): Promise<HubEnv> {
  const e = await startEnv();
  cleanups.push(() => e.close());
  return e;
}

/** A ready invoke body of client "desk" (its run and the declaration read with the given token). */
async function invokeBody(e: HubEnv, tok: string) {
  const d = await e.declaration('auth-shop-a', 'update_product_content', tok);
  return {
    invocation_id: newInvocationId(),
    run_id: await e.run('auth-shop-a', tok),
    authorization_ref: 'auth-shop-a',
    tool: 'update_product_content',
    declaration_revision: d.declaration_revision,
    arguments: { product_id: 'P-100', description: `rotation ${randomUUID()}` },
    host_call_id: `call-${randomUUID()}`,
  };
}

const invoke = (e: HubEnv, body: unknown, tok: string) =>
  http(e.hub.url, 'POST', '/agent/v1/invocations', { token: tok, body });

describe('tokens remembered under the configuration generation', () => {
  it('a client token rotated through another connection is refused at once: by the invoke route (nothing stored or sent) and by every other', async () => {
    const e = await env();
    // the tokens are verified, then remembered: the invoke route takes desk's from memory, the
    // other routes check other's against the generation
    expect((await invoke(e, await invokeBody(e, e.desk), e.desk)).status).toBe(201);
    expect((await invoke(e, await invokeBody(e, e.desk), e.desk)).status).toBe(201);
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, e.other)).status).toBe(200);
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, e.other)).status).toBe(200);
    const pending = await invokeBody(e, e.desk);
    const sent = opRequests(e.demo.shopA);

    // the operator's own connection (the CLI's store on the same file or database) rotates both
    const other = await openStoreFor(e.dataDir);
    cleanups.push(() => other.close());
    const rotated = { desk: token('desk'), other: token('other') };
    for (const [client_id, tok] of Object.entries(rotated))
      await other.upsertClient(
        {
          client_id,
          name: client_id,
          token_hash: hashToken(other.tokenSalt(), tok),
          created_at: new Date().toISOString(),
        },
        AUDIT,
      );

    const refused = await invoke(e, pending, e.desk);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('unauthorized');
    expect(
      e.sql('SELECT invocation_id FROM invocations WHERE invocation_id = ?', pending.invocation_id),
    ).toEqual([]);
    expect(opRequests(e.demo.shopA)).toBe(sent);
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, e.other)).status).toBe(401);
    // and again: a refused token is not remembered
    expect((await invoke(e, pending, e.desk)).status).toBe(401);
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, e.desk)).status).toBe(401);

    // the new tokens work at once, on every route
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, rotated.other)).status).toBe(200);
    expect((await invoke(e, pending, rotated.desk)).status).toBe(201);
    expect((await invoke(e, await invokeBody(e, rotated.desk), rotated.desk)).status).toBe(201);
    // and the old one stays refused once the new one is remembered
    expect((await invoke(e, await invokeBody(e, rotated.desk), e.desk)).status).toBe(401);
  });

  it('a client token rotated while a remembered one is in use elsewhere: another client is not refused', async () => {
    const e = await env();
    expect((await invoke(e, await invokeBody(e, e.desk), e.desk)).status).toBe(201);
    const other = await openStoreFor(e.dataDir);
    cleanups.push(() => other.close());
    await other.upsertClient(
      {
        client_id: 'other',
        name: 'other',
        token_hash: hashToken(other.tokenSalt(), token('other')),
        created_at: new Date().toISOString(),
      },
      AUDIT,
    );
    // desk's token is checked against the store again (the generation moved) and still verifies
    expect((await invoke(e, await invokeBody(e, e.desk), e.desk)).status).toBe(201);
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, e.other)).status).toBe(401);
  });

  it('the admin token changed through another connection is refused at once', async () => {
    const e = await env();
    expect((await e.admin('GET', '/admin/v1/metrics')).status).toBe(200);
    expect((await e.admin('GET', '/admin/v1/metrics')).status).toBe(200);
    const other = await openStoreFor(e.dataDir);
    cleanups.push(() => other.close());
    const next = `admin-${randomUUID()}`;
    await other.setAdminTokenHash(hashToken(other.tokenSalt(), next));
    expect((await e.admin('GET', '/admin/v1/metrics')).status).toBe(401);
    expect((await http(e.hub.url, 'GET', '/admin/v1/metrics', { token: next })).status).toBe(200);
    // the admin token on the agent API is still forbidden, a client's on the admin API too
    expect((await e.agent('GET', '/agent/v1/authorizations', undefined, next)).status).toBe(403);
    expect((await http(e.hub.url, 'GET', '/admin/v1/metrics', { token: e.desk })).status).toBe(403);
  });

  it('setMeta does not write the admin token (only setAdminTokenHash, which sets a new generation)', async () => {
    const e = await env();
    const other = await openStoreFor(e.dataDir);
    cleanups.push(() => other.close());
    await expect(other.setMeta('admin_token_hash', 'x')).rejects.toThrow(/setAdminTokenHash/);
    const before = await other.configGeneration();
    await other.setAdminTokenHash(hashToken(other.tokenSalt(), 'y'));
    expect(await other.configGeneration()).not.toBe(before);
  });

  // a sibling instance exists only on PostgreSQL: the SQLite project has no such test (not a skip)
  if (storeMode === 'postgres')
    it('PostgreSQL: a sibling instance starting with a config that rotates a token — the running one refuses the old token at once', async () => {
      const e = await env();
      expect((await invoke(e, await invokeBody(e, e.desk), e.desk)).status).toBe(201);
      const pending = await invokeBody(e, e.desk);
      const rotated = token('desk');
      const sibling: Hub = await createHub({
        ...(await storeFor(e.dataDir)),
        secretKey: TEST_SECRET_KEY,
        instanceId: `sibling-${randomUUID()}`,
        adminToken: e.adminToken,
        config: demoConfig(e.demo, [
          { client_id: 'desk', token: rotated },
          { client_id: 'other', token: e.other },
        ]),
      });
      cleanups.push(() => sibling.close());
      expect((await invoke(e, pending, e.desk)).status).toBe(401);
      expect((await invoke(e, pending, rotated)).status).toBe(201);
      expect((await http(sibling.url, 'GET', '/agent/v1/authorizations', { token: e.desk })).status).toBe(
        401,
      );
    });
});
