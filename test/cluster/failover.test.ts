// Hub instances on one PostgreSQL database cover for each other without ever doing a call twice:
// a SIGKILLed instance's in-flight call becomes `unknown` only after its lease expired, while its
// siblings keep serving (a live sibling's call is never touched), and resume on any instance
// reconciles it; an approval decided
// on one instance and a resume racing on two send the call exactly once.
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { ReceiptSchema } from '../../src-shared/hub-api.js';
import { newInvocationId, opRequests } from '../hub/helpers.js';
import { describeOnPostgres } from '../hub/store-mode.js';
import { call, startCluster, type Cluster } from './cluster.js';

const LEASE_MS = 2_400;
let cluster: Cluster | null = null;
let agent: Agent;
afterEach(async () => {
  agent?.destroy();
  await cluster?.close();
  cluster = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function prepare(tool: string) {
  cluster = await startCluster(3, LEASE_MS);
  agent = new Agent({ keepAlive: true });
  const c = cluster;
  const on = (n: number, method: string, path: string, body?: unknown) =>
    call(agent, `${c.hubs[n - 1]!.url}${path}`, c.desk, method, body);
  const search = await on(1, 'POST', '/agent/v1/tools/search', {
    query: 'product',
    authorization_refs: ['auth-shop-a'],
    limit: 50,
  });
  const revision = (t: string) =>
    search.body.declarations.find((d: { tool: string }) => d.tool === t).declaration_revision as string;
  const run = await on(2, 'POST', '/agent/v1/runs', {
    agent_session_id: `sess-${randomUUID()}`,
    turn_id: 't',
    authorization_ref: 'auth-shop-a',
  });
  const invocation = (t: string, args: Record<string, unknown>) => ({
    invocation_id: newInvocationId(),
    run_id: run.body.run_id,
    authorization_ref: 'auth-shop-a',
    tool: t,
    declaration_revision: revision(t),
    arguments: args,
    host_call_id: 'h',
  });
  const body = (args: Record<string, unknown>) => invocation(tool, args);
  return { c, on, body, invocation };
}

describeOnPostgres('Hub instances covering for each other', () => {
  it('an instance SIGKILLed mid-write while its siblings keep serving: its call turns unknown only after its lease expired, resume on another instance reconciles it, nothing is sent twice', async () => {
    const { c, on, body, invocation } = await prepare('update_product_content');
    const lease = async () =>
      Number(
        (
          await c.sql<{ ms: string }>(
            "SELECT lease_expires_at_ms AS ms FROM hub_instances WHERE instance_id = 'hub-1'",
          )
        )[0]!.ms,
      );
    c.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const req = body({ product_id: 42, description: 'in flight when its Hub dies' });
    const pending = on(1, 'POST', '/agent/v1/invocations', req).catch((e: unknown) => e);
    while (c.demo.shopA.ledger().length < 1) await sleep(20);

    // hub-2 and hub-3 keep serving governed calls the whole time: before, during and after
    // hub-1's death. Mostly reads; every fifth a write, at most ten writes each (the shop declares
    // 60 writes of this operation a minute, which would otherwise refuse some as rate-limited).
    let serving = true;
    const served: string[] = [];
    let writes = 0;
    const sibling = async (n: 2 | 3) => {
      for (let i = 0, mine = 0; serving; i++) {
        const write = i % 5 === 0 && mine < 10;
        const r = await on(
          n,
          'POST',
          '/agent/v1/invocations',
          write
            ? invocation('update_product_content', { product_id: 13, description: `hub-${n} ${i}` })
            : invocation('get_product', { product_id: 13 }),
        );
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        expect(r.body.state, JSON.stringify(r.body)).toBe('succeeded');
        served.push(r.body.invocation_id as string);
        if (write) {
          mine += 1;
          writes += 1;
        }
        await sleep(50); // paced well below the agent API's request rate limit
      }
    };
    const siblings = Promise.all([sibling(2), sibling(3)]);
    siblings.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile

    // hub-1 lives and keeps renewing its lease (a renewal seen, two lease periods passed): its
    // siblings, sweeping every third of a lease, never touch its call
    const first = await lease();
    const watchedSince = Date.now();
    while ((await lease()) === first || Date.now() - watchedSince < LEASE_MS * 2) await sleep(100);
    for (const n of [2, 3]) {
      const seen = (await on(n, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body;
      expect(seen.state, JSON.stringify(seen.reconciliation)).toBe('dispatching');
    }
    const dbNow = async () =>
      Number(
        (
          await c.sql<{ now: string }>('SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT AS now')
        )[0]!.now,
      );
    const liveUntil = await lease();
    const killedAtDb = await dbNow();
    expect(liveUntil, 'hub-1 holds a live lease when it is killed').toBeGreaterThan(killedAtDb);

    await c.hubs[0]!.kill('SIGKILL');
    await pending;
    let receipt = (await on(2, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body;
    for (let i = 0; receipt.state === 'dispatching'; i++) {
      await sleep(50);
      receipt = (await on(i % 2 === 0 ? 3 : 2, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body;
    }
    serving = false;
    await siblings;
    // recovered only once the lease hub-1 last renewed had expired (both on this machine's clock)
    const expiredAt = await lease();
    expect(expiredAt).toBeGreaterThanOrEqual(liveUntil);
    const r = ReceiptSchema.parse(receipt);
    expect(r.state).toBe('unknown');
    expect(r.reason_code).toBe('hub_instance_lost');
    expect(r.reconciliation.map((e) => e.source)).toEqual(['lease_recovery']);
    expect(Date.parse(r.reconciliation[0]!.checked_at)).toBeGreaterThanOrEqual(expiredAt);
    const audit = await c.sql<{ actor: string }>(
      "SELECT actor FROM audit WHERE invocation_id = $1 AND kind = 'invocation.recovered'",
      [req.invocation_id],
    );
    expect(audit).toHaveLength(1);
    expect(['hub:hub-2', 'hub:hub-3']).toContain(audit[0]!.actor);
    // the siblings served throughout, and none of their calls was ever recovered
    expect(writes).toBeGreaterThan(0);
    const siblingsRecovered = await c.sql(
      "SELECT invocation_id FROM audit WHERE kind = 'invocation.recovered' AND invocation_id = ANY($1)",
      [served],
    );
    expect(siblingsRecovered).toEqual([]);

    const resumed = await on(3, 'POST', `/agent/v1/invocations/${req.invocation_id}/resume`);
    expect(resumed.body.action).toBe('reconciled');
    expect(resumed.body.receipt.state).toBe('succeeded');
    // the same invoke again, on yet another instance, sends nothing
    const again = await on(2, 'POST', '/agent/v1/invocations', req);
    expect(again.status).toBe(200);
    expect(served.length).toBeGreaterThan(writes);
    expect(c.demo.shopA.ledger()).toHaveLength(1 + writes);
    expect(opRequests(c.demo.shopA)).toBe(1 + served.length);
    const hung = c.demo.shopA.ledger().filter((e) => e.idempotency_key === req.invocation_id);
    expect(hung).toHaveLength(1);
  });

  it('an approval decided on one instance, resumed on two at once: the call is sent exactly once', async () => {
    const { c, on, body } = await prepare('publish_listing');
    const req = body({ product_id: 42, channel: 'web' });
    const created = await on(1, 'POST', '/agent/v1/invocations', req);
    expect(created.body.state).toBe('awaiting_approval');
    const approvalId = created.body.approval.approval_id as string;
    const admin = (n: number, path: string, b: unknown) =>
      call(agent, `${c.hubs[n - 1]!.url}${path}`, c.adminToken, 'POST', b);
    // two operators decide at once on two instances: one decision wins, the same one again is idempotent
    const [a, b] = await Promise.all([
      admin(2, `/admin/v1/approvals/${approvalId}/decision`, { decision_id: 'd-1', decision: 'approve' }),
      admin(3, `/admin/v1/approvals/${approvalId}/decision`, { decision_id: 'd-2', decision: 'approve' }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(opRequests(c.demo.shopA)).toBe(0); // approval is not execution
    const resumes = await Promise.all(
      [1, 2, 3, 1, 2, 3].map((n) => on(n, 'POST', `/agent/v1/invocations/${req.invocation_id}/resume`)),
    );
    const actions = resumes.map((r) => r.body.action as string);
    expect(actions.filter((x) => x === 'dispatched')).toHaveLength(1);
    expect(actions.every((x) => x === 'dispatched' || x === 'unchanged')).toBe(true);
    expect(opRequests(c.demo.shopA)).toBe(1);
    expect(c.demo.shopA.ledger()).toHaveLength(1);
    for (const n of [1, 2, 3])
      expect((await on(n, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body.state).toBe('succeeded');
  });
});
