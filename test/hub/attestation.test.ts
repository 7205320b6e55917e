// Operator attestation (POST /agent/v1/invocations/{id}/attest): a person settles a call whose
// result is not known from what they checked in the business system. It goes through the one
// invocation transition (so it holds on both stores), sends nothing, is evidence of kind
// `operator_attested` with the operator's identity and time in the audit, shows in the task's
// accounting, and is refused for a call that is not unresolved.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AttestResponseSchema,
  AuditEntrySchema,
  HubErrorBodySchema,
  ReceiptSchema,
  TaskViewSchema,
} from '../../src-shared/hub-api.js';
import { newInvocationId, opRequests, startEnv, type HubEnv } from './helpers.js';
import { openEventStream } from './sse-reader.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv();
});
afterEach(async () => {
  await env.close();
});

const content = (title: string) => ({ product_id: 42, description: `desc ${title}`, title });

/** A write whose acknowledgement is lost: the shop committed it, the Hub says `unknown`. */
async function lostWrite(taskId?: string): Promise<string> {
  env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
  const r = await env.invoke({
    authRef: 'auth-shop-a',
    tool: 'update_product_content',
    args: content('lost'),
    ...(taskId ? { taskId } : {}),
  });
  expect(r.body.state).toBe('unknown');
  return r.body.invocation_id as string;
}

const attest = (id: string, body: unknown, tok?: string) =>
  env.agent('POST', `/agent/v1/invocations/${encodeURIComponent(id)}/attest`, body, tok);

/** Everything a business system could have seen: every request of every demo system. */
const businessRequests = () => env.demo.all().map((h) => h.requests().length);

