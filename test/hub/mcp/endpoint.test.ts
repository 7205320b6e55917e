// The Hub as an MCP server (/mcp): the MCP SDK's own client lists the governed tools (paged, with
// annotations from the declarations) and calls them; a call that needs approval comes back
// awaiting approval and is not executed; the same _meta idempotency key twice is one invocation;
// a paused task refuses with task_paused; bailing_inspect and bailing_resume expose recovery.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INVOCATION_ID_PATTERN } from '../../../src-shared/invocation-id.js';
import { http, newInvocationId, startEnv, type HubEnv } from '../helpers.js';

const KEY = 'dev.bailingdesk/idempotency_key';
const TASK = 'dev.bailingdesk/task_id';

let env: HubEnv;
let client: Client;
beforeEach(async () => {
  env = await startEnv({ settings: { mcpEndpointPageSize: 5 } });
  client = new Client({ name: 'endpoint-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.hub.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.desk}` } },
    }),
  );
});
afterEach(async () => {
  await client.close();
  await env.close();
});

async function allTools(): Promise<{ tools: Tool[]; pages: number }> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  return { tools, pages };
}

const call = async (name: string, args: Record<string, unknown>, meta: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args, _meta: meta })) as CallToolResult & {
    structuredContent: Record<string, unknown>;
  };

/** The run an invocation was made in, as its client sees it. */
async function runOf(invocationId: string): Promise<Record<string, unknown>> {
  const inv = await env.agent('GET', `/agent/v1/invocations/${invocationId}`);
  expect(inv.status, inv.text).toBe(200);
  const run = await env.agent('GET', `/agent/v1/runs/${String(inv.body.run_id)}`);
  expect(run.status, run.text).toBe(200);
  return run.body;
}

