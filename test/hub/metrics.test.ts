// Admin metrics: per-client agent requests by route, invokes, resumes and business dispatches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubMetricsSchema } from '../../src-shared/hub-api.js';
import { startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env.close();
});

describe('metrics', () => {
  it('counts what each client asked for and what was actually dispatched', async () => {
    const m0 = HubMetricsSchema.parse((await env.admin('GET', '/admin/v1/metrics')).body);
    expect(m0.clients.other).toBeUndefined();
    expect(m0.durability).toBe(env.hub.store.durability);
    expect(m0.durability).toMatch(/synchronous=FULL|synchronous_commit=on/);
    const r = await env.invoke({ authRef: 'auth-shop-a', tool: 'get_product', args: { product_id: 42 } });
    await env.agent('POST', `/agent/v1/invocations/${r.body.invocation_id}/resume`);
    await env.agent('GET', `/agent/v1/invocations/${r.body.invocation_id}`);
    await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'publish_listing',
      args: { product_id: 42, channel: 'web' },
    });
    const m = HubMetricsSchema.parse((await env.admin('GET', '/admin/v1/metrics')).body);
    const desk = m.clients.desk!;
    expect(desk.invokes).toBe(2);
    expect(desk.resumes).toBe(1);
    expect(desk.dispatches).toBe(1);
    expect(desk.requests['POST /agent/v1/invocations']).toBe(2);
    expect(desk.requests['GET /agent/v1/invocations/:id']).toBe(1);
    expect(desk.requests['POST /agent/v1/tools/search']).toBe(2);
    expect(desk.requests_total).toBe(Object.values(desk.requests).reduce((a, b) => a + b, 0));
    expect(m.clients.other).toBeUndefined();
  });
});
