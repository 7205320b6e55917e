// A Hub child process SIGKILLed mid-task keeps the spent budget, the pause and the permits; the
// operator CLI works over the same store while the Hub runs.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoSystems } from '../../demo/index.js';
import { ApprovalSchema, TaskViewSchema } from '../../src-shared/hub-api.js';
import { spawnHub, type HubChild } from './child.js';
import { demoConfig, http, newInvocationId, token } from './helpers.js';
import { cliStoreArgsFor } from './store-mode.js';
import { hubCliArgv } from '../support/hub-cli.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const cli = (...args: string[]) => run(process.execPath, [...hubCliArgv(), ...args], { cwd: root });

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('tasks across a Hub crash', () => {
  it('SIGKILL mid-task: spent budget unchanged, paused stays paused, the in-flight call is unknown and its slot freed', async () => {
    const demo = await startDemoSystems();
    cleanups.push(() => demo.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-task-kill-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const desk = token('desk');
    const config = {
      ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
      admin_token: `admin-${randomUUID()}`,
    };
    let child: HubChild = await spawnHub(dataDir, config);
    cleanups.push(() => void child.proc.kill('SIGKILL'));
    const api = (m: string, p: string, body?: unknown) => http(child.url, m, p, { token: desk, body });

    const task = await api('POST', '/agent/v1/tasks', {
      title: 'crash',
      authorizations: [
        { authorization_ref: 'auth-shop-a', tools: ['update_product_content', 'publish_listing'] },
      ],
      write_budget: 5,
      in_flight_limit: 2,
    });
    const taskId = task.body.task_id as string;
    const search = await api('POST', '/agent/v1/tools/search', {
      query: 'product',
      authorization_refs: ['auth-shop-a'],
      limit: 50,
    });
    const rev = (tool: string) =>
      search.body.declarations.find((d: { tool: string }) => d.tool === tool).declaration_revision;
    const runId = (
      await api('POST', '/agent/v1/runs', {
        agent_session_id: 's',
        turn_id: 't',
        authorization_ref: 'auth-shop-a',
      })
    ).body.run_id;
    const call = (tool: string, args: Record<string, unknown>) =>
      api('POST', '/agent/v1/invocations', {
        invocation_id: newInvocationId(),
        run_id: runId,
        authorization_ref: 'auth-shop-a',
        tool,
        declaration_revision: rev(tool),
        arguments: args,
        host_call_id: 'h',
        task_id: taskId,
      });

    const one = await call('update_product_content', { product_id: 42, description: 'one' });
    expect(one.body.state, one.text).toBe('succeeded');
    const two = await call('update_product_content', { product_id: 13, description: 'two' });
    expect(two.body.state, two.text).toBe('succeeded');
    const pendingApproval = await call('publish_listing', { product_id: 42, channel: 'web' });
    expect(pendingApproval.body.state).toBe('awaiting_approval');
    demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const hanging = call('update_product_content', { product_id: 7, description: 'three' }).catch(
      (e: unknown) => e,
    );
    const until = Date.now() + 15_000;
    while (demo.shopA.ledger().length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const paused = await api('POST', `/agent/v1/tasks/${taskId}/pause`);
    expect(paused.body.state).toBe('paused');
    expect(paused.body.in_flight).toBe(1);
    await child.kill('SIGKILL');
    await hanging;

    child = await spawnHub(dataDir, config);
    const v = TaskViewSchema.parse((await api('GET', `/agent/v1/tasks/${taskId}`)).body);
    expect(v.state).toBe('paused');
    expect(v.writes_used).toBe(3);
    expect(v.permits_granted).toBe(3);
    expect(v.in_flight).toBe(0);
    expect(v.counts.unknown).toBe(1);
    expect(v.unresolved.map((u) => u.state).sort()).toEqual(['awaiting_approval', 'unknown']);
    expect(demo.shopA.ledger()).toHaveLength(3);

    // operator CLI over the same store while the Hub runs
    const store = await cliStoreArgsFor(dataDir);
    const listed = JSON.parse((await cli('list-approvals', ...store, '--state', 'pending')).stdout);
    expect(listed.approvals).toHaveLength(1);
    const approved = ApprovalSchema.parse(
      JSON.parse((await cli('approve', listed.approvals[0].approval_id, ...store)).stdout),
    );
    expect(approved.state).toBe('approved');
    const seen = await api('GET', `/agent/v1/invocations/${pendingApproval.body.invocation_id}`);
    expect(seen.body.state).toBe('approved');
    expect(JSON.parse((await cli('list-tasks', ...store)).stdout).tasks[0].state).toBe('paused');
    const cancelled = JSON.parse((await cli('cancel-task', taskId, ...store)).stdout);
    expect(cancelled.state).toBe('cancelled');
    const resumed = await api('POST', `/agent/v1/invocations/${pendingApproval.body.invocation_id}/resume`);
    expect(resumed.body.action).toBe('refused');
    expect(resumed.body.receipt.reason_code).toBe('task_cancelled');
    const created = JSON.parse((await cli('create-client', '--name', 'second desk', ...store)).stdout);
    expect(created.token).toMatch(/^bdc_/);
    const asNew = await http(child.url, 'GET', '/agent/v1/authorizations', { token: created.token });
    expect(asNew.status).toBe(200);
    expect(asNew.body.authorizations).toEqual([]);
    await expect(cli('approve', 'apr_missing', ...store)).rejects.toMatchObject({
      stderr: expect.stringContaining('approval_not_found'),
    });
    expect(demo.shopA.ledger()).toHaveLength(3);
  }, 180_000);
});
