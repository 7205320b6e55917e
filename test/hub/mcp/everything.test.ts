/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
// The reference server @modelcontextprotocol/server-everything governed through the Hub (stdio):
// its annotations read as hints (a read-only hint is a read, an unannotated tool a high-risk write
// that needs approval), a long-running operation with progress completing within its timeout and
// turning unknown past it; and tools/list read over every page (our own paged server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpToolListSchema } from '../../../src-shared/hub-api.js';
import { startEnv, type HubEnv } from '../helpers.js';
import { everythingServer, registerMcp, testServer } from './helpers.js';

let env: HubEnv;
let dir: string;
beforeEach(async () => {
  env = await startEnv();
  dir = mkdtempSync(join(tmpdir(), 'mcp-everything-'));
});
afterEach(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('server-everything', () => {
  it('annotations are hints: read-only is a read, the other hints shape a write', async () => {
    await registerMcp(env, 'everything', everythingServer());
    const tools = McpToolListSchema.parse(
      (await env.admin('GET', '/admin/v1/systems/everything/tools')).body,
    );
    const by = new Map(tools.tools.map((t) => [t.tool, t]));
    expect(by.get('trigger-long-running-operation')?.annotations.readOnlyHint).toBe(true);
    expect(by.get('trigger-long-running-operation')?.governed.effect).toBe('read');
    // hints as given: not read-only, not destructive, idempotent, open world
    expect(by.get('gzip-file-as-resource')?.governed).toMatchObject({
      effect: 'write',
      risk_level: 'medium',
      approval_required: false,
      idempotent: true,
    });
    expect(by.get('toggle-simulated-logging')?.governed).toMatchObject({
      effect: 'write',
      idempotent: false,
    });
    const d = await env.declaration('auth-everything', 'gzip-file-as-resource');
    expect(d).toMatchObject({ effect: 'write', side_effect: 'external', system_kind: 'mcp' });
  });

  it('a long-running operation with progress succeeds within its timeout and is unknown past it', async () => {
    await registerMcp(env, 'everything', everythingServer(), {
      overlays: { 'trigger-long-running-operation': { timeout_ms: 2_500 } },
    });
    const ok = await env.invoke({
      authRef: 'auth-everything',
      tool: 'trigger-long-running-operation',
      args: { duration: 0.2, steps: 2 },
    });
    expect(ok.body.state, ok.text).toBe('succeeded');
    expect(JSON.stringify(ok.body.result)).toContain('Long running operation completed');
    const late = await env.invoke({
      authRef: 'auth-everything',
      tool: 'trigger-long-running-operation',
      args: { duration: 6, steps: 3 },
    });
    expect(late.body.state, late.text).toBe('unknown');
    expect(late.body.reason_code).toBe('no_response_timeout');
  });

  it('a result with structured content is kept as the result', async () => {
    await registerMcp(env, 'everything', everythingServer(), {
      overlays: { 'get-sum': { effect: 'read', risk_level: 'low' } },
    });
    const r = await env.invoke({ authRef: 'auth-everything', tool: 'get-sum', args: { a: 2, b: 3 } });
    expect(r.body.state, r.text).toBe('succeeded');
    expect(JSON.stringify(r.body.result)).toContain('5');
  });
});

describe('tools/list paging', () => {
  it('reads every page; tools without annotations are high-risk writes needing approval', async () => {
    const sys = await registerMcp(env, 'paged', testServer(join(dir, 'l'), { MODE: 'paged' }));
    expect(sys.tool_count).toBe(7);
    // tools without annotations take MCP's defaults: a destructive write, high risk, approval required
    const tools = McpToolListSchema.parse((await env.admin('GET', '/admin/v1/systems/paged/tools')).body);
    expect(tools.tools.map((t) => t.tool).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `paged_${i}`));
    for (const t of tools.tools)
      expect(t.governed).toMatchObject({ effect: 'write', risk_level: 'high', approval_required: true });
  });

  it('a cursor that loops is refused with a coded error, nothing stored', async () => {
    const r = await env.admin('POST', '/admin/v1/systems', {
      kind: 'mcp',
      system_id: 'loop',
      name: 'loop',
      server: testServer(join(dir, 'l'), { MODE: 'cursor_loop' }),
    });
    expect(r.status, r.text).toBe(422);
    expect(r.body.error).toBe('mcp_tools_invalid');
    expect((await env.admin('GET', '/admin/v1/systems/loop')).status).toBe(404);
  });
});

describe('recovery from an MCP task (server-everything simulate-research-query)', () => {
  it('a task-augmented call past its timeout is unknown with its task id saved; resume reads the task and settles it', async () => {
    await registerMcp(env, 'everything', everythingServer(), {
      overlays: {
        // the research takes four stages of a second: 2.5 s is well inside it, and room for a busy machine
        'simulate-research-query': { timeout_ms: 2_500, approval: { required: false }, risk_level: 'medium' },
      },
    });
    const tools = McpToolListSchema.parse(
      (await env.admin('GET', '/admin/v1/systems/everything/tools')).body,
    );
    expect(tools.tools.find((t) => t.tool === 'simulate-research-query')?.task_support).toBe('required');
    const r = await env.invoke({
      authRef: 'auth-everything',
      tool: 'simulate-research-query',
      args: { topic: 'governed calls' },
    });
    expect(r.body.state, r.text).toBe('unknown');
    expect(r.body.reason_code).toBe('no_response_timeout');
    const id = r.body.invocation_id as string;
    const taskRow = env.sql<{ remote_task_id: string | null }>(
      'SELECT remote_task_id FROM invocations WHERE invocation_id = ?',
      id,
    );
    expect(taskRow[0]?.remote_task_id).toBeTruthy();
    // the research takes four stages of a second: ask until the task has ended
    let receipt: any;
    for (let i = 0; i < 40; i++) {
      receipt = (await env.agent('POST', `/agent/v1/invocations/${id}/resume`, {})).body.receipt;
      if (receipt.state !== 'unknown') break;
      await new Promise((res) => setTimeout(res, 250));
    }
    expect(receipt.state).toBe('succeeded');
    expect(receipt.reconciliation.at(-1)).toMatchObject({ source: 'task_status', outcome: 'succeeded' });
    expect(JSON.stringify(receipt.result)).toContain('governed calls');
  });
});
