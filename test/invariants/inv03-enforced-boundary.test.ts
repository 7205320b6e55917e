/**
 * Invariant 3 — the boundary is enforced in the Hub's dispatch path: the write budget holds under
 * concurrent calls, a call the business system rejects still spent its permit, reads spend no
 * write budget but occupy in-flight capacity, a Hub restart replenishes nothing, and an `unknown`
 * outcome frees its in-flight slot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTask,
  dispatchesOf,
  newInvocationId,
  operationRequests,
  startHubEnv,
  taskView,
  waitUntil,
  type HubEnv,
} from './support.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startHubEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

const TOOLS = ['update_product_content', 'get_product'];
const edit = (taskId: string, product_id: number, description: string, id = newInvocationId()) =>
  env.invoke({
    authRef: 'auth-shop-a',
    tool: 'update_product_content',
    args: { product_id, description },
    id,
    taskId,
  });
const read = (taskId: string, product_id: number, id = newInvocationId()) =>
  env.invoke({ authRef: 'auth-shop-a', tool: 'get_product', args: { product_id }, id, taskId });

describe('invariant 3: enforced boundary', () => {
  it('eight concurrent writes against a budget of three: exactly three reach the shop', async () => {
    const task = await createTask(env, {
      title: 'budget race',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
      write_budget: 3,
      in_flight_limit: 20,
    });
    const before = operationRequests(env.demo.shopA);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => edit(task.task_id, [7, 13, 42][i % 3]!, `race ${i}`)),
    );
    const states = answers.map((a) => a.body.state);
    expect(states.filter((s) => s === 'succeeded')).toHaveLength(3);
    const refused = answers.filter((a) => a.body.state === 'not_dispatched');
    expect(refused).toHaveLength(5);
    expect(refused.every((a) => a.body.reason_code === 'budget_exhausted')).toBe(true);
    expect(operationRequests(env.demo.shopA) - before).toBe(3);
    const view = await taskView(env, task.task_id);
    expect(view).toMatchObject({ writes_used: 3, writes_left: 0, in_flight: 0 });
  });

  it('a write the business system rejects still spends its permit', async () => {
    const task = await createTask(env, {
      title: 'reject spends',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
      write_budget: 1,
      in_flight_limit: 2,
    });
    env.demo.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'reject',
      status: 422,
      code: 'nope',
    });
    const ledger = env.demo.shopA.ledger().length;
    const first = await edit(task.task_id, 42, 'rejected');
    expect(first.body.state).toBe('failed');
    expect((await taskView(env, task.task_id)).writes_used).toBe(1);
    const id = newInvocationId();
    const second = await edit(task.task_id, 42, 'no budget left', id);
    expect(second.body).toMatchObject({ state: 'not_dispatched', reason_code: 'budget_exhausted' });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    expect(env.demo.shopA.ledger().length).toBe(ledger);
  });

  it('reads spend no write budget but occupy in-flight capacity', async () => {
    const task = await createTask(env, {
      title: 'reads',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    env.demo.shopA.faults.set({ operation: 'get_product', kind: 'delay', delay_ms: 1500 });
    const slowId = newInvocationId();
    const slow = read(task.task_id, 42, slowId);
    await waitUntil(() => dispatchesOf(env.demo.shopA, slowId) === 1, 'the slow read to reach the shop');
    const blockedId = newInvocationId();
    const blocked = await edit(task.task_id, 42, 'while a read is in flight', blockedId);
    expect(blocked.body).toMatchObject({ state: 'not_dispatched', reason_code: 'in_flight_limit' });
    expect(dispatchesOf(env.demo.shopA, blockedId)).toBe(0);
    expect((await slow).body.state).toBe('succeeded');
    let view = await taskView(env, task.task_id);
    expect(view).toMatchObject({ writes_used: 0, in_flight: 0 });
    expect((await edit(task.task_id, 42, 'now there is room')).body.state).toBe('succeeded');
    // budget spent: reads still run, writes do not
    expect((await read(task.task_id, 42)).body.state).toBe('succeeded');
    expect((await edit(task.task_id, 42, 'over budget')).body.reason_code).toBe('budget_exhausted');
    view = await taskView(env, task.task_id);
    expect(view.writes_used).toBe(1);
  });

  it('six concurrent slow writes against an in-flight limit of two: never more than two at the shop', async () => {
    const task = await createTask(env, {
      title: 'in-flight race',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
      write_budget: 10,
      in_flight_limit: 2,
    });
    env.demo.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'delay',
      delay_ms: 400,
      times: 'always',
    });
    const mark = env.demo.shopA.requests().length;
    try {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) => edit(task.task_id, 42, `slow ${i}`)),
      );
      const sent = answers.filter((a) => a.body.state === 'succeeded').length;
      expect(sent).toBeGreaterThanOrEqual(2);
      expect(
        answers
          .filter((a) => a.body.state === 'not_dispatched')
          .every((a) => a.body.reason_code === 'in_flight_limit'),
      ).toBe(true);
      const ops = env.demo.shopA
        .requests()
        .slice(mark)
        .filter((r) => r.kind === 'operation');
      expect(ops).toHaveLength(sent);
      expect(Math.max(...ops.map((r) => r.in_flight_at_start))).toBeLessThanOrEqual(2);
      expect(await taskView(env, task.task_id)).toMatchObject({ writes_used: sent, in_flight: 0 });
    } finally {
      env.demo.shopA.faults.clear();
    }
  });

  it('the rate limit counts reads and writes and refuses with a retry time, sending nothing', async () => {
    const task = await createTask(env, {
      title: 'rate',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
      write_budget: 5,
      in_flight_limit: 5,
      rate_limit: { count: 2, window: '1h' },
    });
    expect((await read(task.task_id, 42)).body.state).toBe('succeeded');
    expect((await edit(task.task_id, 42, 'within rate')).body.state).toBe('succeeded');
    const id = newInvocationId();
    const third = await edit(task.task_id, 42, 'over rate', id);
    expect(third.body).toMatchObject({ state: 'not_dispatched', reason_code: 'rate_limited' });
    expect(third.body.retry_after_ms).toBeGreaterThan(0);
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    expect((await taskView(env, task.task_id)).writes_used).toBe(1);
  });

  it('an unknown outcome frees its in-flight slot; a Hub restart replenishes nothing', async () => {
    const task = await createTask(env, {
      title: 'unknown + restart',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
      write_budget: 2,
      in_flight_limit: 1,
    });
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const lost = await edit(task.task_id, 13, 'ack lost');
    expect(lost.body.state).toBe('unknown');
    expect((await taskView(env, task.task_id)).in_flight).toBe(0);
    expect((await edit(task.task_id, 13, 'second write')).body.state).toBe('succeeded');
    const spent = await taskView(env, task.task_id);
    expect(spent.writes_used).toBe(2);

    await env.restart();
    const after = await taskView(env, task.task_id);
    expect(after).toMatchObject({ writes_used: 2, writes_left: 0, permits_granted: spent.permits_granted });
    const id = newInvocationId();
    expect((await edit(task.task_id, 13, 'after restart', id)).body.reason_code).toBe('budget_exhausted');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
  });
});
