// The store named in the config file alone: `store.url`, `instance_id` and `lease_ms` from the
// file start a Hub on PostgreSQL (no --store, no --data), and the operator CLI finds the same
// database through the same file (`--config`). The environment variable BAILING_HUB_STORE_URL
// does the same for a CLI given no store at all.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { startDemoSystems } from '../../demo/index.js';
import { TaskViewSchema } from '../../src-shared/hub-api.js';
import { demoConfig, http, token } from '../hub/helpers.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { spawnHubProcess } from './hub-process.js';
import { hubCliArgv } from '../support/hub-cli.js';

const run = promisify(execFile);
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describeOnPostgres('the store from the config file', () => {
  it('store.url, instance_id and lease_ms in the config start a PostgreSQL Hub; the CLI reaches it through the same file', async () => {
    const demo = await startDemoSystems();
    cleanups.push(() => demo.close());
    const storeUrl = await createTestDatabase();
    const workDir = mkdtempSync(join(tmpdir(), 'hub-config-store-'));
    cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
    const desk = token('desk');
    const config = {
      ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
      admin_token: `admin-${randomUUID()}`,
      store: { url: storeUrl, pool_size: 3 },
      instance_id: 'from-config',
      lease_ms: 4_000,
    };
    const hub = await spawnHubProcess(workDir, 'config-store', [], config);
    cleanups.push(async () => void (await hub.kill('SIGKILL')));
    const listening = hub
      .output()
      .split('\n')
      .map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : {}))
      .find((l) => l.msg === 'hub listening')!;
    expect(listening.instance_id).toBe('from-config');
    expect(String(listening.durability)).toMatch(/^PostgreSQL /);

    const db = new pg.Client({ connectionString: storeUrl });
    await db.connect();
    cleanups.push(() => db.end());
    const lease = async () =>
      (
        await db.query<{ instance_id: string; left: string }>(
          `SELECT instance_id, lease_expires_at_ms - (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT AS left
             FROM hub_instances`,
        )
      ).rows;
    const [registered] = await lease();
    expect(registered?.instance_id).toBe('from-config');
    // the lease is the configured 4 s (renewed every third of it), not the 15 s default
    expect(Number(registered?.left)).toBeLessThanOrEqual(4_000);

    const task = await http(hub.url, 'POST', '/agent/v1/tasks', {
      token: desk,
      body: {
        title: 'configured store',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 3,
        in_flight_limit: 1,
      },
    });
    expect(task.status).toBe(201);

    // the operator CLI: the same file names the same database
    const configPath = join(workDir, 'config-store.json');
    const [cli] = hubCliArgv() as [string];
    const listed = JSON.parse(
      (await run(process.execPath, [cli, 'list-tasks', '--config', configPath])).stdout,
    ) as { tasks: unknown[] };
    expect(listed.tasks.map((t) => TaskViewSchema.parse(t).task_id)).toEqual([task.body.task_id]);
    const paused = TaskViewSchema.parse(
      JSON.parse(
        (await run(process.execPath, [cli, 'pause-task', task.body.task_id, '--config', configPath])).stdout,
      ),
    );
    expect(paused.state).toBe('paused');
    expect(
      (await http(hub.url, 'GET', `/agent/v1/tasks/${task.body.task_id}`, { token: desk })).body.state,
    ).toBe('paused');

    // or the environment variable, for a CLI given no store flag and no file
    const bare = join(workDir, 'empty.json');
    writeFileSync(bare, '{}');
    const viaEnv = JSON.parse(
      (
        await run(process.execPath, [cli, 'list-tasks'], {
          env: { ...process.env, BAILING_HUB_STORE_URL: storeUrl },
        })
      ).stdout,
    ) as { tasks: Array<{ state: string }> };
    expect(viaEnv.tasks.map((t) => t.state)).toEqual(['paused']);
    // without any store the CLI refuses, naming what it needs
    await expect(run(process.execPath, [cli, 'list-tasks', '--config', bare])).rejects.toMatchObject({
      stderr: expect.stringContaining('--data DIR or --store'),
    });
  });
});
