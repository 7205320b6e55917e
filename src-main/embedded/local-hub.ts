/**
 * The embedded default's local Hub: the in-process Hub on a data folder, the demo shops and
 * inventory (their business data in the data folder's `demo/`, kept across restarts), and a Hub config (applied idempotently at every start) that registers the systems,
 * the operator's client and its three authorizations. The demo systems get fresh signing secrets
 * at every launch; the config hands them to the Hub in-process, so they are never written by us.
 * The admin and client tokens come from the keychain (made on first start), and so does the Hub's
 * secret key, which seals the systems' signing secrets in its store (never beside it). When the
 * keychain keeps secrets for this session only, the key is new at every start: what the previous
 * key sealed is dropped and the config registers the systems again.
 */
import { randomBytes } from 'node:crypto';
import { startDemoSystems, DEMO_CONFIG, type DemoSystems } from '../../demo/index.js';
import { createHub, type Hub, type HubConfig } from '../../src-hub/index.js';
import { KEYCHAIN_ACCOUNTS, type Keychain } from '../keychain/index.js';

export interface LocalHub {
  hub: Hub;
  demo: DemoSystems;
  url: string;
  hubId: string;
  clientId: string;
  clientToken: string;
  adminToken: string;
  authorizationRefs: string[];
  /** Whom the operator's authorizations act for (also those of MCP servers added in Settings). */
  onBehalfOf: string;
  close(): Promise<void>;
}

export interface LocalHubOptions {
  dataDir: string;
  keychain: Keychain;
  clientId: string;
  /** The port used before (sessions are bound to the Hub URL); null on first start. */
  port: number | null;
  /** The folder of the demo systems' business data (one SQLite file each); absent: in memory. */
  demoDataDir?: string;
  log?: (msg: string) => void;
}

const secretPart = () => randomBytes(24).toString('base64url');

async function tokenFor(kc: Keychain, account: string, make: () => string): Promise<string> {
  const existing = await kc.get(account);
  if (existing) return existing;
  const fresh = make();
  await kc.set(account, fresh);
  return fresh;
}

export async function startLocalHub(opts: LocalHubOptions): Promise<LocalHub> {
  // Keychain entries are per embedded installation (its client id), so two data folders never share tokens.
  const adminToken = await tokenFor(
    opts.keychain,
    `${KEYCHAIN_ACCOUNTS.hubAdminToken}:${opts.clientId}`,
    () => `bda_${secretPart()}`,
  );
  const clientToken = await tokenFor(
    opts.keychain,
    `${KEYCHAIN_ACCOUNTS.hubClientToken}:${opts.clientId}`,
    () => `bdc_${opts.clientId}.${secretPart()}`,
  );
  const secretKey = await tokenFor(opts.keychain, `${KEYCHAIN_ACCOUNTS.hubSecretKey}:${opts.clientId}`, () =>
    randomBytes(32).toString('base64url'),
  );
  // A data file that cannot be used leaves its system refusing every call and the desk open: Settings
  // shows why and "Reset demo data" sets the file aside (never overwritten, never reseeded over).
  const demo = await startDemoSystems({
    ...(opts.demoDataDir ? { dataDir: opts.demoDataDir } : {}),
    onDataProblem: (id, err) =>
      opts.log?.(`Demo data of ${id} cannot be used (${err.problem}): ${err.message}`),
  });
  try {
    const byId = new Map(demo.all().map((s) => [s.systemId, s]));
    const config: HubConfig = {
      admin_token: adminToken,
      systems: DEMO_CONFIG.systems.map((s) => {
        const handle = byId.get(s.system_id);
        if (!handle) throw new Error(`demo system ${s.system_id} did not start`);
        return {
          system_id: s.system_id,
          name: s.name,
          base_url: handle.url,
          signing_secret: handle.secret,
          spec_path: s.spec_path,
        };
      }),
      clients: [{ client_id: opts.clientId, name: DEMO_CONFIG.client_name, token: clientToken }],
      authorizations: DEMO_CONFIG.systems.map((s) => ({
        authorization_ref: s.authorization_ref,
        system_id: s.system_id,
        account: s.account,
        on_behalf_of: DEMO_CONFIG.on_behalf_of,
        grant_to: [opts.clientId],
      })),
    };
    let hub: Hub;
    try {
      hub = await createHub({
        dataDir: opts.dataDir,
        port: opts.port ?? 0,
        adminToken,
        config,
        secretKey,
        onSecretKeyMismatch: 'drop_unreadable',
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new Error(
          `The local Hub's port ${opts.port} is in use by another program; the app's conversations are bound to that address. Free the port and start again.`,
        );
      }
      throw err;
    }
    return {
      hub,
      demo,
      url: hub.url,
      hubId: hub.hubId,
      clientId: opts.clientId,
      clientToken,
      adminToken,
      authorizationRefs: DEMO_CONFIG.systems.map((s) => s.authorization_ref),
      onBehalfOf: DEMO_CONFIG.on_behalf_of,
      async close() {
        await hub.close();
        await demo.close();
      },
    };
  } catch (err) {
    await demo.close();
    throw err;
  }
}
