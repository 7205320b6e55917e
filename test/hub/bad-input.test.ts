// Bad input on the agent and admin APIs: coded errors, nothing stored, nothing sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUB_ERROR_CODES, HubErrorBodySchema } from '../../src-shared/hub-api.js';
import { http, newInvocationId, opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
let valid: Record<string, unknown>;
beforeAll(async () => {
  env = await startEnv({ settings: { bodyLimit: 8 * 1024 } });
  const d = await env.declaration('auth-shop-a', 'update_product_content');
  valid = {
    invocation_id: newInvocationId(),
    run_id: await env.run('auth-shop-a'),
    authorization_ref: 'auth-shop-a',
    tool: 'update_product_content',
    declaration_revision: d.declaration_revision,
    arguments: { product_id: 42, description: 'x' },
    host_call_id: 'h',
  };
});
afterAll(async () => {
  await env.close();
});

function expectError(r: { status: number; body: unknown }, status: number, code: string) {
  expect(r.status).toBe(status);
  const body = HubErrorBodySchema.parse(r.body);
  expect(body.error).toBe(code);
  expect((HUB_ERROR_CODES as readonly string[]).includes(body.error)).toBe(true);
}

const nothingHappened = () => {
  expect(env.sql('SELECT * FROM invocations')).toHaveLength(0);
  for (const h of env.demo.all()) expect(opRequests(h)).toBe(0);
};

describe('bad input', () => {
  it('malformed JSON: invalid_json', async () => {
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', {
        token: env.desk,
        raw: '{"invocation_id": ',
      }),
      400,
      'invalid_json',
    );
    nothingHappened();
  });

  it('oversize body: 413 body_too_large', async () => {
    const big = { ...valid, arguments: { product_id: 42, description: 'x'.repeat(20_000) } };
    expectError(await env.agent('POST', '/agent/v1/invocations', big), 413, 'body_too_large');
    nothingHappened();
  });

  it('wrong types and unknown fields: invalid_request', async () => {
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, arguments: 'x' }),
      400,
      'invalid_request',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, invocation_id: 42 }),
      400,
      'invalid_request',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, extra: true }),
      400,
      'invalid_request',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, invocation_id: 'short' }),
      400,
      'invalid_request',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, invocation_id: 'has a space in it' }),
      400,
      'invalid_request',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, invocation_id: 'line\nbreak-in-id' }),
      400,
      'invalid_request',
    );
    expectError(
      await env.agent('POST', '/agent/v1/runs', {
        agent_session_id: 's',
        turn_id: 't',
        authorization_ref: 'auth-shop-a',
        x: 1,
      }),
      400,
      'invalid_request',
    );
    expectError(await env.agent('POST', '/agent/v1/tools/search', { query: 5 }), 400, 'invalid_request');
    expectError(
      await env.agent('POST', `/agent/v1/invocations/${valid.invocation_id}/resume`, { force: true }),
      400,
      'invalid_request',
    );
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', {
        token: env.desk,
        raw: 'hello',
        headers: { 'content-type': 'text/plain' },
      }),
      415,
      'unsupported_media_type',
    );
    nothingHappened();
  });

  it('no token, wrong token, token outside the Authorization header: unauthorized', async () => {
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', { body: valid }),
      401,
      'unauthorized',
    );
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', { token: `${env.desk}x`, body: valid }),
      401,
      'unauthorized',
    );
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', {
        token: 'bdc_desk.AAAAAAAAAAAAAAAAAAAAAAAA',
        body: valid,
      }),
      401,
      'unauthorized',
    );
    expectError(
      await http(env.hub.url, 'POST', `/agent/v1/invocations?access_token=${env.desk}`, { body: valid }),
      401,
      'unauthorized',
    );
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', {
        body: valid,
        headers: { cookie: `token=${env.desk}` },
      }),
      401,
      'unauthorized',
    );
    expectError(await http(env.hub.url, 'GET', '/admin/v1/approvals', {}), 401, 'unauthorized');
    nothingHappened();
  });

  it('a verified token stays the only one of its client: other secrets under its id are refused after it', async () => {
    const list = (tok: string) => http(env.hub.url, 'GET', '/agent/v1/authorizations', { token: tok });
    for (let round = 0; round < 2; round++) {
      expect((await list(env.desk)).status).toBe(200);
      expect((await list(env.other)).status).toBe(200);
      expectError(await list(env.other.replace(/^bdc_other\./, 'bdc_desk.')), 401, 'unauthorized');
      expectError(await list(env.desk.replace(/^bdc_desk\./, 'bdc_other.')), 401, 'unauthorized');
      const last = env.desk.at(-1) === 'A' ? 'B' : 'A';
      expectError(await list(`${env.desk.slice(0, -1)}${last}`), 401, 'unauthorized');
    }
  });

  it('client token on admin routes and admin token on agent routes: forbidden', async () => {
    expectError(await http(env.hub.url, 'GET', '/admin/v1/approvals', { token: env.desk }), 403, 'forbidden');
    expectError(
      await http(env.hub.url, 'POST', '/agent/v1/invocations', { token: env.adminToken, body: valid }),
      403,
      'forbidden',
    );
    nothingHappened();
  });

  it("another client's ids: invocation_not_found only for invocations, other codes elsewhere", async () => {
    expectError(
      await env.agent('GET', `/agent/v1/invocations/${newInvocationId()}`, undefined, env.other),
      404,
      'invocation_not_found',
    );
    expectError(await env.agent('POST', '/agent/v1/invocations', valid, env.other), 404, 'run_not_found');
    expectError(
      await env.agent('GET', `/agent/v1/runs/${valid.run_id}`, undefined, env.other),
      404,
      'run_not_found',
    );
    expectError(await env.agent('GET', '/agent/v1/nope'), 404, 'not_found');
    expectError(await env.agent('GET', '/agent/v1/tasks/task_nope'), 404, 'task_not_found');
    expectError(await env.admin('POST', '/admin/v1/systems/nope/refresh'), 404, 'system_not_found');
    nothingHappened();
  });

  it('unknown authorization, unknown tool, run of another authorization', async () => {
    expectError(
      await env.agent('POST', '/agent/v1/runs', {
        agent_session_id: 's',
        turn_id: 't',
        authorization_ref: 'auth-nope',
      }),
      404,
      'authorization_not_found',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, tool: 'drop_tables' }),
      404,
      'tool_not_found',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, authorization_ref: 'auth-shop-b' }),
      409,
      'run_mismatch',
    );
    expectError(
      await env.agent('POST', '/agent/v1/invocations', { ...valid, authorization_revision: 7 }),
      409,
      'authorization_rebound',
    );
    nothingHappened();
  });

  it('admin input: invalid system registration, unreachable system', async () => {
    expectError(
      await env.admin('POST', '/admin/v1/systems', {
        system_id: 'X!',
        name: 'n',
        base_url: 'http://127.0.0.1:1',
        signing_secret: 's'.repeat(20),
      }),
      400,
      'invalid_request',
    );
    expectError(
      await env.admin('POST', '/admin/v1/systems', {
        system_id: 'gone',
        name: 'n',
        base_url: 'http://127.0.0.1:9',
        signing_secret: 's'.repeat(20),
      }),
      502,
      'system_unreachable',
    );
    expect(
      (await env.admin('GET', '/admin/v1/systems')).body.systems.map(
        (s: { system_id: string }) => s.system_id,
      ),
    ).not.toContain('gone');
    expectError(
      await env.admin('POST', '/admin/v1/approvals/apr_x/decision', { decision_id: 'd', decision: 'maybe' }),
      400,
      'invalid_request',
    );
  });
});