describe('operator attestation', () => {
  it('settles an unknown call as succeeded: evidence operator_attested, the identity and time in the audit, nothing sent', async () => {
    const id = await lostWrite();
    const before = businessRequests();
    const ledger = env.demo.shopA.ledger();
    const r = await attest(id, {
      outcome: 'succeeded',
      note: 'Product 42 shows the new description in the shop admin.',
    });
    expect(r.status, r.text).toBe(200);
    const out = AttestResponseSchema.parse(r.body);
    expect(out.action).toBe('attested');
    expect(out.receipt.state).toBe('succeeded');
    expect(out.receipt.reason_code).toBe('operator_attested');
    const evidence = out.receipt.reconciliation.at(-1);
    expect(evidence?.source).toBe('operator_attested');
    expect(evidence?.outcome).toBe('succeeded');
    expect(evidence?.detail).toBe('Product 42 shows the new description in the shop admin.');
    // Nothing was sent anywhere: not the operation, not a look-up.
    expect(businessRequests()).toEqual(before);
    expect(env.demo.shopA.ledger()).toEqual(ledger);

    const audit = await env.admin('GET', `/admin/v1/audit?invocation_id=${encodeURIComponent(id)}`);
    const entries = (audit.body.entries as unknown[]).map((e) => AuditEntrySchema.parse(e));
    const attested = entries.filter((e) => e.kind === 'invocation.attested');
    expect(attested).toHaveLength(1);
    const a = attested[0]!;
    expect(a.actor).toBe('client:desk');
    expect(a.from_state).toBe('unknown');
    expect(a.to_state).toBe('succeeded');
    expect(a.detail.attested_by).toBe('operator@demo.local');
    expect(a.detail.outcome).toBe('succeeded');
    expect(a.detail.note).toBe('Product 42 shows the new description in the shop admin.');
    expect(Date.parse(String(a.detail.attested_at))).not.toBeNaN();

    const inspected = await env.agent('GET', `/agent/v1/invocations/${encodeURIComponent(id)}`);
    expect(ReceiptSchema.parse(inspected.body).state).toBe('succeeded');
  });

  it('settles an unverified call as failed ("it did not happen"); the task counts it as settled by a person and keeps its budget spent', async () => {
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'attest',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 3,
      in_flight_limit: 2,
    });
    expect(task.status).toBe(201);
    const taskId = task.body.task_id as string;
    env.demo.shopA.faults.set({ operation: '*', kind: 'lookup_unavailable', times: 'always' });
    const id = await lostWrite(taskId);
    const resumed = await env.agent('POST', `/agent/v1/invocations/${encodeURIComponent(id)}/resume`);
    expect(resumed.body.receipt.state).toBe('unverified');
    const before = businessRequests();

    const r = await attest(id, {
      outcome: 'failed',
      note: 'Checked the shop: the description is unchanged.',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.receipt.state).toBe('failed');
    expect(r.body.receipt.reason_code).toBe('operator_attested');
    expect(businessRequests()).toEqual(before);

    const view = TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);
    expect(view.counts.failed).toBe(1);
    expect(view.counts.unverified).toBe(0);
    expect(view.settled_by_operator).toEqual({ succeeded: 0, failed: 1 });
    expect(view.writes_used).toBe(1);
    expect(view.unresolved).toEqual([]);
  });

  it('is refused for a call that is not unresolved (completed, not dispatched, awaiting approval); nothing changes', async () => {
    const done = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: content('ok'),
    });
    expect(done.body.state).toBe('succeeded');
    const pending = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'publish_listing',
      args: { product_id: 42, channel: 'web' },
    });
    expect(pending.body.state).toBe('awaiting_approval');
    const refused = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 'x' },
    });
    expect(refused.body.state).toBe('not_dispatched');
    for (const r of [done, pending, refused]) {
      const id = r.body.invocation_id as string;
      const before = await env.agent('GET', `/agent/v1/invocations/${encodeURIComponent(id)}`);
      const res = await attest(id, { outcome: 'succeeded', note: 'I looked.' });
      expect(res.status).toBe(409);
      expect(HubErrorBodySchema.parse(res.body).error).toBe('invocation_not_attestable');
      const after = await env.agent('GET', `/agent/v1/invocations/${encodeURIComponent(id)}`);
      expect(after.body.receipt_digest).toBe(before.body.receipt_digest);
      expect(after.body.state).toBe(before.body.state);
    }
  });

  it('the same attestation again is unchanged; another one after it is refused; another client gets invocation_not_found', async () => {
    const id = await lostWrite();
    const foreign = await attest(id, { outcome: 'succeeded', note: 'x' }, env.other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe('invocation_not_found');
    const missing = await attest(newInvocationId(), { outcome: 'succeeded', note: 'x' });
    expect(missing.body.error).toBe('invocation_not_found');

    const first = await attest(id, { outcome: 'succeeded', note: 'Seen in the shop.' });
    expect(first.body.action).toBe('attested');
    const again = await attest(id, { outcome: 'succeeded', note: 'Seen in the shop.' });
    expect(again.status).toBe(200);
    expect(again.body.action).toBe('unchanged');
    expect(again.body.receipt.receipt_digest).toBe(first.body.receipt.receipt_digest);
    const other = await attest(id, { outcome: 'failed', note: 'Actually not.' });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('invocation_not_attestable');
    const audit = await env.admin('GET', `/admin/v1/audit?invocation_id=${encodeURIComponent(id)}`);
    expect(
      (audit.body.entries as Array<{ kind: string }>).filter((e) => e.kind === 'invocation.attested'),
    ).toHaveLength(1);
  });

  it('bad bodies are 400 invalid_request and change nothing (no outcome, an unknown outcome, an empty or blank note, extra fields)', async () => {
    const id = await lostWrite();
    for (const body of [
      {},
      { outcome: 'succeeded' },
      { outcome: 'happened', note: 'x' },
      { outcome: 'succeeded', note: '' },
      { outcome: 'succeeded', note: '   ' },
      { outcome: 'succeeded', note: 'x'.repeat(2001) },
      { outcome: 'succeeded', note: 'x', operator: 'someone' },
    ]) {
      const r = await attest(id, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
    }
    const still = await env.agent('GET', `/agent/v1/invocations/${encodeURIComponent(id)}`);
    expect(still.body.state).toBe('unknown');
    expect(opRequests(env.demo.shopA)).toBe(1);
  });

  it('is announced on the event stream like every other state change', async () => {
    const id = await lostWrite();
    const stream = await openEventStream(env.hub.url, env.desk);
    const settled = (e: (typeof stream.events)[number]['event']) =>
      e.type === 'invocation.changed' && e.receipt.invocation_id === id && e.receipt.state === 'succeeded';
    try {
      await attest(id, { outcome: 'succeeded', note: 'Seen.' });
      await stream.until((evs) => evs.some((e) => settled(e.event)));
      const ev = stream.events.find((e) => settled(e.event))?.event;
      expect(ev?.type === 'invocation.changed' && ev.receipt.reconciliation.at(-1)?.source).toBe(
        'operator_attested',
      );
    } finally {
      stream.close();
    }
  });
});
