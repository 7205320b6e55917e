// The desk's Hub gateway names each task's systems (TaskView.systems), which the Hub serves where it
// answers for a task and never on the live stream: a task seen only on the stream is looked up
// once (then its stream views cost nothing more); a retire re-reads the tasks, so a task naming the
// retired system still names it, marked retired; an older Hub, which names none, is asked once per
// task and no more.
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskSystem, TaskView } from '../../src-shared/hub-api.js';
import { createHubGateway } from '../../src-main/handlers/hub-gateway-over-client.js';
import type { HubGateway, HubGatewayEvent } from '../../src-main/handlers/hub-gateway.js';
import { createHubClient, type HubClient } from '../../src-main/hub-client/index.js';
import { startEnv, type HubEnv } from '../hub/helpers.js';
import { waitFor } from './support.js';

/** What each test started, closed after it in reverse order (the gateway before its Hub). */
const started: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const s of started.splice(0).reverse()) await s.close();
});
const hub = async (): Promise<HubEnv> => {
  const env = await startEnv();
  started.push(env);
  return env;
};

const SHOP_A: TaskSystem = {
  authorization_ref: 'auth-shop-a',
  system_id: 'shop-a',
  system_name: 'Shop A (homeware)',
  system_kind: 'http',
  system_retired_at: null,
};

/** The Hub's client, counting the task look-ups; `older` strips `systems` as a Hub before them would. */
function countingClient(env: HubEnv, older = false) {
  const client = createHubClient({ baseUrl: env.hub.url, token: env.desk });
  const strip = (v: TaskView): TaskView => {
    if (!older) return v;
    const { systems: _dropped, ...rest } = v;
    return rest;
  };
  const lookups = { getTask: 0, listTasks: 0 };
  const counted: HubClient = {
    ...client,
    getTask: async (id, opts) => (lookups.getTask++, strip(await client.getTask(id, opts))),
    listTasks: async (opts) => (lookups.listTasks++, (await client.listTasks(opts)).map(strip)),
    createTask: async (req, opts) => strip(await client.createTask(req, opts)),
  };
  return { counted, lookups };
}

async function start(
  env: HubEnv,
  client: HubClient,
): Promise<{ gateway: HubGateway; seen: HubGatewayEvent[] }> {
  const seen: HubGatewayEvent[] = [];
  const gateway = createHubGateway({
    client,
    admin: null,
    mode: 'remote',
    url: env.hub.url,
    reconnectDelayMs: 100,
  });
  started.push(gateway);
  gateway.subscribe((e) => seen.push(e));
  await waitFor(() => gateway.connection().state === 'connected', 10_000, 'the event stream');
  return { gateway, seen };
}

const tasksOf = (seen: HubGatewayEvent[], taskId: string) =>
  seen.flatMap((e) => (e.type === 'task' && e.task.task_id === taskId ? [e.task] : []));

const createAtHub = async (env: HubEnv): Promise<string> => {
  const r = await env.agent('POST', '/agent/v1/tasks', {
    title: 'made by another agent',
    authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content', 'get_product'] }],
    write_budget: 3,
    in_flight_limit: 1,
  });
  expect(r.status, r.text).toBe(201);
  return (r.body as TaskView).task_id;
};

const write = async (env: HubEnv, taskId: string, description: string) => {
  const r = await env.invoke({
    authRef: 'auth-shop-a',
    tool: 'update_product_content',
    args: { product_id: 42, description },
    taskId,
  });
  expect(r.body.state, r.text).toBe('succeeded');
};

describe('Hub gateway: the systems of a task', () => {
  it('a task seen only on the live stream is looked up once; its later stream views cost no look-up', async () => {
    const env = await hub();
    const { counted, lookups } = countingClient(env);
    const { seen } = await start(env, counted);
    const taskId = await createAtHub(env);

    const named = await waitFor(
      () => tasksOf(seen, taskId).find((t) => t.systems !== undefined),
      10_000,
      'the looked-up view',
    );
    expect(named.systems).toEqual([SHOP_A]);
    await write(env, taskId, 'first');
    await write(env, taskId, 'second');
    await waitFor(() => tasksOf(seen, taskId).some((t) => t.writes_used === 2), 10_000, 'the writes');
    expect(lookups).toEqual({ getTask: 1, listTasks: 0 });
    // the stream's own views name no systems: the renderer keeps the served ones (store/tasks.ts)
    expect(tasksOf(seen, taskId).filter((t) => t.systems === undefined).length).toBeGreaterThan(0);
  });

  it('a retire re-reads the tasks: the retired system is still named, marked retired', async () => {
    const env = await hub();
    const { counted } = countingClient(env);
    const { gateway, seen } = await start(env, counted);
    const created = await gateway.createTask({
      title: 'outlives shop a',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['get_product'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    expect(created.systems).toEqual([SHOP_A]);

    const retired = await env.admin('POST', '/admin/v1/systems/shop-a/retire');
    expect(retired.status, retired.text).toBe(200);
    const marked = { ...SHOP_A, system_retired_at: retired.body.retired_at as string };
    // the authorization.changed notice makes the gateway serve the task again, with its systems now
    const reread = await waitFor(
      () => tasksOf(seen, created.task_id).find((t) => t.systems?.[0]?.system_retired_at),
      10_000,
      'the re-read task',
    );
    expect(reread.systems).toEqual([marked]);
    // the agent list no longer carries it; the task still names it
    expect((await gateway.listAuthorizations()).map((a) => a.authorization_ref)).not.toContain('auth-shop-a');
    const listed = (await gateway.listTasks()).find((t) => t.task_id === created.task_id);
    expect(listed?.systems).toEqual([marked]);
  });

  it('an older Hub, which names no systems: each task is looked up once, never again', async () => {
    const env = await hub();
    const { counted, lookups } = countingClient(env, true);
    const { seen } = await start(env, counted);
    const taskId = await createAtHub(env);
    await write(env, taskId, 'first');
    await write(env, taskId, 'second');
    await waitFor(() => tasksOf(seen, taskId).some((t) => t.writes_used === 2), 10_000, 'the writes');
    await waitFor(() => lookups.getTask + lookups.listTasks > 0, 10_000, 'the look-up');
    await new Promise((r) => setTimeout(r, 200));
    expect(lookups.getTask + lookups.listTasks).toBe(1);
    expect(tasksOf(seen, taskId).every((t) => t.systems === undefined)).toBe(true);
  });
});
