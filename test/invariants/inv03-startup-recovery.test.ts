/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
/**
 * Invariant 3 (and 2) across a Hub crash: a Hub process SIGKILLed while a task-bound write is on
 * the wire. At restart the call is `unknown` (never succeeded, never re-sent), its in-flight slot is
 * released, the spent budget stays spent; an explicit resume reconciles it from the shop's evidence
 * without a second dispatch. Real Hub child process (node src-hub/cli.ts), real demo systems.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { spawnHub, type HubChild } from '../hub/child.js';
import { demoConfig, http, newInvocationId, token } from '../hub/helpers.js';
import { dispatchesOf, waitUntil } from './support.js';

let demo: DemoSystems;
let dataDir: string;
let child: HubChild | null = null;
const desk = token('desk');

beforeAll(async () => {
  demo = await startDemoSystems();
  dataDir = mkdtempSync(join(tmpdir(), 'inv-hub-crash-'));
}, 30_000);
afterAll(async () => {
  if (child) await child.kill('SIGKILL');
  await demo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('invariant 3: a Hub crash mid-dispatch', () => {
  it('unknown after restart, in-flight slot released, budget not replenished, reconciled without a resend', async () => {
    const config = demoConfig(demo, [{ client_id: 'desk', token: desk }]);
    child = await spawnHub(dataDir, config);
    const api = (m: string, p: string, body?: unknown) => http<any>(child!.url, m, p, { token: desk, body });

    const task = (
      await api('POST', '/agent/v1/tasks', {
        title: 'crash',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 2,
        in_flight_limit: 1,
      })
    ).body;
    const search = await api('POST', '/agent/v1/tools/search', {
      query: 'update_product_content',
      authorization_refs: ['auth-shop-a'],
      limit: 50,
    });
    const decl = (search.body.declarations as any[]).find((d) => d.tool === 'update_product_content');
    const invoke = async (id: string, description: string) => {
      const run = (
        await api('POST', '/agent/v1/runs', {
          agent_session_id: 's',
          turn_id: `t-${id}`,
          authorization_ref: 'auth-shop-a',
        })
      ).body.run_id as string;
      return api('POST', '/agent/v1/invocations', {
        invocation_id: id,
        run_id: run,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, description },
        host_call_id: `c-${id}`,
        task_id: task.task_id,
      });
    };

    demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const lost = newInvocationId();
    const pending = invoke(lost, 'on the wire at the crash').catch((e: unknown) => e);
    await waitUntil(() => dispatchesOf(demo.shopA, lost) === 1, 'the write to reach the shop', 20_000);
    await child.kill('SIGKILL');
    await pending;

    child = await spawnHub(dataDir, config);
    const r = (await api('GET', `/agent/v1/invocations/${lost}`)).body;
    expect(r).toMatchObject({ state: 'unknown', reason_code: 'hub_restarted', dispatch: 'attempted' });
    const view = (await api('GET', `/agent/v1/tasks/${task.task_id}`)).body;
    expect(view).toMatchObject({ writes_used: 1, writes_left: 1, in_flight: 0 });

    expect((await invoke(newInvocationId(), 'the freed slot')).body.state).toBe('succeeded');
    expect((await invoke(newInvocationId(), 'over budget')).body.reason_code).toBe('budget_exhausted');

    const resumed = (await api('POST', `/agent/v1/invocations/${lost}/resume`)).body;
    expect(resumed).toMatchObject({ action: 'reconciled', receipt: { state: 'succeeded' } });
    expect(dispatchesOf(demo.shopA, lost)).toBe(1);
  }, 60_000);
});
