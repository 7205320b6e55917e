// Retiring an MCP server (the reference memory server, @modelcontextprotocol/server-memory): its
// stdio process exits, its tools leave the agent API's search and the Hub's own /mcp tool list,
// calls are refused with system_retired, the admin list keeps it with retired_at; retired from
// another process on the same store (a sibling Hub, the operator CLI), the serving Hub stops its
// process too; registering it again starts it again (and tells its grantees). Runs on SQLite and PostgreSQL.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  HubErrorBodySchema,
  McpToolListSchema,
  SystemSchema,
  type Declaration,
} from '../../../src-shared/hub-api.js';
import { startEnv, type HubEnv } from '../helpers.js';
import { openStoreFor } from '../store-mode.js';
import { memoryServer, registerMcp } from './helpers.js';

let env: HubEnv;
let dir: string;
let graphFile: string;
beforeEach(async () => {
  env = await startEnv();
  dir = mkdtempSync(join(tmpdir(), 'mcp-retire-'));
  graphFile = join(dir, 'graph.jsonl');
  await registerMcp(env, 'memory', memoryServer(graphFile));
});
afterEach(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
};

/** Waits (bounded) for the process to be gone: exiting is asynchronous after the pipe closes. */
async function exited(pid: number, withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return !alive(pid);
}

async function endpointToolNames(): Promise<string[]> {
  const client = new Client({ name: 'retire-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.hub.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.desk}` } },
    }),
  );
  try {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return names;
  } finally {
    await client.close();
  }
}

const memoryTools = async () => {
  const r = await env.agent('POST', '/agent/v1/tools/search', {
    query: '',
    authorization_refs: ['auth-memory'],
    limit: 50,
  });
  return (r.body.declarations as Declaration[]).map((d) => d.tool);
};

describe('retiring an MCP server', () => {
  it('stops its stdio process, takes its tools out of every catalogue and refuses calls; registering again starts it again', async () => {
    const pid = env.hub.ctx.mcp!.pid('memory');
    expect(pid).not.toBeNull();
    expect(alive(pid!)).toBe(true);
    expect(await memoryTools()).toContain('read_graph');
    expect(await endpointToolNames()).toContain('read_graph');
    const d = await env.declaration('auth-memory', 'read_graph');
    const runId = await env.run('auth-memory');

    const r = await env.admin('POST', '/admin/v1/systems/memory/retire');
    expect(r.status, r.text).toBe(200);
    const view = SystemSchema.parse(r.body);
    expect(view.retired_at).not.toBeNull();
    // the retire answered once the connection was closed; the process exits right after
    expect(await exited(pid!, 10_000)).toBe(true);
    expect(env.hub.ctx.mcp!.pid('memory')).toBeNull();

    expect(await memoryTools()).toEqual([]);
    expect(await endpointToolNames()).not.toContain('read_graph');
    const refused = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: `inv_${Date.now()}_retired`,
      run_id: runId,
      authorization_ref: 'auth-memory',
      tool: 'read_graph',
      declaration_revision: d.declaration_revision,
      arguments: {},
      host_call_id: 'call-retired',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('system_retired');
    const listed = (await env.admin('GET', '/admin/v1/systems')).body.systems.map((s: unknown) =>
      SystemSchema.parse(s),
    );
    expect(listed.find((s: { system_id: string }) => s.system_id === 'memory')?.retired_at).toBe(
      view.retired_at,
    );
    // no process is started again behind the operator's back
    await sleep(1500);
    expect(env.hub.ctx.mcp!.pid('memory')).toBeNull();

    const registered = await env.admin('POST', '/admin/v1/systems', {
      kind: 'mcp',
      system_id: 'memory',
      name: 'MCP memory',
      server: memoryServer(graphFile),
    });
    expect(registered.status, registered.text).toBe(201);
    expect(SystemSchema.parse(registered.body).retired_at).toBeNull();
    const again = env.hub.ctx.mcp!.pid('memory');
    expect(again).not.toBeNull();
    expect(again).not.toBe(pid);
    expect(await memoryTools()).toContain('read_graph');
    // each grantee was told of the retire, then of the revive (the view's system_retired_at cleared)
    const notices = env
      .sql<{ client_id: string; payload_json: string }>(
        "SELECT client_id, payload_json FROM events WHERE type = 'authorization.changed' ORDER BY seq",
      )
      .map((e) => ({
        client: e.client_id,
        retiredAt: (JSON.parse(e.payload_json) as { authorization: { system_retired_at: string | null } })
          .authorization.system_retired_at,
      }));
    expect(notices.filter((n) => n.client === 'desk').map((n) => n.retiredAt)).toEqual([
      view.retired_at,
      null,
    ]);
  });

  it('its overlays are frozen: setting or clearing one is refused 409 system_retired with nothing stored, a refresh too; reading its tools stays allowed', async () => {
    const set = await env.admin('POST', '/admin/v1/systems/memory/tools/create_entities/overlay', {
      risk_level: 'high',
    });
    expect(set.status, set.text).toBe(200);
    expect((await env.admin('POST', '/admin/v1/systems/memory/retire')).status).toBe(200);
    const stored = () =>
      env.sql<{ overlays: string; spec: string }>(
        "SELECT mcp_overlays_json AS overlays, spec_revision AS spec FROM systems WHERE system_id = 'memory'",
      );
    const ops = () =>
      env.sql("SELECT tool, declaration_revision FROM operations WHERE system_id = 'memory' AND current = 1");
    const audits = () => Number(env.sql<{ n: number }>('SELECT COUNT(*) AS n FROM audit')[0]!.n);
    const before = { stored: stored(), ops: ops(), audits: audits() };

    for (const [path, body] of [
      ['/admin/v1/systems/memory/tools/read_graph/overlay', { enabled: false }],
      ['/admin/v1/systems/memory/tools/create_entities/overlay/clear', undefined],
      ['/admin/v1/systems/memory/refresh', undefined],
    ] as const) {
      const r = await env.admin('POST', path, body);
      expect(r.status, `${path}: ${r.text}`).toBe(409);
      expect(HubErrorBodySchema.parse(r.body).error).toBe('system_retired');
    }
    expect({ stored: stored(), ops: ops(), audits: audits() }).toEqual(before);

    const tools = await env.admin('GET', '/admin/v1/systems/memory/tools');
    expect(tools.status, tools.text).toBe(200);
    const kept = McpToolListSchema.parse(tools.body).tools.find((t) => t.tool === 'create_entities');
    expect(kept?.overlay).toEqual({ risk_level: 'high' });
  });

  it('retired by another process on the same store (a sibling Hub, the operator CLI), the serving Hub stops its process within its sweep', async () => {
    const pid = env.hub.ctx.mcp!.pid('memory')!;
    expect(alive(pid)).toBe(true);
    const other = await openStoreFor(env.dataDir);
    try {
      const r = await other.retireSystem('memory', new Date().toISOString(), {
        actor: 'operator:test',
        kind: 'system.retired',
        detail: { system_id: 'memory' },
      });
      expect(r.kind).toBe('retired');
    } finally {
      await other.close();
    }
    // the supervisor reads the store every 5 s
    expect(await exited(pid, 15_000)).toBe(true);
    expect(env.hub.ctx.mcp!.pid('memory')).toBeNull();
    expect(await memoryTools()).toEqual([]);
  });
});
