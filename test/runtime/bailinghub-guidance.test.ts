/**
 * A system built for BailingHub (demo/bailinghub-erp), registered through the admin API: the model
 * sees its tools with the guidance the system published (when to use, what it returns, examples as
 * argument objects, the approval prompt and the approval rules' labels) in the function description,
 * and its GET tools as reads.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBailingHubErp, type ErpHandle } from '../../demo/bailinghub-erp/index.js';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let erp: ErpHandle;
let runtime: DeskRuntime;
beforeAll(async () => {
  erp = await startBailingHubErp({ secret: randomBytes(24).toString('hex') });
  env = await startRuntimeTestEnv();
  await env.admin.registerSystem({
    system_id: 'erp',
    name: 'ERP',
    base_url: erp.url,
    signing_secret: erp.secret,
  });
  await env.admin.createAuthorization({
    system_id: 'erp',
    account: 'erp-operator',
    on_behalf_of: 'ops@erp.example.com',
    authorization_ref: 'auth-erp',
  });
  await env.admin.grantAuthorization('auth-erp', env.clientId);
  ({ runtime } = await startRuntime(env, newDataDir()));
});
afterAll(async () => {
  await runtime?.close();
  await env?.close();
  await erp?.close();
});

describe('guidance of a system built for BailingHub reaches the model', () => {
  it('in the function descriptions of the loaded tools', async () => {
    const s = await runtime.createSession({ authorizationRefs: ['auth-erp'] });
    env.model.setScript([
      {
        name: 'g-search',
        match: { userIncludes: 'refund' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'refund product', limit: 20 } }] },
      },
      { name: 'g-done', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'Loaded.' } },
    ]);
    await runtime.sendMessage(s.sessionId, 'Load the refund tools');
    const req = env.model.requests().find((q) => q.matchedStep === 'g-done')!;
    const describe = (name: string) =>
      req.tools.find((t) => t.function?.name === name)?.function?.description ?? '';
    const refund = describe('auth_erp__refund_create');
    expect(refund).toContain('When to use: the customer was charged and should get money back');
    expect(refund).toContain('Returns: the refund with its id and status');
    expect(refund).toContain('Examples: {"order_id":"SO-1001","amount":20,"reason":"damaged on arrival"}');
    expect(refund).toContain('Approval prompt: Refund {amount} on order {order_id}?');
    expect(refund).toContain(
      'Approval needed when: refunds over 500 need a manager; suspected fraud is reviewed',
    );
    expect(refund.length).toBeLessThanOrEqual(1024);
    const get = describe('auth_erp__product_get');
    expect(get).toContain('Effect: read, idempotent.');
    expect(get).toContain('When to use: you need the current price of one product before changing it');
  });
});
