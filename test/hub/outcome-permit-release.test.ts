// The transaction that records a call's outcome frees its permit only when the call holds one:
// every outcome asks for the release and the store decides from the call's record (a call with no
// task runs no permit statement: test/store/release-permit-op.test.ts counts them), a task-bound
// call's permit is freed as before, and a request that never left still gets its refund (the
// dispatch it counted in the operation's rate window is given back) with or without a permit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptSchema, TaskViewSchema } from '../../src-shared/hub-api.js';
import type { InvocationChange } from '../../src-hub/store/types.js';
import { closedPort } from './dispatch/servers.js';
import { startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
const changes: InvocationChange[] = [];
beforeAll(async () => {
  env = await startEnv();
  const store = env.hub.store;
  const apply = store.applyInvocationChange.bind(store);
  store.applyInvocationChange = (change) => {
    changes.push(change);
    return apply(change);
  };
});
afterAll(async () => {
  await env.close();
});

const outcomeOf = (id: string) => {
  const found = changes.filter((c) => c.invocation_id === id && c.from === 'dispatching');
  expect(found).toHaveLength(1);
  return found[0]!;
};
const rows = (query: string, id: string) => env.sql<{ n: number }>(query, id)[0]?.n;
const write = (text: string, taskId?: string, authRef = 'auth-shop-a') =>
  env.invoke({
    authRef,
    tool: 'update_product_content',
    args: { product_id: 42, description: text },
    ...(taskId ? { taskId } : {}),
  });

describe('the outcome transaction frees a permit only where there is one', () => {
  it('a call without a task: succeeded, no permit to free, none ever written', async () => {
    const res = await write('no task');
    expect(res.status).toBe(201);
    const receipt = ReceiptSchema.parse(res.body);
    expect(receipt.state).toBe('succeeded');
    expect(outcomeOf(receipt.invocation_id).release_permit).toMatchObject({ refund: false });
    expect(rows('SELECT COUNT(*) AS n FROM permits WHERE invocation_id = ?', receipt.invocation_id)).toBe(0);
  });

  it('a task-bound call: its permit is freed by the outcome, the task has nothing in flight', async () => {
    const t = await env.agent('POST', '/agent/v1/tasks', {
      title: 'release',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 5,
      in_flight_limit: 1,
    });
    expect(t.status).toBe(201);
    const taskId = t.body.task_id as string;
    for (const text of ['first', 'second']) {
      const receipt = ReceiptSchema.parse((await write(text, taskId)).body);
      expect(receipt.state).toBe('succeeded');
      expect(outcomeOf(receipt.invocation_id).release_permit).toMatchObject({ refund: false });
      expect(
        rows(
          'SELECT COUNT(*) AS n FROM permits WHERE invocation_id = ? AND released_at_ms IS NOT NULL',
          receipt.invocation_id,
        ),
      ).toBe(1);
    }
    const view = TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);
    expect(view).toMatchObject({ writes_used: 2, in_flight: 0, permits_granted: 2 });
  });

  it('a request that never left, without a task: the refund still gives back its counted dispatch', async () => {
    const sys = await env.hub.store.getSystem('shop-b');
    if (!sys) throw new Error('shop-b missing');
    await env.hub.store.upsertSystem({ ...sys, base_url: await closedPort() }, new Date().toISOString(), {
      actor: 'test',
      kind: 'system.moved',
      detail: {},
    });
    const receipt = ReceiptSchema.parse((await write('refused', undefined, 'auth-shop-b')).body);
    expect(receipt).toMatchObject({ state: 'not_dispatched', reason_code: 'not_sent_connect_refused' });
    expect(outcomeOf(receipt.invocation_id).release_permit).toMatchObject({ refund: true });
    expect(
      rows('SELECT COUNT(*) AS n FROM operation_dispatches WHERE invocation_id = ?', receipt.invocation_id),
    ).toBe(0);
  });
});
