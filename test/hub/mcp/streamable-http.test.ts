// An MCP server over Streamable HTTP (built with the SDK) governed through the Hub: the bearer
// token is used and never shown back, a write lands once, a timeout cancels and is unknown, a
// server that is gone is not_dispatched (the request could not be delivered).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newInvocationId, startEnv, type HubEnv } from '../helpers.js';
import { registerMcp, until } from './helpers.js';
import { startHttpMcpServer, type HttpMcpServer } from './http-server.js';

const BEARER = 'bearer-token-for-the-test-0123456789';
let env: HubEnv;
let server: HttpMcpServer;
beforeEach(async () => {
  env = await startEnv({ settings: { mcpInitializeTimeoutMs: 3_000 } });
  server = await startHttpMcpServer({ bearer: BEARER });
});
afterEach(async () => {
  await env.close();
  await server.close().catch(() => undefined);
});

describe('a Streamable HTTP MCP server', () => {
  it('is registered with its bearer token, which is never returned', async () => {
    const sys = await registerMcp(env, 'http-notes', {
      transport: 'streamable_http',
      url: server.url,
      bearer_token: BEARER,
    });
    expect(sys.mcp).toMatchObject({ transport: 'streamable_http', url: server.url, has_bearer_token: true });
    expect(JSON.stringify(sys)).not.toContain(BEARER);
    expect((await env.admin('GET', '/admin/v1/systems/http-notes')).text).not.toContain(BEARER);
    expect((await env.admin('GET', '/admin/v1/audit?limit=10000')).text).not.toContain(BEARER);
  });

  it('a wrong bearer token is refused at registration, nothing stored', async () => {
    const r = await env.admin('POST', '/admin/v1/systems', {
      kind: 'mcp',
      system_id: 'wrong-token',
      name: 'wrong',
      server: { transport: 'streamable_http', url: server.url, bearer_token: 'not-the-token' },
    });
    expect(r.status, r.text).toBe(502);
    expect(r.body.error).toBe('mcp_server_unreachable');
    expect((await env.admin('GET', '/admin/v1/systems/wrong-token')).status).toBe(404);
  });

  it('a governed write lands once, with the invocation id as the idempotency key in _meta', async () => {
    await registerMcp(env, 'http-notes', {
      transport: 'streamable_http',
      url: server.url,
      bearer_token: BEARER,
    });
    const id = newInvocationId();
    const r = await env.invoke({ authRef: 'auth-http-notes', tool: 'add_note', id, args: { note: 'hello' } });
    expect(r.body.state, r.text).toBe('succeeded');
    expect(server.notes).toEqual([{ note: 'hello', key: id }]);
  });

  it('a timeout sends notifications/cancelled; the call is unknown', async () => {
    await registerMcp(
      env,
      'http-notes',
      { transport: 'streamable_http', url: server.url, bearer_token: BEARER },
      { overlays: { hang: { timeout_ms: 300 } } },
    );
    const id = newInvocationId();
    const r = await env.invoke({ authRef: 'auth-http-notes', tool: 'hang', id, args: { note: 'x' } });
    expect(r.body.state, r.text).toBe('unknown');
    expect(r.body.reason_code).toBe('no_response_timeout');
    await until(() => server.cancelled.includes(id));
  });

  it('a server that is gone: not_dispatched, the request could not be delivered', async () => {
    await registerMcp(env, 'http-notes', {
      transport: 'streamable_http',
      url: server.url,
      bearer_token: BEARER,
    });
    const decl = await env.declaration('auth-http-notes', 'add_note');
    await server.close();
    const r = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: newInvocationId(),
      run_id: await env.run('auth-http-notes'),
      authorization_ref: 'auth-http-notes',
      tool: 'add_note',
      declaration_revision: decl.declaration_revision,
      arguments: { note: 'lost' },
      host_call_id: 'c',
    });
    expect(r.body.state, r.text).toBe('not_dispatched');
    expect(r.body.reason_code).toBe('not_sent_not_connected');
    expect(server.notes).toHaveLength(0);
  });
});
