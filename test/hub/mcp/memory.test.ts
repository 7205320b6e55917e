// The reference memory server (@modelcontextprotocol/server-memory) governed through the Hub: its
// tools compiled into declarations, a governed write landing exactly once in its graph, a read that
// spends no write budget, and an operator overlay giving new declaration revisions.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpToolListSchema, SystemSchema } from '../../../src-shared/hub-api.js';
import { startEnv, type HubEnv } from '../helpers.js';
import { memoryServer, registerMcp } from './helpers.js';

let env: HubEnv;
let dir: string;
let graphFile: string;
beforeEach(async () => {
  env = await startEnv();
  dir = mkdtempSync(join(tmpdir(), 'mcp-memory-'));
  graphFile = join(dir, 'graph.jsonl');
  await registerMcp(env, 'memory', memoryServer(graphFile));
});
afterEach(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

const graph = () =>
  (existsSync(graphFile) ? readFileSync(graphFile, 'utf8') : '')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; name?: string });

describe('server-memory as a business system', () => {
  it('is an mcp system whose tools are declarations governed from their annotations', async () => {
    const sys = SystemSchema.parse((await env.admin('GET', '/admin/v1/systems/memory')).body);
    expect(sys.kind).toBe('mcp');
    expect(sys.mcp?.transport).toBe('stdio');
    expect(sys.mcp?.connection).toBe('connected');
    expect(sys.mcp?.server_info?.name).toBe('memory-server');
    expect(sys.tool_count).toBeGreaterThanOrEqual(9);

    const tools = McpToolListSchema.parse((await env.admin('GET', '/admin/v1/systems/memory/tools')).body);
    const by = new Map(tools.tools.map((t) => [t.tool, t]));
    expect(by.get('read_graph')?.governed).toMatchObject({
      effect: 'read',
      risk_level: 'low',
      approval_required: false,
    });
    // readOnlyHint false, destructiveHint false: a write of medium risk
    expect(by.get('create_entities')?.governed).toMatchObject({ effect: 'write', risk_level: 'medium' });
    // destructiveHint true: high risk, approval required
    expect(by.get('delete_entities')?.governed).toMatchObject({
      effect: 'write',
      risk_level: 'high',
      approval_required: true,
    });

    const d = await env.declaration('auth-memory', 'create_entities');
    expect(d.system_kind).toBe('mcp');
    expect(d.effect).toBe('write');
    expect(d.input_schema).toMatchObject({ type: 'object', properties: { entities: { type: 'array' } } });
  });

  it('lands a governed write exactly once in the graph; a read spends no write budget', async () => {
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'memory',
      authorizations: [{ authorization_ref: 'auth-memory', tools: ['create_entities', 'read_graph'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    expect(task.status).toBe(201);
    const taskId = task.body.task_id as string;
    const created = await env.invoke({
      authRef: 'auth-memory',
      tool: 'create_entities',
      taskId,
      args: { entities: [{ name: 'Widget', entityType: 'product', observations: ['blue'] }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.state).toBe('succeeded');
    expect(graph().filter((e) => e.type === 'entity' && e.name === 'Widget')).toHaveLength(1);

    const read = await env.invoke({ authRef: 'auth-memory', tool: 'read_graph', taskId, args: {} });
    expect(read.body.state).toBe('succeeded');
    expect(JSON.stringify(read.body.result)).toContain('Widget');
    const view = (await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body;
    expect(view.writes_used).toBe(1);

    // the budget is spent: a second write is refused and never reaches the server
    const again = await env.invoke({
      authRef: 'auth-memory',
      tool: 'create_entities',
      taskId,
      args: { entities: [{ name: 'Gadget', entityType: 'product', observations: [] }] },
    });
    expect(again.body.state).toBe('not_dispatched');
    expect(graph().some((e) => e.name === 'Gadget')).toBe(false);
  });

  it('an overlay changes the governance and the declaration revision; approval holds the write back', async () => {
    const before = await env.declaration('auth-memory', 'create_entities');
    const put = await env.admin('POST', '/admin/v1/systems/memory/tools/create_entities/overlay', {
      approval: { required: true, prompt: 'Create entities?' },
      risk_level: 'high',
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body.governed).toMatchObject({ approval_required: true, risk_level: 'high' });
    const after = await env.declaration('auth-memory', 'create_entities');
    expect(after.declaration_revision).not.toBe(before.declaration_revision);
    expect(after.approval.required).toBe(true);

    const held = await env.invoke({
      authRef: 'auth-memory',
      tool: 'create_entities',
      args: { entities: [{ name: 'Held', entityType: 'product', observations: [] }] },
    });
    expect(held.body.state).toBe('awaiting_approval');
    expect(graph().some((e) => e.name === 'Held')).toBe(false);
    // approving executes nothing; resume sends it once
    const approvalId = held.body.approval.approval_id as string;
    const decided = await env.admin('POST', `/admin/v1/approvals/${approvalId}/decision`, {
      decision_id: `d-${approvalId}`,
      decision: 'approve',
    });
    expect(decided.status, decided.text).toBe(200);
    expect(graph().some((e) => e.name === 'Held')).toBe(false);
    const resumed = await env.agent('POST', `/agent/v1/invocations/${held.body.invocation_id}/resume`, {});
    expect(resumed.body.receipt.state, resumed.text).toBe('succeeded');
    await env.agent('POST', `/agent/v1/invocations/${held.body.invocation_id}/resume`, {});
    expect(graph().filter((e) => e.name === 'Held')).toHaveLength(1);

    // clearing the overlay goes back to the annotations
    const del = await env.admin('POST', '/admin/v1/systems/memory/tools/create_entities/overlay/clear', {});
    expect(del.status, del.text).toBe(200);
    expect(del.body.overlay).toBeNull();
    expect((await env.declaration('auth-memory', 'create_entities')).declaration_revision).toBe(
      before.declaration_revision,
    );
  });

  it('the overlay decides what spends write budget: a read-only overlay spends none, a write overlay on a read-hinted tool does', async () => {
    const read = await env.admin('POST', '/admin/v1/systems/memory/tools/read_graph/overlay', {
      effect: 'read',
      risk_level: 'low',
    });
    expect(read.status, read.text).toBe(200);
    // the operator does not trust search_nodes' readOnlyHint: governed as a write
    const write = await env.admin('POST', '/admin/v1/systems/memory/tools/search_nodes/overlay', {
      effect: 'write',
      risk_level: 'low',
    });
    expect(write.status, write.text).toBe(200);
    expect((await env.declaration('auth-memory', 'read_graph')).effect).toBe('read');
    expect((await env.declaration('auth-memory', 'search_nodes')).effect).toBe('write');
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'reads and one write',
      authorizations: [{ authorization_ref: 'auth-memory', tools: ['read_graph', 'search_nodes'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    const taskId = task.body.task_id as string;
    for (let i = 0; i < 3; i++) {
      const r = await env.invoke({ authRef: 'auth-memory', tool: 'read_graph', taskId, args: {} });
      expect(r.body.state, r.text).toBe('succeeded');
    }
    expect((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body.writes_used).toBe(0);
    const s1 = await env.invoke({
      authRef: 'auth-memory',
      tool: 'search_nodes',
      taskId,
      args: { query: 'a' },
    });
    expect(s1.body.state, s1.text).toBe('succeeded');
    const s2 = await env.invoke({
      authRef: 'auth-memory',
      tool: 'search_nodes',
      taskId,
      args: { query: 'b' },
    });
    expect(s2.body).toMatchObject({ state: 'not_dispatched', reason_code: 'budget_exhausted' });
    expect((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body.writes_used).toBe(1);
  });
});