describe('the Hub as an MCP server', () => {
  it('lists the client’s governed tools over pages, with annotations derived from the declarations', async () => {
    const { tools, pages } = await allTools();
    expect(pages).toBeGreaterThan(1);
    const names = tools.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('bailing_inspect');
    expect(names).toContain('bailing_resume');
    // both shops declare update_product_content: named by authorization
    const update = tools.find((t) => t.name === 'auth-shop-a.update_product_content');
    expect(update, names.join(', ')).toBeDefined();
    expect(update!.annotations).toMatchObject({ readOnlyHint: false });
    const stock = tools.find((t) => t.name === 'get_stock');
    expect(stock?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(stock?.inputSchema.type).toBe('object');
  });

  it('calls a governed write once; the same idempotency key again is the same invocation, not a second write', async () => {
    const key = newInvocationId();
    const args = { product_id: 42, description: 'from an MCP client' };
    const first = await call('auth-shop-a.update_product_content', args, { [KEY]: key });
    expect(first.isError, JSON.stringify(first)).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ state: 'succeeded', invocation_id: key });
    const again = await call('auth-shop-a.update_product_content', args, { [KEY]: key });
    expect(again.structuredContent).toMatchObject({ state: 'succeeded', invocation_id: key, replayed: true });
    expect(env.demo.shopA.ledger()).toHaveLength(1);
    expect(env.demo.shopA.ledger()[0]?.idempotency_key).toBe(key);
  });

  it('the same idempotency key on two requests at once is one invocation and one write, both answered with it', async () => {
    const args = { product_id: 42, description: 'raced' };
    for (let round = 0; round < 6; round++) {
      const key = newInvocationId();
      const both = await Promise.all([
        call('auth-shop-a.update_product_content', args, { [KEY]: key }),
        call('auth-shop-a.update_product_content', args, { [KEY]: key }),
      ]);
      const created = both.filter((r) => r.structuredContent.replayed === false);
      expect(created, JSON.stringify(both)).toHaveLength(1);
      expect(created[0]?.structuredContent).toMatchObject({ state: 'succeeded', invocation_id: key });
      // the other is the same invocation, answered as it stood: still being sent, or done
      const replayed = both.find((r) => r.structuredContent.replayed === true);
      expect(replayed?.structuredContent.invocation_id, JSON.stringify(both)).toBe(key);
      expect(['dispatching', 'succeeded']).toContain(replayed?.structuredContent.state);
      expect(env.demo.shopA.ledger().filter((w) => w.idempotency_key === key)).toHaveLength(1);
    }
  });

  it('each call’s run ends with the call', async () => {
    const done = await call('get_stock', { sku: 'SKU-A-0007' });
    expect(done.structuredContent.state).toBe('succeeded');
    expect(await runOf(done.structuredContent.invocation_id as string)).toMatchObject({ state: 'ended' });
  });

  it('a call that needs approval comes back awaiting approval and is not executed; approve + bailing_resume runs it once', async () => {
    const r = await call('auth-shop-a.publish_listing', { product_id: 42, channel: 'web' });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toMatchObject({ state: 'awaiting_approval' });
    expect(String(r.structuredContent.message)).toContain('approval');
    expect(env.demo.shopA.ledger()).toHaveLength(0);
    const id = r.structuredContent.invocation_id as string;
    // no idempotency key in _meta: the Hub makes the id, time-ordered like the desk's
    expect(id).toMatch(INVOCATION_ID_PATTERN);
    // its run ended with the call: approving and resuming need the invocation, not an open run
    expect(await runOf(id)).toMatchObject({ state: 'ended' });
    const approvalId = r.structuredContent.approval_id as string;
    const d = await env.admin('POST', `/admin/v1/approvals/${approvalId}/decision`, {
      decision_id: `d-${approvalId}`,
      decision: 'approve',
    });
    expect(d.status, d.text).toBe(200);
    const inspected = await call('bailing_inspect', { invocation_id: id });
    expect(inspected.structuredContent).toMatchObject({ state: 'approved' });
    expect(env.demo.shopA.ledger()).toHaveLength(0);
    const resumed = await call('bailing_resume', { invocation_id: id });
    expect(resumed.structuredContent).toMatchObject({ state: 'succeeded', action: 'dispatched' });
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('a task in _meta binds the call; a paused task refuses it with task_paused', async () => {
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'mcp task',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 5,
      in_flight_limit: 1,
    });
    const taskId = task.body.task_id as string;
    const ok = await call(
      'auth-shop-a.update_product_content',
      { product_id: 42, description: 'a' },
      { [TASK]: taskId },
    );
    expect(ok.structuredContent).toMatchObject({ state: 'succeeded', task_id: taskId });
    expect((await env.agent('POST', `/agent/v1/tasks/${taskId}/pause`, {})).status).toBe(200);
    const refused = await call(
      'auth-shop-a.update_product_content',
      { product_id: 42, description: 'b' },
      { [TASK]: taskId },
    );
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ state: 'not_dispatched', reason_code: 'task_paused' });
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('refusals and bad input are coded results, never a success', async () => {
    const unknownTask = await call('get_stock', { sku: 'SKU-1' }, { [TASK]: 'task_nope' });
    expect(unknownTask.structuredContent).toMatchObject({ state: 'refused', reason_code: 'task_not_found' });
    const badKey = await call('get_stock', { sku: 'SKU-1' }, { [KEY]: 'short' });
    expect(badKey.structuredContent).toMatchObject({ state: 'refused', reason_code: 'invalid_request' });
    const badArgs = await call('get_stock', { nope: true });
    expect(badArgs.isError).toBe(true);
    expect(badArgs.structuredContent).toMatchObject({
      state: 'not_dispatched',
      reason_code: 'arguments_invalid',
    });
    await expect(call('no_such_tool', {})).rejects.toThrow();
    const notMine = await call('bailing_inspect', { invocation_id: 'inv_does_not_exist' });
    expect(notMine.structuredContent).toMatchObject({ reason_code: 'invocation_not_found' });
  });

  it('needs a client token: none or the admin token is refused with the Hub’s coded envelope', async () => {
    const none = await http(env.hub.url, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('unauthorized');
    const admin = await http(env.hub.url, 'POST', '/mcp', {
      token: env.adminToken,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(admin.status).toBe(403);
  });
});
