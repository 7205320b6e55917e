/**
 * A real Hub (in-process, temp data dir, real SQLite) and the real demo business systems, wired
 * together through the Hub's admin API by this project's own admin client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHub, type Hub } from '../../../src-hub/index.js';
import { DEMO_CONFIG, startDemoSystems, type DemoSystems } from '../../../demo/index.js';
import {
  createHubAdminClient,
  createHubClient,
  type HubAdminClient,
  type HubClient,
} from '../../../src-main/hub-client/index.js';

export interface HubEnv {
  hub: Hub;
  systems: DemoSystems;
  admin: HubAdminClient;
  client: HubClient;
  clientId: string;
  clientToken: string;
  adminToken: string;
  dataDir: string;
  refs: { shopA: string; shopB: string; inventory: string };
  /** Counters of this client at the Hub (invokes, resumes, dispatches, requests). */
  metrics(): Promise<{
    invokes: number;
    resumes: number;
    dispatches: number;
    requests_total: number;
    requests: Record<string, number>;
  }>;
  restartHub(): Promise<void>;
  stopHub(): Promise<void>;
  /** Starts the Hub again on the same port over the (possibly replaced) data directory. */
  startHub(): Promise<void>;
  close(): Promise<void>;
}

export async function startHubEnv(): Promise<HubEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bailing-host-hub-'));
  const adminToken = `admin-${Math.random().toString(36).slice(2)}-${Date.now()}-token`;
  const systems = await startDemoSystems();
  let hub: Hub = await createHub({ dataDir, adminToken });
  const admin = createHubAdminClient({ baseUrl: hub.url, token: adminToken });
  const secrets: Record<string, { url: string; secret: string }> = {
    'shop-a': { url: systems.shopA.url, secret: systems.shopA.secret },
    'shop-b': { url: systems.shopB.url, secret: systems.shopB.secret },
    inventory: { url: systems.inventory.url, secret: systems.inventory.secret },
  };
  for (const s of DEMO_CONFIG.systems) {
    await admin.registerSystem({
      system_id: s.system_id,
      name: s.name,
      base_url: secrets[s.system_id]!.url,
      signing_secret: secrets[s.system_id]!.secret,
    });
  }
  const created = await admin.createClient({ name: 'bailing-desk-test' });
  for (const s of DEMO_CONFIG.systems) {
    await admin.createAuthorization({
      system_id: s.system_id,
      account: s.account,
      on_behalf_of: DEMO_CONFIG.on_behalf_of,
      authorization_ref: s.authorization_ref,
    });
    await admin.grantAuthorization(s.authorization_ref, created.client_id);
  }
  const client = createHubClient({ baseUrl: hub.url, token: created.token, hubId: hub.hubId });
  const env: HubEnv = {
    hub,
    systems,
    admin,
    client,
    clientId: created.client_id,
    clientToken: created.token,
    adminToken,
    dataDir,
    refs: { shopA: 'auth-shop-a', shopB: 'auth-shop-b', inventory: 'auth-inventory' },
    async metrics() {
      const m = (await env.admin.metrics()) as {
        clients?: Record<
          string,
          {
            invokes: number;
            resumes: number;
            dispatches: number;
            requests_total: number;
            requests: Record<string, number>;
          }
        >;
      };
      return (
        m.clients?.[created.client_id] ?? {
          invokes: 0,
          resumes: 0,
          dispatches: 0,
          requests_total: 0,
          requests: {},
        }
      );
    },
    async restartHub() {
      await env.stopHub();
      await env.startHub();
    },
    async stopHub() {
      await hub.close();
    },
    async startHub() {
      hub = await createHub({ dataDir, adminToken, port: hub.port });
      env.hub = hub;
    },
    async close() {
      await hub.close().catch(() => undefined);
      await systems.close().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return env;
}
