/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read as untyped JSON */
// Settings' MCP servers through the real call router of a real desk (embedded Hub on SQLite files,
// the reference memory server from npm started by the Hub): add, list, tools with their overlays,
// edit and clear an overlay, the new system's tools in search with their kind; hostile payloads
// refused by the contract with codes (nothing registered); registration failures coded from the
// Hub with the form's secrets masked out of the Hub's words; no answer ever carries a secret.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallName } from '../../src-shared/ipc/contract.js';
import { createMcpServerHandlers, maskSecrets } from '../../src-main/handlers/mcp-servers.js';
import { createHubAdminClient } from '../../src-main/hub-client/index.js';
import { hubConnected, startTestDesk, type TestDesk } from './support.js';

const require = createRequire(import.meta.url);
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
const TEST_SERVER = resolve(import.meta.dirname, '../hub/mcp/fixtures/test-server.mjs');
const SECRET = 'sk-memory-secret-4f1c9e2a77';

let desk: TestDesk;
const dir = mkdtempSync(join(tmpdir(), 'desk-mcp-'));
const call = (name: CallName, input: unknown) => desk.root.router.call(name, input, { transport: 'browser' });
/** Waits (bounded) until the conversation's availability is `state`; its summary then. */
async function availabilityOf(sessionId: string, state: string): Promise<any> {
  const until = Date.now() + 10_000;
  for (;;) {
    const s = (await ok('listSessions', {})).sessions.find((x: any) => x.session_id === sessionId);
    if (s?.availability === state) return s;
    if (Date.now() > until) throw new Error(`session ${sessionId} is ${s?.availability}, not ${state}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function ok(name: CallName, input: unknown): Promise<any> {
  const r = await call(name, input);
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r.value;
}

const memoryForm = (systemId = 'memory') => ({
  system_id: systemId,
  name: 'Memory graph',
  server: {
    transport: 'stdio',
    command: process.execPath,
    args: [MEMORY],
    env: [
      { name: 'MEMORY_FILE_PATH', value: join(dir, `${systemId}.jsonl`), secret: false },
      { name: 'MEMORY_API_KEY', value: SECRET, secret: true },
    ],
    cwd: null,
  },
});

beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
}, 60_000);
afterAll(async () => {
  await desk?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('Settings: MCP servers on the local Hub', () => {
  it('lists none at first and may manage them', async () => {
    expect(await ok('listMcpServers', {})).toEqual({ can_manage: true, servers: [] });
  });

  it('adds the memory server: its tools, its authorization for this desk, and no secret in any answer', async () => {
    const added = await ok('addMcpServer', memoryForm());
    expect(added).toMatchObject({
      system_id: 'memory',
      name: 'Memory graph',
      transport: 'stdio',
      command: process.execPath,
      env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
      secret_env_names: ['MEMORY_API_KEY'],
      has_bearer_token: false,
      authorization_ref: 'mcp-memory',
    });
    expect(added.tool_count).toBeGreaterThanOrEqual(5);
    const listed = await ok('listMcpServers', {});
    expect(listed.servers.map((s: { system_id: string }) => s.system_id)).toEqual(['memory']);
    const auths = (await ok('listAuthorizations', {})).authorizations;
    expect(
      auths.find((a: { authorization_ref: string }) => a.authorization_ref === 'mcp-memory'),
    ).toMatchObject({ system_kind: 'mcp', system_name: 'Memory graph' });
    expect(
      auths.find((a: { authorization_ref: string }) => a.authorization_ref === 'auth-shop-a'),
    ).toMatchObject({
      system_kind: 'http',
    });
    for (const answer of [added, listed, await ok('listMcpTools', { system_id: 'memory' })])
      expect(JSON.stringify(answer)).not.toContain(SECRET);
  }, 60_000);

  it('shows each tool with how it is governed; an overlay is set, shown as the overlay, and cleared', async () => {
    const { tools } = await ok('listMcpTools', { system_id: 'memory' });
    const byName = new Map(tools.map((t: { tool: string }) => [t.tool, t]));
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['read_graph', 'create_entities']));
    // the memory server annotates read_graph read-only; create_entities is a write
    expect(byName.get('read_graph')).toMatchObject({ overlay: null, governed: { effect: 'read' } });
    expect(byName.get('create_entities')).toMatchObject({ governed: { effect: 'write' } });

    const set = await ok('setMcpToolOverlay', {
      system_id: 'memory',
      tool: 'create_entities',
      overlay: { effect: 'write', risk_level: 'low', approval: { required: false }, timeout_ms: 5000 },
    });
    expect(set).toMatchObject({
      overlay: { effect: 'write', risk_level: 'low', approval: { required: false }, timeout_ms: 5000 },
      governed: { effect: 'write', risk_level: 'low', approval_required: false, timeout_ms: 5000 },
    });
    const before = (byName.get('create_entities') as { declaration_revision: string }).declaration_revision;
    expect(set.declaration_revision).not.toBe(before);

    const cleared = await ok('clearMcpToolOverlay', { system_id: 'memory', tool: 'create_entities' });
    expect(cleared.overlay).toBeNull();
    expect(cleared.governed.timeout_ms).not.toBe(5000);
  }, 30_000);

  it('an overlay the Hub refuses (a look-up tool that is a write) comes back coded, nothing changed', async () => {
    const r = await call('setMcpToolOverlay', {
      system_id: 'memory',
      tool: 'read_graph',
      overlay: { lookup_tool: 'create_entities' },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('hub_error');
    expect(r.error.cause?.error).toBe('invalid_request');
    const { tools } = await ok('listMcpTools', { system_id: 'memory' });
    expect(tools.find((t: { tool: string }) => t.tool === 'read_graph').overlay).toBeNull();
  });

  it('reads the tools again on request', async () => {
    const r = await ok('refreshMcpServer', { system_id: 'memory' });
    expect(r.tool_count).toBeGreaterThanOrEqual(5);
    expect(r.connection).toBe('connected');
  });

  it('the new system’s tools are found by search with their kind, beside HTTP systems', async () => {
    const session = await ok('createSession', {
      title: 'MCP and shop',
      authorization_refs: ['mcp-memory', 'auth-shop-a'],
      task_id: null,
    });
    await ok('getConversation', { session_id: session.session_id });
    const mcp = (await ok('searchTools', { session_id: session.session_id, query: 'read graph' })).tools;
    expect(mcp.find((t: { tool: string }) => t.tool === 'read_graph')).toMatchObject({
      system_kind: 'mcp',
      authorization_ref: 'mcp-memory',
    });
    const http = (await ok('searchTools', { session_id: session.session_id, query: 'product' })).tools;
    expect(
      http.find((t: { authorization_ref: string }) => t.authorization_ref === 'auth-shop-a'),
    ).toMatchObject({
      system_kind: 'http',
    });
    const run = await ok('runToolManually', {
      session_id: session.session_id,
      function_name: mcp.find((t: { tool: string }) => t.tool === 'read_graph').function_name,
      arguments: {},
    });
    expect(run.item).toMatchObject({
      state: 'succeeded',
      authorization_ref: 'mcp-memory',
      tool: 'read_graph',
    });
  }, 60_000);
});

describe('hostile payloads are refused by the contract with codes, and nothing is registered', () => {
  const refused = async (name: CallName, input: unknown, code = 'invalid_payload') => {
    const r = await call(name, input);
    expect(r.ok, JSON.stringify(input).slice(0, 200)).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe(code);
      expect(JSON.stringify(r.error)).not.toContain(SECRET);
    }
  };
  const stdio = (patch: Record<string, unknown>) => ({
    ...memoryForm('hostile'),
    server: { ...memoryForm('hostile').server, ...patch },
  });

  it.each([
    ['an unknown top-level field', { ...memoryForm('hostile'), admin: true }],
    ['an unknown server field', stdio({ shell: true })],
    ['an id with a path', { ...memoryForm('hostile'), system_id: '../etc' }],
    ['an upper-case id', { ...memoryForm('hostile'), system_id: 'Memory' }],
    ['an empty name', { ...memoryForm('hostile'), name: '   ' }],
    ['an empty command', stdio({ command: ' ' })],
    ['a command with a newline', stdio({ command: 'node\nrm -rf /' })],
    ['a relative working folder', stdio({ cwd: 'relative/dir' })],
    ['an environment name with a space', stdio({ env: [{ name: 'BAD NAME', value: 'x', secret: false }] })],
    [
      'a duplicated environment name',
      stdio({
        env: [
          { name: 'A', value: '1', secret: false },
          { name: 'A', value: SECRET, secret: true },
        ],
      }),
    ],
    ['a one-character secret', stdio({ env: [{ name: 'K', value: 'x', secret: true }] })],
    [
      'an environment entry with an extra field',
      stdio({ env: [{ name: 'A', value: '1', secret: false, x: 1 }] }),
    ],
    ['65 arguments', stdio({ args: Array.from({ length: 65 }, () => 'a') })],
    [
      'a URL with credentials',
      {
        ...memoryForm('hostile'),
        server: {
          transport: 'streamable_http',
          url: `http://u:${SECRET}@127.0.0.1:1/mcp`,
          bearer_token: null,
        },
      },
    ],
    [
      'a javascript: URL',
      {
        ...memoryForm('hostile'),
        server: { transport: 'streamable_http', url: 'javascript:alert(1)', bearer_token: null },
      },
    ],
    ['an unknown transport', { ...memoryForm('hostile'), server: { transport: 'websocket', url: 'ws://x' } }],
    ['not an object', 'memory'],
  ])('addMcpServer: %s', async (_what, input) => {
    await refused('addMcpServer', input);
  });

  it('a payload over the contract bound is payload_too_large', async () => {
    await refused('addMcpServer', stdio({ args: ['x'.repeat(1_000_000)] }), 'payload_too_large');
  });

  it.each([
    ['an unknown overlay field', { effect: 'read', run_as_root: true }],
    ['an unknown approval field', { approval: { required: false, bypass: true } }],
    [
      'an approval rule with an extra field',
      { approval: { required: true, when: [{ path: 'a', op: 'eq', x: 1 }] } },
    ],
    ['a timeout below 100 ms', { timeout_ms: 5 }],
    ['a rate window outside the list', { rate_limit: { count: 1, window: '1y' } }],
    ['an effect outside the list', { effect: 'delete' }],
  ])('setMcpToolOverlay: %s', async (_what, overlay) => {
    await refused('setMcpToolOverlay', { system_id: 'memory', tool: 'read_graph', overlay });
  });

  it('a tool name outside MCP’s characters is refused', async () => {
    await refused('clearMcpToolOverlay', { system_id: 'memory', tool: '../x' });
  });

  it('after all of them, only the memory server is registered', async () => {
    const listed = await ok('listMcpServers', {});
    expect(listed.servers.map((s: { system_id: string }) => s.system_id)).toEqual(['memory']);
  });
});

