// Task control: boundary, permits, pause/continue/cancel, accounting, the timeline of docs/design.md.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskListSchema, TaskViewSchema } from '../../src-shared/hub-api.js';
import { opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv();
});
afterEach(async () => {
  await env.close();
});

interface TaskOpts {
  tools?: string[];
  refs?: string[];
  write_budget?: number;
  in_flight_limit?: number;
  rate_limit?: { count: number; window: '1s' | '1m' | '1h' | '1d' } | null;
  constraints?: unknown[];
  expires_at?: string | null;
}

async function createTask(o: TaskOpts = {}, tok?: string) {
  const tools = o.tools ?? ['update_product_content', 'get_product', 'update_product', 'publish_listing'];
  const r = await env.agent(
    'POST',
    '/agent/v1/tasks',
    {
      title: 'Update three descriptions',
      authorizations: (o.refs ?? ['auth-shop-a']).map((ref) => ({ authorization_ref: ref, tools })),
      write_budget: o.write_budget ?? 6,
      in_flight_limit: o.in_flight_limit ?? 5,
      ...(o.rate_limit !== undefined ? { rate_limit: o.rate_limit } : {}),
      ...(o.constraints ? { constraints: o.constraints } : {}),
      ...(o.expires_at !== undefined ? { expires_at: o.expires_at } : {}),
    },
    tok,
  );
  if (r.status !== 201) throw new Error(`task: ${r.status} ${r.text}`);
  return TaskViewSchema.parse(r.body);
}

const view = async (taskId: string) =>
  TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);
const edit = (
  taskId: string,
  title: string,
  tool = 'update_product_content',
  extra: Record<string, unknown> = {},
) =>
  env.invoke({
    authRef: 'auth-shop-a',
    tool,
    args: { product_id: 42, description: `about ${title}`, ...extra },
    taskId,
  });

