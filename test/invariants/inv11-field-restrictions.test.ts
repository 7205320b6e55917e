/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
/**
 * Invariant 11 — field restrictions ("leave prices unchanged") are enforced server-side, not by
 * the prompt: (1) a task constraint refuses a price change in the Hub before approval or permit
 * and spends nothing; (2) the content-only operation's schema refuses a price in the Hub; (3) the
 * shop itself refuses a price sent to the content-only operation even when the request is signed
 * correctly (the business system keeps final authority).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, json } from '../demo/helpers.js';
import { createTask, dispatchesOf, newInvocationId, startHubEnv, taskView, type HubEnv } from './support.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startHubEnv();
}, 30_000);
afterAll(async () => {
  await env?.close();
});

describe('invariant 11: field restrictions are enforced server-side', () => {
  it('a task constraint refuses a price change (even one that would need approval) and spends nothing', async () => {
    const task = await createTask(env, {
      title: 'descriptions only',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 3,
      in_flight_limit: 1,
      constraints: [
        {
          authorization_ref: null,
          tool: 'update_product',
          schema: { not: { required: ['price'] } },
          description: 'leave prices unchanged',
        },
      ],
    });
    const ledger = env.demo.shopA.ledger().length;
    for (const price of [45, 5000]) {
      const id = newInvocationId();
      const r = await env.invoke({
        authRef: 'auth-shop-a',
        tool: 'update_product',
        args: { product_id: 42, price },
        id,
        taskId: task.task_id,
      });
      expect(r.body).toMatchObject({ state: 'not_dispatched', reason_code: 'constraint_violation' });
      expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    }
    const ok = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product',
      args: { product_id: 42, description: 'text only' },
      taskId: task.task_id,
    });
    expect(ok.body.state).toBe('succeeded');
    expect(
      env.demo.shopA
        .ledger()
        .slice(ledger)
        .map((l) => Object.keys(l.changes)),
    ).toEqual([['description']]);
    expect((await taskView(env, task.task_id)).writes_used).toBe(1);
  });

  it('a task constraint limits the permitted objects (product ids) server-side', async () => {
    const task = await createTask(env, {
      title: 'only product 42',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 3,
      in_flight_limit: 1,
      constraints: [
        {
          authorization_ref: 'auth-shop-a',
          tool: 'update_product_content',
          schema: { properties: { product_id: { enum: [42] } } },
          description: 'the three test products only',
        },
      ],
    });
    const id = newInvocationId();
    const other = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 7, description: 'not permitted' },
      id,
      taskId: task.task_id,
    });
    expect(other.body).toMatchObject({ state: 'not_dispatched', reason_code: 'constraint_violation' });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);
    const ok = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: 'permitted' },
      taskId: task.task_id,
    });
    expect(ok.body.state).toBe('succeeded');
    expect((await taskView(env, task.task_id)).writes_used).toBe(1);
  });

  it('the content-only operation refuses a price in the Hub (schema) and in the shop (signed direct request)', async () => {
    const id = newInvocationId();
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: 'x', price: 1 },
      id,
    });
    expect(r.body).toMatchObject({ state: 'not_dispatched', reason_code: 'arguments_invalid' });
    expect(dispatchesOf(env.demo.shopA, id)).toBe(0);

    const ledger = env.demo.shopA.ledger().length;
    const direct = await call(env.demo.shopA, {
      method: 'PATCH',
      path: '/products/42/content',
      body: json({ description: 'x', price: 1 }),
      key: newInvocationId(),
    });
    expect(direct.status).toBe(422);
    expect((direct.body as any).error).toBe('field_not_editable');
    expect(env.demo.shopA.ledger().length).toBe(ledger);
  });
});