describe('registration failures are coded from the Hub, nothing stored, secrets masked', () => {
  it('a server that exits printing its secret: mcp_server_unreachable, the secret masked in the Hub’s words', async () => {
    const r = await call('addMcpServer', {
      system_id: 'leaky',
      name: 'Leaky',
      server: {
        transport: 'stdio',
        command: process.execPath,
        args: ['-e', 'console.error("bad key " + process.env.LEAKY_KEY); process.exit(2)'],
        env: [{ name: 'LEAKY_KEY', value: SECRET, secret: true }],
        cwd: null,
      },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('hub_error');
    expect(r.error.cause?.error).toBe('mcp_server_unreachable');
    expect(JSON.stringify(r.error)).not.toContain(SECRET);
    expect(r.error.cause?.message).toContain('bad key •••');
    expect(
      (await ok('listMcpServers', {})).servers.map((s: { system_id: string }) => s.system_id),
    ).not.toContain('leaky');
  }, 30_000);

  it('a tool list with a duplicated name: mcp_tools_invalid', async () => {
    const r = await call('addMcpServer', {
      system_id: 'dupes',
      name: 'Dupes',
      server: {
        transport: 'stdio',
        command: process.execPath,
        args: [TEST_SERVER],
        env: [{ name: 'MODE', value: 'duplicate_name', secret: false }],
        cwd: null,
      },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.cause?.error).toBe('mcp_tools_invalid');
  }, 30_000);

  it('an id taken by an HTTP system or an MCP server: system_exists, nothing changed', async () => {
    for (const id of ['shop-a', 'memory']) {
      const r = await call('addMcpServer', memoryForm(id));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('system_exists');
    }
    expect((await ok('listMcpServers', {})).servers).toHaveLength(1);
  });
});

describe('a server registered outside the desk', () => {
  it('is listed without this desk’s authorization until Read tools again grants it', async () => {
    const local = desk.root.local!;
    const admin = createHubAdminClient({ baseUrl: local.url, token: local.adminToken });
    await admin.registerSystem({
      kind: 'mcp',
      system_id: 'outside',
      name: 'Registered by the CLI',
      server: {
        transport: 'stdio',
        command: process.execPath,
        args: [MEMORY],
        env: { MEMORY_FILE_PATH: join(dir, 'o.jsonl') },
      },
    });
    const before = (await ok('listMcpServers', {})).servers.find(
      (s: { system_id: string }) => s.system_id === 'outside',
    );
    expect(before.authorization_ref).toBeNull();
    const after = await ok('refreshMcpServer', { system_id: 'outside' });
    expect(after.authorization_ref).toBe('mcp-outside');
    const auths = (await ok('listAuthorizations', {})).authorizations;
    expect(
      auths.find((a: { authorization_ref: string }) => a.authorization_ref === 'mcp-outside'),
    ).toMatchObject({
      state: 'active',
      system_kind: 'mcp',
    });
  }, 30_000);
});

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
};

describe('removing a server', () => {
  it('is refused while one of its calls awaits approval (coded), then removes it: gone from the list, its process stopped, the conversation using it blocked at once; adding it again brings it back and reopens the conversation', async () => {
    await ok('addMcpServer', memoryForm('scratch'));
    const session = await ok('createSession', {
      title: 'Scratch',
      authorization_refs: ['mcp-scratch'],
      task_id: null,
    });
    await ok('getConversation', { session_id: session.session_id });
    const tools = (await ok('searchTools', { session_id: session.session_id, query: 'delete entities' }))
      .tools;
    const del = tools.find((t: { tool: string }) => t.tool === 'delete_entities');
    // destructive: high risk, needs approval — an unresolved call
    const run = await ok('runToolManually', {
      session_id: session.session_id,
      function_name: del.function_name,
      arguments: { entityNames: ['nobody'] },
    });
    expect(run.item.state).toBe('awaiting_approval');

    const refused = await call('removeMcpServer', { system_id: 'scratch' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code).toBe('hub_error');
      expect(refused.error.cause?.error).toBe('system_has_unresolved_invocations');
    }
    expect((await ok('listMcpServers', {})).servers.map((s: any) => s.system_id)).toContain('scratch');

    const pending = (await ok('listApprovals', {})).approvals.find(
      (a: { tool: string }) => a.tool === 'delete_entities',
    );
    await ok('decideApproval', { approval_id: pending.approval_id, decision: 'deny' });
    const pid = desk.root.local!.hub.ctx.mcp!.pid('scratch');
    expect(pid).not.toBeNull();
    const removed = await ok('removeMcpServer', { system_id: 'scratch' });
    expect(removed.system_id).toBe('scratch');
    expect(Date.parse(removed.retired_at)).not.toBeNaN();
    expect((await ok('listMcpServers', {})).servers.map((s: any) => s.system_id)).not.toContain('scratch');
    // the Hub answered after closing the connection; the process is gone (bounded wait for its exit)
    const until = Date.now() + 10_000;
    while (processAlive(pid!) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(processAlive(pid!)).toBe(false);
    // the retire's notice blocks the conversation using it at once: no search reaches the Hub
    expect(await availabilityOf(session.session_id, 'blocked')).toMatchObject({
      availability_reason: 'system_retired',
      availability_ref: 'mcp-scratch',
    });
    const after = await call('searchTools', { session_id: session.session_id, query: 'delete entities' });
    expect(after.ok === false && after.error.code).toBe('scope_unavailable');
    // an unknown id, hostile input
    const missing = await call('removeMcpServer', { system_id: 'never-added' });
    expect(missing.ok === false && missing.error.code).toBe('not_found');
    const hostile = await call('removeMcpServer', { system_id: 'scratch', extra: true });
    expect(hostile.ok === false && hostile.error.code).toBe('invalid_payload');

    const again = await ok('addMcpServer', memoryForm('scratch'));
    expect(again.system_id).toBe('scratch');
    expect((await ok('listMcpServers', {})).servers.map((s: any) => s.system_id)).toContain('scratch');
    // revived: its notice has the conversation's scope checked again, and its tools come back
    await availabilityOf(session.session_id, 'open');
    const back = await ok('searchTools', { session_id: session.session_id, query: 'delete entities' });
    expect(back.tools.some((t: { authorization_ref: string }) => t.authorization_ref === 'mcp-scratch')).toBe(
      true,
    );
    await ok('removeMcpServer', { system_id: 'scratch' });
  }, 90_000);
});

describe('without an admin credential (a remote Hub)', () => {
  const handlers = createMcpServerHandlers({
    admin: null,
    clientId: 'remote',
    onBehalfOf: 'x',
    needHub: () => {},
    grantedAuthorizations: async () => [],
  });

  it('lists nothing and may not manage', async () => {
    expect(await handlers.listMcpServers({}, { transport: 'browser' })).toEqual({
      can_manage: false,
      servers: [],
    });
    await expect(
      handlers.refreshMcpServer({ system_id: 'memory' }, { transport: 'browser' }),
    ).rejects.toMatchObject({ code: 'not_permitted' });
  });
});

describe('maskSecrets', () => {
  it('masks every occurrence, the longer secret first', () => {
    expect(maskSecrets('a=abcdef b=abc c=abcdef', ['abc', 'abcdef'])).toBe('a=••• b=••• c=•••');
    expect(maskSecrets('nothing here', [])).toBe('nothing here');
  });
});
