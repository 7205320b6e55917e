// The host's Hub gateway when the Hub pruned events it had not seen: the stream starts with
// stream.reset, and the gateway re-reads what events feed (every task's accounting), so the UI is
// not left with stale task state.
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskView } from '../../src-shared/hub-api.js';
import { createHubGateway } from '../../src-main/handlers/hub-gateway-over-client.js';
import type { HubGateway, HubGatewayEvent } from '../../src-main/handlers/hub-gateway.js';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { startEnv, type HubEnv } from '../hub/helpers.js';
import { waitFor } from './support.js';

let env: HubEnv | null = null;
let gateway: HubGateway | null = null;
afterEach(async () => {
  await gateway?.close();
  await env?.close();
  gateway = null;
  env = null;
});

describe('Hub gateway after pruned events', () => {
  it('re-reads every task when the stream says events were pruned', async () => {
    env = await startEnv();
    const created = await env.agent('POST', '/agent/v1/tasks', {
      title: 'before pruning',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 2,
      in_flight_limit: 1,
    });
    expect(created.status).toBe(201);
    const taskId = (created.body as TaskView).task_id;
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: 'spent one' },
      taskId,
    });
    expect(r.body.state).toBe('succeeded');
    // Every event of this client is gone (as after a long absence beyond the retention).
    await env.hub.store.pruneEvents({
      before: new Date(Date.now() + 3600_000).toISOString(),
      keepPerClient: 1_000,
    });

    const seen: HubGatewayEvent[] = [];
    gateway = createHubGateway({
      client: createHubClient({ baseUrl: env.hub.url, token: env.desk }),
      admin: null,
      mode: 'remote',
      url: env.hub.url,
      reconnectDelayMs: 100,
    });
    gateway.subscribe((e) => seen.push(e));
    await waitFor(() => seen.some((e) => e.type === 'task'), 10_000, 'the re-read task');
    const task = seen.find((e): e is Extract<HubGatewayEvent, { type: 'task' }> => e.type === 'task')?.task;
    expect(task?.task_id).toBe(taskId);
    expect(task?.writes_used).toBe(1);
    expect(gateway.connection().state).toBe('connected');
  });
});
