// Task enrollment is durable: the first call of an agent session that carries a task_id enrolls the
// session in that task; afterwards a call of that session without that task_id (or with another)
// is refused `task_required`, sends nothing and spends nothing — also after a Hub restart and after
// the task is cancelled. Real demo shop, real Hub, real SQLite.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReceiptSchema, ResumeResponseSchema, TaskViewSchema } from '../../src-shared/hub-api.js';
import { opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv();
});
afterEach(async () => {
  await env.close();
});

const TOOLS = ['update_product_content', 'get_product', 'publish_listing'];
async function createTask(): Promise<string> {
  const r = await env.agent('POST', '/agent/v1/tasks', {
    title: 'three descriptions',
    authorizations: [{ authorization_ref: 'auth-shop-a', tools: TOOLS }],
    write_budget: 5,
    in_flight_limit: 3,
  });
  expect(r.status).toBe(201);
  return r.body.task_id as string;
}
const edit = async (sessionId: string, taskId?: string) =>
  ReceiptSchema.parse(
    (
      await env.invoke({
        authRef: 'auth-shop-a',
        tool: 'update_product_content',
        args: { product_id: 42, description: `edit ${randomUUID()}` },
        sessionId,
        ...(taskId ? { taskId } : {}),
      })
    ).body,
  );
const view = async (taskId: string) =>
  TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);

describe('task enrollment of an agent session', () => {
  it('after a task-bound call, the same session cannot call without that task (task_required): nothing reaches the shop, nothing is spent', async () => {
    const taskId = await createTask();
    const other = await createTask();
    const session = `sess-${randomUUID()}`;
    expect((await edit(session, taskId)).state).toBe('succeeded');
    const sent = opRequests(env.demo.shopA);
    const ledger = env.demo.shopA.ledger().length;

    const bypass = await edit(session); // a new run of the same session, no task_id
    expect(bypass).toMatchObject({
      state: 'not_dispatched',
      dispatch: 'none',
      reason_code: 'task_required',
      task_id: null,
    });
    expect(bypass.reason_message).toContain(taskId);
    const wrongTask = await edit(session, other);
    expect(wrongTask).toMatchObject({ state: 'not_dispatched', reason_code: 'task_required' });
    // a read is refused too, and an approval-required call asks for no approval
    const read = ReceiptSchema.parse(
      (
        await env.invoke({
          authRef: 'auth-shop-a',
          tool: 'get_product',
          args: { product_id: 42 },
          sessionId: session,
        })
      ).body,
    );
    expect(read).toMatchObject({ state: 'not_dispatched', reason_code: 'task_required' });
    const approvalsBefore = (await env.admin('GET', '/admin/v1/approvals')).body;
    const publish = ReceiptSchema.parse(
      (
        await env.invoke({
          authRef: 'auth-shop-a',
          tool: 'publish_listing',
          args: { product_id: 42 },
          sessionId: session,
        })
      ).body,
    );
    expect(publish).toMatchObject({ state: 'not_dispatched', reason_code: 'task_required', approval: null });
    expect((await env.admin('GET', '/admin/v1/approvals')).body).toEqual(approvalsBefore);

    expect(opRequests(env.demo.shopA)).toBe(sent);
    expect(env.demo.shopA.ledger().length).toBe(ledger);
    const v = await view(taskId);
    expect(v.writes_used).toBe(1);
    expect(v.permits_granted).toBe(1);
    expect((await view(other)).permits_granted).toBe(0);

    // another session is not affected, and the enrolled session still works with its task
    expect((await edit(`sess-${randomUUID()}`)).state).toBe('succeeded');
    expect((await edit(session, taskId)).state).toBe('succeeded');
    expect((await view(taskId)).writes_used).toBe(2);
  });

  it('enrollment survives a Hub restart', async () => {
    const taskId = await createTask();
    const session = `sess-${randomUUID()}`;
    expect((await edit(session, taskId)).state).toBe('succeeded');
    await env.restart();
    const sent = opRequests(env.demo.shopA);
    expect(await edit(session)).toMatchObject({ state: 'not_dispatched', reason_code: 'task_required' });
    expect(opRequests(env.demo.shopA)).toBe(sent);
    const rows = env.sql<{ task_id: string }>(
      'SELECT task_id FROM session_enrollments WHERE agent_session_id = ?',
      session,
    );
    expect(rows).toEqual([{ task_id: taskId }]);
  });

  it('cancelling the task keeps the enrollment: with the task the call is task_cancelled, without it task_required', async () => {
    const taskId = await createTask();
    const session = `sess-${randomUUID()}`;
    expect((await edit(session, taskId)).state).toBe('succeeded');
    expect((await env.agent('POST', `/agent/v1/tasks/${taskId}/cancel`)).status).toBe(200);
    const sent = opRequests(env.demo.shopA);
    expect(await edit(session, taskId)).toMatchObject({
      state: 'not_dispatched',
      reason_code: 'task_cancelled',
    });
    expect(await edit(session)).toMatchObject({ state: 'not_dispatched', reason_code: 'task_required' });
    expect(opRequests(env.demo.shopA)).toBe(sent);
  });

  it('a refused first task-bound call still enrolls the session (the session asked for task control)', async () => {
    const taskId = await createTask();
    expect((await env.agent('POST', `/agent/v1/tasks/${taskId}/pause`)).status).toBe(200);
    const session = `sess-${randomUUID()}`;
    expect(await edit(session, taskId)).toMatchObject({
      state: 'not_dispatched',
      reason_code: 'task_paused',
    });
    const sent = opRequests(env.demo.shopA);
    expect(await edit(session)).toMatchObject({ state: 'not_dispatched', reason_code: 'task_required' });
    expect(opRequests(env.demo.shopA)).toBe(sent);
  });

  it('an approved task-less call made before the session enrolled stays approved on resume (task_required) and sends nothing', async () => {
    const taskId = await createTask();
    const session = `sess-${randomUUID()}`;
    const pending = ReceiptSchema.parse(
      (
        await env.invoke({
          authRef: 'auth-shop-a',
          tool: 'publish_listing',
          args: { product_id: 42 },
          sessionId: session,
        })
      ).body,
    );
    expect(pending.state).toBe('awaiting_approval');
    const approvalId = pending.approval?.approval_id ?? '';
    const dec = await env.admin('POST', `/admin/v1/approvals/${approvalId}/decision`, {
      decision_id: `d-${approvalId}`,
      decision: 'approve',
    });
    expect(dec.status).toBe(200);
    expect((await edit(session, taskId)).state).toBe('succeeded'); // enrolls the session
    const sent = opRequests(env.demo.shopA);
    const resumed = ResumeResponseSchema.parse(
      (await env.agent('POST', `/agent/v1/invocations/${pending.invocation_id}/resume`)).body,
    );
    expect(resumed.action).toBe('refused');
    expect(resumed.receipt).toMatchObject({
      state: 'approved',
      dispatch: 'none',
      reason_code: 'task_required',
    });
    expect(opRequests(env.demo.shopA)).toBe(sent);
  });
});