describe('tasks', () => {
  it('the timeline of docs/design.md: A completed, B needs checking, pause, C not dispatched', async () => {
    const task = await createTask();
    const a = await edit(task.task_id, 'A');
    expect(a.body.state).toBe('succeeded');
    env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit' });
    const b = await edit(task.task_id, 'B');
    expect(b.body.state).toBe('unknown');
    const paused = await env.agent('POST', `/agent/v1/tasks/${task.task_id}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body.state).toBe('paused');
    const sent = opRequests(env.demo.shopA);
    const c = await edit(task.task_id, 'C');
    expect(c.body.state).toBe('not_dispatched');
    expect(c.body.reason_code).toBe('task_paused');
    expect(opRequests(env.demo.shopA)).toBe(sent);

    const v = await view(task.task_id);
    expect(v.state).toBe('paused');
    expect(v.paused_at).not.toBeNull();
    expect(v.counts.succeeded).toBe(1);
    expect(v.counts.unknown).toBe(1);
    expect(v.counts.not_dispatched).toBe(1);
    expect(v.writes_used).toBe(2);
    expect(v.writes_left).toBe(4);
    expect(v.permits_granted).toBe(2);
    expect(v.in_flight).toBe(0);
    expect(v.unresolved).toEqual([
      expect.objectContaining({ invocation_id: b.body.invocation_id, state: 'unknown' }),
    ]);
    expect(env.demo.shopA.ledger()).toHaveLength(2);

    // continue keeps the budget and the unresolved call; it replays nothing
    const cont = await env.agent('POST', `/agent/v1/tasks/${task.task_id}/continue`);
    expect(cont.body.state).toBe('active');
    expect(cont.body.writes_used).toBe(2);
    expect(cont.body.unresolved).toHaveLength(1);
    expect(opRequests(env.demo.shopA)).toBe(sent);
  });

  it('field restriction: a constraint forbidding price refuses update_product with a price and allows a description edit', async () => {
    const task = await createTask({
      constraints: [
        {
          authorization_ref: 'auth-shop-a',
          tool: 'update_product',
          schema: {
            not: { anyOf: [{ required: ['price'] }, { required: ['stock'] }] },
            properties: { product_id: { enum: [7, 13, 42] } },
          },
          description: 'leave prices and stock unchanged; only the three test products',
        },
      ],
    });
    const priced = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product',
      args: { product_id: 42, price: 1 },
      taskId: task.task_id,
    });
    expect(priced.body.state).toBe('not_dispatched');
    expect(priced.body.reason_code).toBe('constraint_violation');
    expect(priced.body.reason_message).toContain('leave prices');
    expect(opRequests(env.demo.shopA)).toBe(0);
    const desc = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product',
      args: { product_id: 42, description: 'new words' },
      taskId: task.task_id,
    });
    expect(desc.body.state).toBe('succeeded');
    const other = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product',
      args: { product_id: 99, description: 'x' },
      taskId: task.task_id,
    });
    expect(other.body.reason_code).toBe('constraint_violation');
    const v = await view(task.task_id);
    expect(v.writes_used).toBe(1);
  });

  it('reads occupy no budget; writes stop at the budget; a rejected write still spends its permit', async () => {
    const task = await createTask({ write_budget: 2 });
    for (let i = 0; i < 3; i++) {
      expect(
        (
          await env.invoke({
            authRef: 'auth-shop-a',
            tool: 'get_product',
            args: { product_id: 42 },
            taskId: task.task_id,
          })
        ).body.state,
      ).toBe('succeeded');
    }
    env.demo.shopA.faults.set({
      operation: 'update_product_content',
      kind: 'reject',
      status: 422,
      code: 'no',
    });
    expect((await edit(task.task_id, '1')).body.state).toBe('failed');
    expect((await edit(task.task_id, '2')).body.state).toBe('succeeded');
    const third = await edit(task.task_id, '3');
    expect(third.body.state).toBe('not_dispatched');
    expect(third.body.reason_code).toBe('budget_exhausted');
    const v = await view(task.task_id);
    expect(v.writes_used).toBe(2);
    expect(v.writes_left).toBe(0);
    expect(v.permits_granted).toBe(5);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('rate limit refuses with retry_after_ms and spends nothing', async () => {
    const task = await createTask({ rate_limit: { count: 2, window: '1h' } });
    await edit(task.task_id, '1');
    await edit(task.task_id, '2');
    const r = await edit(task.task_id, '3');
    expect(r.body.reason_code).toBe('rate_limited');
    expect(r.body.retry_after_ms).toBeGreaterThan(0);
    const v = await view(task.task_id);
    expect(v.writes_used).toBe(2);
    expect(v.rate).toMatchObject({ count: 2, window: '1h', used_in_window: 2 });
  });

  it('tool and authorization outside the boundary are refused and spend nothing', async () => {
    const task = await createTask({ tools: ['get_product'] });
    const w = await edit(task.task_id, 'x');
    expect(w.body.reason_code).toBe('tool_not_in_task');
    const b = await env.invoke({
      authRef: 'auth-shop-b',
      tool: 'get_product',
      args: { product_id: 42 },
      taskId: task.task_id,
    });
    expect(b.body.reason_code).toBe('authorization_not_in_task');
    expect((await view(task.task_id)).permits_granted).toBe(0);
    expect(opRequests(env.demo.shopA) + opRequests(env.demo.shopB)).toBe(0);
  });

  it('approval spends nothing; an approved call resumed while paused stays approved; after continue it runs once', async () => {
    const task = await createTask({ write_budget: 1 });
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'publish_listing',
      args: { product_id: 42, channel: 'web' },
      taskId: task.task_id,
    });
    expect(r.body.state).toBe('awaiting_approval');
    expect((await view(task.task_id)).writes_used).toBe(0);
    await env.agent('POST', `/agent/v1/tasks/${task.task_id}/pause`);
    await env.admin('POST', `/admin/v1/approvals/${r.body.approval.approval_id}/decision`, {
      decision_id: 'd1',
      decision: 'approve',
    });
    const refused = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(refused.body.action).toBe('refused');
    expect(refused.body.receipt.state).toBe('approved');
    expect(refused.body.receipt.reason_code).toBe('task_paused');
    expect(opRequests(env.demo.shopA)).toBe(0);
    expect((await view(task.task_id)).unresolved.map((u) => u.state)).toEqual(['approved']);
    await env.agent('POST', `/agent/v1/tasks/${task.task_id}/continue`);
    const ran = await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    expect(ran.body.action).toBe('dispatched');
    expect(ran.body.receipt.state).toBe('succeeded');
    expect((await view(task.task_id)).writes_used).toBe(1);
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('cancel is final, undoes nothing, and every call stays inspectable', async () => {
    const task = await createTask();
    const a = await edit(task.task_id, 'A');
    const c = await env.agent('POST', `/agent/v1/tasks/${task.task_id}/cancel`);
    expect(c.body.state).toBe('cancelled');
    expect(c.body.cancelled_at).not.toBeNull();
    const refused = await edit(task.task_id, 'B');
    expect(refused.body.reason_code).toBe('task_cancelled');
    const cont = await env.agent('POST', `/agent/v1/tasks/${task.task_id}/continue`);
    expect(cont.status).toBe(409);
    expect(cont.body.error).toBe('task_state_conflict');
    expect((await env.agent('GET', `/agent/v1/invocations/${a.body.invocation_id}`)).body.state).toBe(
      'succeeded',
    );
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('an expired task refuses with task_expired', async () => {
    const task = await createTask({ expires_at: new Date(Date.now() - 1000).toISOString() });
    expect(task.expired).toBe(true);
    expect((await edit(task.task_id, 'late')).body.reason_code).toBe('task_expired');
  });

  it('a new run, a new session, a tool search and a new client connection never change the spent budget', async () => {
    const task = await createTask();
    await edit(task.task_id, '1');
    await edit(task.task_id, '2');
    const before = await view(task.task_id);
    await env.run('auth-shop-a');
    await env.agent('POST', '/agent/v1/runs', {
      agent_session_id: 'another-session',
      turn_id: 't9',
      authorization_ref: 'auth-shop-a',
    });
    await env.agent('POST', '/agent/v1/tools/search', { query: 'product' });
    const fresh = await fetch(`${env.hub.url}/agent/v1/tasks/${task.task_id}`, {
      headers: { authorization: `Bearer ${env.desk}`, connection: 'close' },
    });
    const after = TaskViewSchema.parse(await fresh.json());
    expect(after.writes_used).toBe(before.writes_used);
    expect(after.writes_left).toBe(before.writes_left);
    await env.restart();
    expect((await view(task.task_id)).writes_used).toBe(2);
  });

  it('lists tasks for the client; operators list and pause any task', async () => {
    const mine = await createTask();
    await createTask({}, env.other);
    const list = TaskListSchema.parse((await env.agent('GET', '/agent/v1/tasks')).body);
    expect(list.tasks.map((t) => t.task_id)).toEqual([mine.task_id]);
    const all = TaskListSchema.parse((await env.admin('GET', '/admin/v1/tasks')).body);
    expect(all.tasks).toHaveLength(2);
    const p = await env.admin('POST', `/admin/v1/tasks/${mine.task_id}/pause`);
    expect(p.body.state).toBe('paused');
    const audit = await env.admin('GET', `/admin/v1/audit?task_id=${mine.task_id}`);
    expect(audit.body.entries.map((e: { kind: string }) => e.kind)).toEqual(['task.created', 'task.paused']);
  });
});

describe('task bad input', () => {
  const base = {
    title: 't',
    authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['get_product'] }],
    write_budget: 1,
    in_flight_limit: 1,
  };
  const post = (body: unknown) => env.agent('POST', '/agent/v1/tasks', body);

  it('refuses unknown tools and authorizations, bad numbers, invalid constraint schemas, unknown fields', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { ...base, authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['drop_tables'] }] },
        'drop_tables',
      ],
      [
        { ...base, authorizations: [{ authorization_ref: 'auth-nope', tools: ['get_product'] }] },
        'auth-nope',
      ],
      [{ ...base, write_budget: -1 }, ''],
      [{ ...base, write_budget: 1e12 }, ''],
      [{ ...base, in_flight_limit: 0 }, ''],
      [{ ...base, write_budget: 1.5 }, ''],
      [{ ...base, rate_limit: { count: 1, window: '1y' } }, ''],
      [
        {
          ...base,
          constraints: [
            { authorization_ref: null, tool: 'get_product', schema: { type: 5 }, description: null },
          ],
        },
        'not a valid JSON Schema',
      ],
      [
        {
          ...base,
          constraints: [{ authorization_ref: null, tool: 'update_product', schema: {}, description: null }],
        },
        'not in the boundary',
      ],
      [{ ...base, expires_at: 'tomorrow' }, 'expires_at'],
      [{ ...base, surprise: 1 }, ''],
      [{ ...base, authorizations: [] }, ''],
    ];
    for (const [body, text] of cases) {
      const r = await post(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.message).toContain(text);
    }
    expect(env.sql('SELECT * FROM tasks')).toHaveLength(0);
  });

  it("another client's task id: task_not_found on every route and on invoke", async () => {
    const r = await post(base);
    const id = r.body.task_id as string;
    for (const [m, p] of [
      ['GET', ''],
      ['POST', '/pause'],
      ['POST', '/continue'],
      ['POST', '/cancel'],
    ] as const) {
      const x = await env.agent(m, `/agent/v1/tasks/${id}${p}`, undefined, env.other);
      expect(x.status).toBe(404);
      expect(x.body.error).toBe('task_not_found');
    }
    const inv = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'get_product',
      args: { product_id: 42 },
      taskId: id,
      tok: env.other,
    });
    expect(inv.status).toBe(404);
    expect(inv.body.error).toBe('task_not_found');
    expect((await view(id)).state).toBe('active');
  });
});
