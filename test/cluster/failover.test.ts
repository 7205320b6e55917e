// Hub instances on one PostgreSQL database cover for each other without ever doing a call twice:
// a SIGKILLed instance's in-flight call becomes `unknown` only after its lease expired (a live
// sibling's call is never touched) and resume on any instance reconciles it; an approval decided
// on one instance and a resume racing on two send the call exactly once.
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceiptSchema } from '../../src-shared/hub-api.js';
import { newInvocationId, opRequests } from '../hub/helpers.js';
import { postgresCluster } from '../hub/store-mode.js';
import { call, startCluster, type Cluster } from './cluster.js';

const pg = postgresCluster();
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
    query: tool,
    authorization_refs: ['auth-shop-a'],
  });
  const decl = search.body.declarations.find((d: { tool: string }) => d.tool === tool);
  const run = await on(2, 'POST', '/agent/v1/runs', {
    agent_session_id: `sess-${randomUUID()}`,
    turn_id: 't',
    authorization_ref: 'auth-shop-a',
  });
  const body = (args: Record<string, unknown>) => ({
    invocation_id: newInvocationId(),
    run_id: run.body.run_id,
    authorization_ref: 'auth-shop-a',
    tool,
    declaration_revision: decl.declaration_revision,
    arguments: args,
    host_call_id: 'h',
  });
  return { c, on, body };
}

describe.skipIf(!pg)(
  `Hub instances covering for each other${pg ? '' : ' (skipped: PostgreSQL is not available here)'}`,
  () => {
    it('an instance SIGKILLed mid-write: its call turns unknown only after its lease expired, resume on another instance reconciles it, nothing is sent twice', async () => {
      const { c, on, body } = await prepare('update_product_content');
      c.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
      const req = body({ product_id: 42, description: 'in flight when its Hub dies' });
      const pending = on(1, 'POST', '/agent/v1/invocations', req).catch((e: unknown) => e);
      while (c.demo.shopA.ledger().length < 1) await sleep(20);

      // hub-1 lives and keeps renewing its lease: its siblings never touch its call
      await sleep(LEASE_MS * 2);
      for (const n of [2, 3]) {
        const seen = (await on(n, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body;
        expect(seen.state, JSON.stringify(seen.reconciliation)).toBe('dispatching');
      }

      await c.hubs[0]!.kill('SIGKILL');
      const killedAt = Date.now();
      await pending;
      const early = await on(2, 'GET', `/agent/v1/invocations/${req.invocation_id}`);
      let state = early.body.state as string;
      let receipt = early.body;
      while (state === 'dispatching') {
        if (Date.now() - killedAt > 30_000) throw new Error('the call was never recovered');
        await sleep(50);
        receipt = (await on(3, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body;
        state = receipt.state;
      }
      const recoveredAfterMs = Date.now() - killedAt;
      // hub-1 renewed at most a third of a lease before it died: the lease had at least two thirds left
      expect(recoveredAfterMs).toBeGreaterThanOrEqual(Math.floor((LEASE_MS * 2) / 3) - 100);
      const r = ReceiptSchema.parse(receipt);
      expect(r.state).toBe('unknown');
      expect(r.reason_code).toBe('hub_instance_lost');
      expect(r.reconciliation.map((e) => e.source)).toEqual(['lease_recovery']);
      const audit = await c.sql<{ actor: string }>(
        "SELECT actor FROM audit WHERE invocation_id = $1 AND kind = 'invocation.recovered'",
        [req.invocation_id],
      );
      expect(audit).toHaveLength(1);
      expect(['hub:hub-2', 'hub:hub-3']).toContain(audit[0]!.actor);

      const resumed = await on(3, 'POST', `/agent/v1/invocations/${req.invocation_id}/resume`);
      expect(resumed.body.action).toBe('reconciled');
      expect(resumed.body.receipt.state).toBe('succeeded');
      // the same invoke again, on yet another instance, sends nothing
      const again = await on(2, 'POST', '/agent/v1/invocations', req);
      expect(again.status).toBe(200);
      expect(c.demo.shopA.ledger()).toHaveLength(1);
      expect(opRequests(c.demo.shopA)).toBe(1);
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
        expect((await on(n, 'GET', `/agent/v1/invocations/${req.invocation_id}`)).body.state).toBe(
          'succeeded',
        );
    });
  },
);
