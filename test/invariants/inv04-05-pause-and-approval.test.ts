/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
/**
 * Invariant 4 — pause is an execution control: it blocks new permits, already-permitted work
 * finishes, continue keeps the remaining budget and unresolved calls and replays nothing, cancel
 * undoes nothing.
 * Invariant 5 — approval is not execution: an approved call is not completed until it runs (an
 * explicit resume) and its receipt says so; approved stays approved while the task is paused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTask,
  decide,
  dispatchesOf,
  newInvocationId,
  operationRequests,
  receipt,
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

const TOOLS = ['update_product_content', 'get_product', 'publish_listing'];
const newTask = (budget: number) =>
  createTask(env, {
    title: 'pause',
    authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
    write_budget: budget,
    in_flight_limit: 4,
  });
const edit = (taskId: string, description: string, id = newInvocationId()) =>
  env.invoke({
    authRef: 'auth-shop-a',
    tool: 'update_product_content',
    args: { product_id: 42, description },
    id,
    taskId,
  });
const action = (taskId: string, a: 'pause' | 'continue' | 'cancel') =>
  env.agent('POST', `/agent/v1/tasks/${taskId}/${a}`);

describe('invariant 4: pause is an execution control', () => {
  it('a permitted call finishes after pause; new calls get no permit; continue keeps the budget and replays nothing', async () => {
    const task = await newTask(3);
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 800 });
    const aId = newInvocationId();
    const a = edit(task.task_id, 'permitted before pause', aId);
    await waitUntil(() => dispatchesOf(env.demo.shopA, aId) === 1, 'A to reach the shop');
    expect((await action(task.task_id, 'pause')).body.state).toBe('paused');

    const cId = newInvocationId();
    const c = await edit(task.task_id, 'after pause', cId);
    expect(c.body).toMatchObject({ state: 'not_dispatched', reason_code: 'task_paused' });
    const readWhilePaused = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'get_product',
      args: { product_id: 42 },
      taskId: task.task_id,
    });
    expect(readWhilePaused.body.reason_code).toBe('task_paused');
    expect((await a).body.state).toBe('succeeded'); // already-permitted work may finish
    expect(dispatchesOf(env.demo.shopA, cId)).toBe(0);

    const paused = await taskView(env, task.task_id);
    expect(paused).toMatchObject({ state: 'paused', writes_used: 1, writes_left: 2 });

    const ops = operationRequests(env.demo.shopA);
    const cont = await action(task.task_id, 'continue');
    expect(cont.body).toMatchObject({ state: 'active', writes_used: 1, writes_left: 2 });
    expect(operationRequests(env.demo.shopA)).toBe(ops); // nothing replayed
    expect((await receipt(env, cId)).state).toBe('not_dispatched');
    expect((await edit(task.task_id, 'after continue')).body.state).toBe('succeeded');
    expect((await taskView(env, task.task_id)).writes_used).toBe(2);
  });

  it('cancel undoes nothing and ends dispatch for good', async () => {
    const task = await newTask(3);
    const done = await edit(task.task_id, 'kept after cancel');
    expect(done.body.state).toBe('succeeded');
    const ledger = env.demo.shopA.ledger().length;
    expect((await action(task.task_id, 'cancel')).body.state).toBe('cancelled');
    expect(env.demo.shopA.ledger().length).toBe(ledger);
    expect((await receipt(env, done.body.invocation_id)).state).toBe('succeeded');
    expect((await edit(task.task_id, 'after cancel')).body.reason_code).toBe('task_cancelled');
    expect((await action(task.task_id, 'continue')).status).toBe(409);
  });
});

describe('invariant 5: approval is not execution', () => {
  it('approved stays approved (not completed) until an explicit resume; a paused task refuses that resume and keeps it approved', async () => {
    const task = await newTask(2);
    const id = newInvocationId();
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'publish_listing',
      args: { product_id: 13, channel: 'web' },
      id,
      taskId: task.task_id,
    });
    expect(r.body.state).toBe('awaiting_approval');
    let view = await taskView(env, task.task_id);
    expect(view.writes_used).toBe(0); // waiting for approval holds no permit
    expect(view.unresolved.map((u: any) => u.invocation_id)).toContain(id); // pending stays visible

    await decide(env, id, 'approve');
    const approved = await receipt(env, id);
    expect(approved.state).toBe('approved');
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    view = await taskView(env, task.task_id);
    expect(view.counts.succeeded ?? 0).toBe(0);
    expect(view.unresolved.map((u: any) => u.invocation_id)).toContain(id);

    await action(task.task_id, 'pause');
    const refused = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(refused.body).toMatchObject({
      action: 'refused',
      receipt: { state: 'approved', reason_code: 'task_paused' },
    });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    expect((await taskView(env, task.task_id)).writes_used).toBe(0);

    await action(task.task_id, 'continue');
    expect((await receipt(env, id)).state).toBe('approved'); // continue runs nothing by itself
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    const ran = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(ran.body).toMatchObject({ action: 'dispatched', receipt: { state: 'succeeded' } });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(1);
    expect((await taskView(env, task.task_id)).writes_used).toBe(1);
  });

  it('a denied call is never sent, even on resume', async () => {
    const id = newInvocationId();
    await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'publish_listing',
      args: { product_id: 7, channel: 'marketplace' },
      id,
    });
    await decide(env, id, 'deny');
    const r = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(r.body).toMatchObject({ action: 'unchanged', receipt: { state: 'denied' } });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
  });
});
