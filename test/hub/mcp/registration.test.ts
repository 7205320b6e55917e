// Registering MCP servers that cannot be governed: a huge tool list, a malformed schema, a
// duplicated or invalid tool name, a server that never answers initialize — a coded error, nothing
// stored, and the Hub answering other requests meanwhile. Secrets are never shown back.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { http, startEnv, type HubEnv } from '../helpers.js';
import { testServer } from './helpers.js';

let env: HubEnv;
let dir: string;
beforeEach(async () => {
  // the default wait for initialize: a test server is a Node process whose start, on a machine busy
  // with other test files, can take longer than the short wait the silent-server test uses
  env = await startEnv();
  dir = mkdtempSync(join(tmpdir(), 'mcp-register-'));
});
afterEach(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

async function grant(systemId: string) {
  const a = await env.admin('POST', '/admin/v1/authorizations', {
    system_id: systemId,
    account: 'acct',
    on_behalf_of: 'operator@demo.local',
    authorization_ref: `auth-${systemId}`,
  });
  expect(a.status, a.text).toBe(201);
  expect(
    (await env.admin('POST', `/admin/v1/authorizations/auth-${systemId}/grants`, { client_id: 'desk' }))
      .status,
  ).toBe(200);
}

const register = (systemId: string, server: Record<string, unknown>) =>
  env.admin('POST', '/admin/v1/systems', { kind: 'mcp', system_id: systemId, name: systemId, server });

async function nothingStored(systemId: string) {
  expect((await env.admin('GET', `/admin/v1/systems/${systemId}`)).status).toBe(404);
  expect(env.sql('SELECT * FROM operations WHERE system_id = ?', systemId)).toHaveLength(0);
}

describe('registering an MCP server that cannot be governed', () => {
  it.each([
    ['huge', 'mcp_tools_invalid', 422],
    ['malformed_schema', 'mcp_tools_invalid', 422],
    ['duplicate_name', 'mcp_tools_invalid', 422],
    ['bad_name', 'mcp_tools_invalid', 422],
  ] as const)('%s → %s, nothing stored', async (mode, code, status) => {
    const r = await register(`bad-${mode.replace(/_/g, '-')}`, testServer(join(dir, 'l'), { MODE: mode }));
    expect(r.status, r.text).toBe(status);
    expect(r.body.error).toBe(code);
    await nothingStored(`bad-${mode.replace(/_/g, '-')}`);
  });

  it('a server that never answers initialize → mcp_server_unreachable, nothing stored, the Hub stays responsive', async () => {
    await env.restart({ settings: { mcpInitializeTimeoutMs: 1_500 } });
    const pending = register('silent', testServer(join(dir, 'l'), { MODE: 'no_initialize' }));
    // while the registration waits for initialize, the Hub answers others at once
    const health = await http(env.hub.url, 'GET', '/health');
    expect(health.status).toBe(200);
    const search = await env.agent('POST', '/agent/v1/tools/search', { query: 'product', limit: 5 });
    expect(search.status).toBe(200);
    const r = await pending;
    expect(r.status, r.text).toBe(502);
    expect(r.body.error).toBe('mcp_server_unreachable');
    await nothingStored('silent');
  });

  it('a command that cannot be started → mcp_server_unreachable', async () => {
    const r = await register('missing', { transport: 'stdio', command: join(dir, 'no-such-binary') });
    expect(r.status, r.text).toBe(502);
    expect(r.body.error).toBe('mcp_server_unreachable');
    await nothingStored('missing');
  });

  it('an id of an HTTP system → system_kind_mismatch', async () => {
    const r = await register('shop-a', testServer(join(dir, 'l')));
    expect(r.status, r.text).toBe(409);
    expect(r.body.error).toBe('system_kind_mismatch');
  });

  it('secret environment values are never returned, logged in the audit or stored in the clear settings', async () => {
    const secret = 'sk-very-secret-value-1234567890';
    const r = await env.admin('POST', '/admin/v1/systems', {
      kind: 'mcp',
      system_id: 'withsecret',
      name: 'with secret',
      server: { ...testServer(join(dir, 'l')), secret_env: { API_KEY: secret } },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body.mcp.secret_env_names).toEqual(['API_KEY']);
    expect(r.text).not.toContain(secret);
    const all = await env.admin('GET', '/admin/v1/systems');
    expect(all.text).not.toContain(secret);
    const audit = await env.admin('GET', '/admin/v1/audit?limit=10000');
    expect(audit.text).not.toContain(secret);
    const row = env.sql<{ mcp_json: string }>(
      'SELECT mcp_json FROM systems WHERE system_id = ?',
      'withsecret',
    );
    expect(row[0]!.mcp_json).not.toContain(secret);
    // …and the server the Hub started has it
    await grant('withsecret');
    const d = await env.invoke({ authRef: 'auth-withsecret', tool: 'env_digest', args: { name: 'API_KEY' } });
    expect(d.body.state, d.text).toBe('succeeded');
    expect(d.body.result.structuredContent.digest).toBe(createHash('sha256').update(secret).digest('hex'));
  });

  it('an MCP registration with unknown fields is refused before anything starts', async () => {
    const r = await env.admin('POST', '/admin/v1/systems', {
      kind: 'mcp',
      system_id: 'extra',
      name: 'extra',
      server: { transport: 'stdio', command: process.execPath, shell: true },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });
});
