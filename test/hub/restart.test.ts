// Durability: the Hub as a real child process, SIGKILLed mid-dispatch; restarts; migrations checksums.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { ReceiptSchema } from '../../src-shared/hub-api.js';
import { createHub } from '../../src-hub/index.js';
import { DataDirLockedError } from '../../src-hub/store/data-dir-lock.js';
import { MigrationChecksumError } from '../../src-hub/store/sqlite/open.js';
import { spawnHub, type HubChild } from './child.js';
import { demoConfig, http, newInvocationId, opRequests, token } from './helpers.js';
import { sqlRows, storeFor } from './store-mode.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const demo: DemoSystems = await startDemoSystems();
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-restart-'));
  const desk = token('desk');
  const config = {
    ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
    admin_token: `admin-${randomUUID()}`,
  };
  cleanups.push(() => demo.close());
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return { demo, dataDir, desk, config };
}

async function waitFor(cond: () => boolean, what: string, ms = 15_000) {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Hub restart', () => {
  it('SIGKILL during a slow dispatch: after restart the call is unknown (not re-sent) and resume reconciles it', async () => {
    const { demo, dataDir, desk, config } = await setup();
    let child: HubChild = await spawnHub(dataDir, config);
    cleanups.push(() => void child.proc.kill('SIGKILL'));
    const search = await http(child.url, 'POST', '/agent/v1/tools/search', {
      token: desk,
      body: { query: 'update_product_content', authorization_refs: ['auth-shop-a'] },
    });
    const decl = search.body.declarations.find((d: { tool: string }) => d.tool === 'update_product_content');
    const run = await http(child.url, 'POST', '/agent/v1/runs', {
      token: desk,
      body: { agent_session_id: 's', turn_id: 't', authorization_ref: 'auth-shop-a' },
    });
    demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const id = newInvocationId();
    const pending = http(child.url, 'POST', '/agent/v1/invocations', {
      token: desk,
      body: {
        invocation_id: id,
        run_id: run.body.run_id,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, description: 'killed mid-flight' },
        host_call_id: 'c1',
      },
    }).catch((e: unknown) => e);
    await waitFor(() => demo.shopA.ledger().length === 1, 'the business commit');
    await child.kill('SIGKILL');
    await pending;

    child = await spawnHub(dataDir, config);
    const g = await http(child.url, 'GET', `/agent/v1/invocations/${id}`, { token: desk });
    const receipt = ReceiptSchema.parse(g.body);
    expect(receipt.state).toBe('unknown');
    expect(receipt.dispatch).toBe('attempted');
    expect(receipt.reconciliation.map((e) => e.source)).toContain('startup_recovery');
    expect(opRequests(demo.shopA)).toBe(1);

    const r = await http(child.url, 'POST', `/agent/v1/invocations/${id}/resume`, { token: desk });
    expect(r.body.action).toBe('reconciled');
    expect(r.body.receipt.state).toBe('succeeded');
    expect(demo.shopA.ledger()).toHaveLength(1);
    expect(opRequests(demo.shopA)).toBe(1);
    // the same invoke again sends nothing
    const again = await http(child.url, 'POST', '/agent/v1/invocations', {
      token: desk,
      body: {
        invocation_id: id,
        run_id: run.body.run_id,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, description: 'killed mid-flight' },
        host_call_id: 'c1',
      },
    });
    expect(again.status).toBe(200);
    expect(opRequests(demo.shopA)).toBe(1);
    expect(await child.kill('SIGTERM')).toBe(0);
  }, 120_000);

  it('everything survives a clean restart: receipts, pending approvals, tokens, hub id', async () => {
    const { demo, dataDir, desk, config } = await setup();
    let hub = await createHub({ ...(await storeFor(dataDir)), config });
    const hubId = hub.hubId;
    const search = await http(hub.url, 'POST', '/agent/v1/tools/search', {
      token: desk,
      body: { query: 'publish', authorization_refs: ['auth-shop-a'] },
    });
    const decl = search.body.declarations.find((d: { tool: string }) => d.tool === 'publish_listing');
    const run = await http(hub.url, 'POST', '/agent/v1/runs', {
      token: desk,
      body: { agent_session_id: 's', turn_id: 't', authorization_ref: 'auth-shop-a' },
    });
    const id = newInvocationId();
    const r = await http(hub.url, 'POST', '/agent/v1/invocations', {
      token: desk,
      body: {
        invocation_id: id,
        run_id: run.body.run_id,
        authorization_ref: 'auth-shop-a',
        tool: 'publish_listing',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, channel: 'web' },
        host_call_id: 'h',
      },
    });
    expect(r.body.state).toBe('awaiting_approval');
    await hub.close();
    hub = await createHub({ ...(await storeFor(dataDir)), config });
    cleanups.push(() => hub.close());
    expect(hub.hubId).toBe(hubId);
    const g = await http(hub.url, 'GET', `/agent/v1/invocations/${id}`, { token: desk });
    expect(g.body).toEqual(r.body);
    const approvals = await http(hub.url, 'GET', '/admin/v1/approvals?state=pending', {
      token: config.admin_token,
    });
    expect(approvals.body.approvals.map((a: { invocation_id: string }) => a.invocation_id)).toEqual([id]);
    expect(opRequests(demo.shopA)).toBe(0);
  });

  it('a clean close during a dispatch records the call unknown (aborted) before the store closes', async () => {
    const { demo, dataDir, desk, config } = await setup();
    let hub = await createHub({ ...(await storeFor(dataDir)), config });
    const search = await http(hub.url, 'POST', '/agent/v1/tools/search', {
      token: desk,
      body: { query: 'content', authorization_refs: ['auth-shop-a'] },
    });
    const decl = search.body.declarations.find((d: { tool: string }) => d.tool === 'update_product_content');
    const run = await http(hub.url, 'POST', '/agent/v1/runs', {
      token: desk,
      body: { agent_session_id: 's', turn_id: 't', authorization_ref: 'auth-shop-a' },
    });
    demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
    const id = newInvocationId();
    const pending = http(hub.url, 'POST', '/agent/v1/invocations', {
      token: desk,
      body: {
        invocation_id: id,
        run_id: run.body.run_id,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, description: 'closing' },
        host_call_id: 'h',
      },
    }).catch((e: unknown) => e);
    await waitFor(() => demo.shopA.ledger().length === 1, 'the business commit');
    await hub.close();
    await pending;
    hub = await createHub({ ...(await storeFor(dataDir)), config });
    cleanups.push(() => hub.close());
    expect(hub.recovered).toBe(0);
    const g = await http(hub.url, 'GET', `/agent/v1/invocations/${id}`, { token: desk });
    expect(g.body.state).toBe('unknown');
    expect(g.body.reason_code).toBe('no_response_aborted');
    expect(opRequests(demo.shopA)).toBe(1);
  });

  it('one serving Hub per data directory; a dead holder (SIGKILL) is taken over', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-lock-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const first = await createHub({ dataDir });
    await expect(createHub({ dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    await first.close();
    writeFileSync(join(dataDir, 'hub.pid'), '999999999');
    const second = await createHub({ dataDir });
    await second.close();
  });

  it('a changed applied migration refuses to start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hub-mig-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const hub = await createHub({ dataDir });
    await hub.close();
    const db = new Database(join(dataDir, 'hub.sqlite'));
    db.prepare("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1").run();
    db.close();
    await expect(createHub({ dataDir })).rejects.toBeInstanceOf(MigrationChecksumError);
  });

  it('tokens are stored hashed, never in clear', async () => {
    const { dataDir, desk, config } = await setup();
    const hub = await createHub({ ...(await storeFor(dataDir)), config });
    await hub.close();
    const dump = JSON.stringify([
      sqlRows(dataDir, 'SELECT * FROM clients', []),
      sqlRows(dataDir, 'SELECT * FROM meta', []),
      sqlRows(dataDir, 'SELECT * FROM audit', []),
    ]);
    expect(dump).not.toContain(desk);
    expect(dump).not.toContain(desk.split('.')[1]);
    expect(dump).not.toContain(config.admin_token);
  });
});
