// An authorization's on-behalf-of subject travels in the x-bailing-on-behalf-of header and in the
// signature, so it must be visible ASCII: the admin API refuses anything else when the
// authorization is created or rebound, and so does the config file. The account (a display name)
// may be any text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubConfigSchema } from '../../src-hub/config.js';
import { startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await env.close();
});

const refs = async () =>
  (
    (await env.admin('GET', '/admin/v1/authorizations')).body.authorizations as Array<{
      authorization_ref: string;
      on_behalf_of: string;
      revision: number;
    }>
  ).map((a) => a.authorization_ref);

describe('on_behalf_of must be able to travel in a header', () => {
  for (const bad of ['张三@示例', 'josé@example.com', ' padded', 'tab\there', 'new\nline']) {
    it(`create refuses ${JSON.stringify(bad)} with invalid_request, and stores nothing`, async () => {
      const r = await env.admin('POST', '/admin/v1/authorizations', {
        system_id: 'shop-a',
        account: 'x',
        on_behalf_of: bad,
        authorization_ref: 'auth-bad-subject',
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('invalid_request');
      expect(r.body.message).toContain('visible ASCII');
      expect(await refs()).not.toContain('auth-bad-subject');
    });
  }

  it('a person’s name goes in account; an ASCII identifier as the subject is accepted', async () => {
    const r = await env.admin('POST', '/admin/v1/authorizations', {
      system_id: 'shop-a',
      account: '张三的店铺',
      on_behalf_of: 'zhangsan@shop.example',
      authorization_ref: 'auth-zhangsan',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ account: '张三的店铺', on_behalf_of: 'zhangsan@shop.example' });
  });

  it('rebind refuses a subject that cannot travel and leaves the authorization as it was', async () => {
    const r = await env.admin('POST', '/admin/v1/authorizations/auth-zhangsan/rebind', {
      on_behalf_of: '张三@示例',
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    const a = (await env.admin('GET', '/admin/v1/authorizations')).body.authorizations.find(
      (x: { authorization_ref: string }) => x.authorization_ref === 'auth-zhangsan',
    );
    expect(a).toMatchObject({ state: 'active', revision: 1, on_behalf_of: 'zhangsan@shop.example' });
    const ok = await env.admin('POST', '/admin/v1/authorizations/auth-zhangsan/rebind', {
      on_behalf_of: 'tenant-a:u42',
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ state: 'rebound', revision: 2, on_behalf_of: 'tenant-a:u42' });
  });

  it('the config file refuses it too, naming the rule', () => {
    const parsed = HubConfigSchema.safeParse({
      authorizations: [{ authorization_ref: 'a1', system_id: 's', account: 'x', on_behalf_of: '张三@示例' }],
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('visible ASCII');
  });
});
