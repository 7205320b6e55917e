// The task form's tool list (listAuthorizationTools) pages through the Hub's search, so a system
// with more tools than one search page (50) lists every one of them, each once.
import { afterEach, describe, expect, it } from 'vitest';
import { createHubGateway } from '../../src-main/handlers/hub-gateway-over-client.js';
import type { HubGateway } from '../../src-main/handlers/hub-gateway.js';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { addBulkTools, startEnv, type HubEnv } from '../hub/helpers.js';

let env: HubEnv | null = null;
let gateway: HubGateway | null = null;
afterEach(async () => {
  await gateway?.close();
  await env?.close();
  gateway = null;
  env = null;
});

describe('the task form lists every tool of a large system', () => {
  it('lists 130 extra tools of one authorization beside the other systems', async () => {
    env = await startEnv();
    const { before } = await addBulkTools(env, 130);
    gateway = createHubGateway({
      client: createHubClient({ baseUrl: env.hub.url, token: env.desk }),
      admin: null,
      mode: 'remote',
      url: env.hub.url,
    });
    const tools = await gateway.listAuthorizationTools();
    const shopA = tools.filter((t) => t.authorization_ref === 'auth-shop-a').map((t) => t.tool);
    expect(shopA).toHaveLength(before.length + 130);
    expect(new Set(shopA).size).toBe(shopA.length);
    expect(shopA).toEqual(expect.arrayContaining(['bulk_tool_000', 'bulk_tool_129', before[0]!]));
    // the other authorizations of the client are still listed
    expect(tools.some((t) => t.authorization_ref !== 'auth-shop-a')).toBe(true);
  });
});
