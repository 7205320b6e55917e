/**
 * The acceptance stack: the demo business systems and the Hub as separate processes (their real
 * CLIs), the scripted model server (in the harness process, so scenarios can change its script
 * and read what the model saw), a Hub proxy on a fixed port, and the browser host as a separate
 * process in remote mode, all on a fresh temp directory and free 127.0.0.1 ports.
 *
 * "Reopen" is `killHost()` (SIGKILL) followed by `startHost()` on the same data folder. The Hub
 * can be SIGKILLed and restarted on the same data and port (`killHub()` / `startHub()`), and so
 * can the demo systems (`killDemo()` / `startDemo()`: same ports, signing secrets and data folder —
 * their business data and ledgers are kept in files, their request logs start again).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { assertDataDirsPrivate } from './data-scan.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../../demo/scripted-model/server.js';
import {
  DEFAULT_EMULATED_MODEL,
  startProviderEmulator,
  type ProviderEmulator,
  type ProviderMode,
} from '../../demo/provider-emulator/index.js';
import type { ModelProviderId } from '../../src-shared/model-providers.js';
import type { Script } from '../../demo/scripted-model/script.js';
import type { FaultSpecInput, LedgerEntry, RequestLogEntry } from '../../demo/types.js';
import { startHubProxy, type HubProxy } from './hub-proxy.js';
import { freePort } from './ports.js';
import { spawnTs, type ChildProc } from './proc.js';
import { ensureRendererBuilt, ROOT } from './renderer-build.js';

export const SYSTEMS = ['shop-a', 'shop-b', 'inventory'] as const;
export type SystemId = (typeof SYSTEMS)[number];
export const AUTH_REF: Record<SystemId, string> = {
  'shop-a': 'auth-shop-a',
  'shop-b': 'auth-shop-b',
  inventory: 'auth-inventory',
};
export const CLIENT_ID = 'desk-e2e';

export interface HostHandle {
  proc: ChildProc;
  /** The browser URL (token in the fragment). */
  url: string;
  origin: string;
  token: string;
}

export interface Stack {
  dir: string;
  logFile: string;
  /** The model server: the scripted model, or the strict provider emulator (then also `provider`). */
  model: ScriptedModel;
  /** The strict provider emulator when the stack runs against it (its refusals, key checks). */
  provider: ProviderEmulator | null;
  proxy: HubProxy;
  /** The Hub as the host sees it (through the proxy). */
  hubUrl: string;
  /** The Hub's own address (admin reads go here directly). */
  hubDirectUrl: string;
  systemUrls: Record<SystemId, string>;
  host: HostHandle | null;
  hub: ChildProc | null;
  /**
   * Starts the desk's browser host. `keychain: 'session-only'` starts it as on a desktop without a
   * keychain, the client token held for this launch only (as if typed in Settings this session);
   * `'session-only-empty'` the same without the token (a restart after which it is gone).
   */
  startHost(opts?: { keychain?: 'memory' | 'session-only' | 'session-only-empty' }): Promise<HostHandle>;
  killHost(): Promise<void>;
  startHub(): Promise<void>;
  killHub(): Promise<void>;
  /** SIGKILL the demo systems' process and wait for its exit. */
  killDemo(): Promise<void>;
  /** Start the demo systems again on the same ports, secrets and data folder (after `killDemo()`). */
  startDemo(): Promise<void>;
  /**
   * Writes the desk's client token to a new owner-only (0600) file and returns its path, for a
   * launch-time remote Hub (BAILING_HUB_TOKEN_FILE, see src-main/embedded/launch-hub.ts). The
   * caller removes it when done; `close()` removes the whole stack directory anyway.
   */
  writeHubTokenFile(name: string): string;
  /** Admin API call on the Hub (JSON); throws on a non-2xx status. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  audit(query?: { invocation_id?: string; task_id?: string }): Promise<AuditEntryLike[]>;
  metrics(): Promise<MetricsLike>;
  ledger(system: SystemId): Promise<LedgerEntry[]>;
  requests(system: SystemId): Promise<RequestLogEntry[]>;
  demoState(system: SystemId): Promise<unknown>;
  setFault(system: SystemId, fault: FaultSpecInput): Promise<void>;
  clearFaults(system: SystemId): Promise<void>;
  close(): Promise<void>;
}

export interface AuditEntryLike {
  seq: number;
  kind: string;
  actor: string;
  invocation_id: string | null;
  task_id: string | null;
  from_state: string | null;
  to_state: string | null;
  detail: Record<string, unknown>;
}

export interface ClientMetricsLike {
  requests: Record<string, number>;
  requests_total: number;
  invokes: number;
  resumes: number;
  dispatches: number;
}
export interface MetricsLike {
  started_at: string;
  clients: Record<string, ClientMetricsLike>;
}

/** Run the stack's model as the strict provider emulator, with the desk set to a provider preset. */
export interface StrictProviderOption {
  preset: ModelProviderId;
  modes: ProviderMode[];
}

/** The key the emulator requires and the desk is given (by environment, as for the scripted model). */
export const E2E_PROVIDER_KEY = 'sk-e2e-provider-emulator-0123456789';

export interface StackOptions {
  /** Short name used in the temp directory. */
  name: string;
  script?: Script;
  /** The strict provider emulator instead of the scripted model. */
  provider?: StrictProviderOption;
  /** Keep the temp directory after close (default: keep only when BAILING_E2E_KEEP=1). */
  keep?: boolean;
}

async function json<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

async function waitHealthy(url: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('the Hub process exited during start');
    try {
      const r = await fetch(`${url}/health`);
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`the Hub at ${url} did not become healthy within ${timeoutMs} ms`);
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  await ensureRendererBuilt();
  const dir = mkdtempSync(join(tmpdir(), `bailing-e2e-${opts.name}-`));
  const logFile = join(dir, 'harness.log');
  const procs: ChildProc[] = [];
  const adminToken = `bda_${randomBytes(24).toString('base64url')}`;
  const clientToken = `bdc_${CLIENT_ID}.${randomBytes(24).toString('base64url')}`;

  // Demo systems (their CLI), their business data in a folder of the stack. The systems file (0600,
  // in the stack directory) is kept for a restart with the same signing secrets.
  const systemsFile = join(dir, 'demo-systems.json');
  const demoData = join(dir, 'demo-data');
  let demo = spawnTs('demo', 'demo/cli.ts', ['--data', demoData, '--config-out', systemsFile], {
    cwd: ROOT,
    logFile,
  });
  procs.push(demo);
  await demo.waitForLine(/demo systems ready/, 60_000);
  const systemsDoc = JSON.parse(readFileSync(systemsFile, 'utf8')) as {
    systems: { system_id: SystemId; name: string; base_url: string; signing_secret: string }[];
  };
  const systemUrls = Object.fromEntries(systemsDoc.systems.map((s) => [s.system_id, s.base_url])) as Record<
    SystemId,
    string
  >;

  const provider = opts.provider
    ? await startProviderEmulator({
        script: opts.script ?? [],
        modes: opts.provider.modes,
        apiKey: E2E_PROVIDER_KEY,
        models: [DEFAULT_EMULATED_MODEL],
      })
    : null;
  const model: ScriptedModel = provider ?? (await startScriptedModel({ script: opts.script ?? [] }));
  const modelEnv = opts.provider
    ? {
        BAILING_MODEL_BASE_URL: model.url,
        BAILING_MODEL: DEFAULT_EMULATED_MODEL,
        BAILING_MODEL_API_KEY: E2E_PROVIDER_KEY,
        BAILING_MODEL_PROVIDER: opts.provider.preset,
      }
    : {
        BAILING_MODEL_BASE_URL: model.url,
        BAILING_MODEL: 'scripted-model',
        BAILING_MODEL_API_KEY: 'sk-e2e-scripted',
      };

  // The Hub config: the three systems, one client (the desk) and its three authorizations.
  const hubPort = await freePort();
  const hubDirectUrl = `http://127.0.0.1:${hubPort}`;
  const configFile = join(dir, 'hub-config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      admin_token: adminToken,
      heartbeat_ms: 1000,
      systems: systemsDoc.systems.map((s) => ({ ...s, spec_path: '/.well-known/bailing/tools.json' })),
      clients: [{ client_id: CLIENT_ID, name: 'bailing-desk e2e', token: clientToken }],
      authorizations: SYSTEMS.map((id) => ({
        authorization_ref: AUTH_REF[id],
        system_id: id,
        account: `${id}-operator`,
        on_behalf_of: 'operator@demo.local',
        grant_to: [CLIENT_ID],
      })),
    }),
    { mode: 0o600 },
  );
  mkdirSync(join(dir, 'hub'), { recursive: true });
  mkdirSync(join(dir, 'desk'), { recursive: true });

  const proxy = await startHubProxy({ target: () => hubDirectUrl });
  const launchTokens: Record<string, string> = {};

  const stack: Stack = {
    dir,
    logFile,
    model,
    provider,
    proxy,
    hubUrl: proxy.url,
    hubDirectUrl,
    systemUrls,
    host: null,
    hub: null,
    async startHub() {
      if (stack.hub?.alive()) throw new Error('the Hub is already running');
      const hub = spawnTs(
        'hub',
        'src-hub/cli.ts',
        ['--port', String(hubPort), '--data', join(dir, 'hub'), '--config', configFile],
        {
          cwd: ROOT,
          logFile,
          env: { HUB_LOG_LEVEL: 'warn' },
        },
      );
      procs.push(hub);
      stack.hub = hub;
      await waitHealthy(hubDirectUrl, 60_000, () => hub.alive());
    },
    async killHub() {
      await stack.hub?.kill();
    },
    async killDemo() {
      await demo.kill();
    },
    async startDemo() {
      if (demo.alive()) throw new Error('the demo systems are already running');
      const port = (id: SystemId) => new URL(systemUrls[id]).port;
      demo = spawnTs(
        'demo',
        'demo/cli.ts',
        [
          '--data',
          demoData,
          '--secrets-file',
          systemsFile,
          '--shop-a-port',
          port('shop-a'),
          '--shop-b-port',
          port('shop-b'),
          '--inventory-port',
          port('inventory'),
        ],
        { cwd: ROOT, logFile },
      );
      procs.push(demo);
      await demo.waitForLine(/demo systems ready/, 60_000);
    },
    async startHost(opts = {}) {
      if (stack.host?.proc.alive()) throw new Error('the host is already running');
      const proc = spawnTs('host', 'e2e/harness/host-main.ts', ['--data', join(dir, 'desk')], {
        cwd: ROOT,
        logFile,
        env: {
          BAILING_E2E_HUB_URL: proxy.url,
          BAILING_E2E_HUB_TOKEN: clientToken,
          BAILING_E2E_KEYCHAIN: opts.keychain ?? 'memory',
          ...modelEnv,
        },
      });
      procs.push(proc);
      const m = await proc.waitForLine(/^BAILING_URL=(\S+)/, 90_000);
      const url = m[1] ?? '';
      const u = new URL(url);
      const token = new URLSearchParams(u.hash.slice(1)).get('token') ?? '';
      stack.host = { proc, url, origin: u.origin, token };
      launchTokens[`launch_token:${Object.keys(launchTokens).length}`] = token;
      return stack.host;
    },
    async killHost() {
      await stack.host?.proc.kill();
    },
    writeHubTokenFile(name) {
      const file = join(dir, name);
      writeFileSync(file, clientToken, { mode: 0o600, flag: 'wx' });
      return file;
    },
    async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${hubDirectUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return json<T>(res, `${method} ${path}`);
    },
    async audit(query = {}) {
      const q = new URLSearchParams({ limit: '10000', ...query });
      return (await stack.admin<{ entries: AuditEntryLike[] }>('GET', `/admin/v1/audit?${q}`)).entries;
    },
    metrics: () => stack.admin<MetricsLike>('GET', '/admin/v1/metrics'),
    async ledger(system) {
      return (
        await json<{ ledger: LedgerEntry[] }>(await fetch(`${systemUrls[system]}/__demo/ledger`), 'ledger')
      ).ledger;
    },
    async requests(system) {
      return (
        await json<{ requests: RequestLogEntry[] }>(
          await fetch(`${systemUrls[system]}/__demo/requests`),
          'requests',
        )
      ).requests;
    },
    async demoState(system) {
      return (await json<{ state: unknown }>(await fetch(`${systemUrls[system]}/__demo/state`), 'state'))
        .state;
    },
    async setFault(system, fault) {
      await json(
        await fetch(`${systemUrls[system]}/__demo/faults`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(fault),
        }),
        'set fault',
      );
    },
    async clearFaults(system) {
      await json(await fetch(`${systemUrls[system]}/__demo/faults`, { method: 'DELETE' }), 'clear faults');
    },
    async close() {
      for (const p of procs.reverse()) await p.stop(5_000).catch(() => undefined);
      await proxy.close();
      await model.close();
      try {
        assertDataDirsPrivate([join(dir, 'hub'), join(dir, 'desk')], {
          ...Object.fromEntries(
            systemsDoc.systems.map((s) => [`signing_secret:${s.system_id}`, s.signing_secret]),
          ),
          client_token: clientToken,
          admin_token: adminToken,
          model_key: modelEnv.BAILING_MODEL_API_KEY,
          ...launchTokens,
        });
      } finally {
        if (!(opts.keep ?? process.env.BAILING_E2E_KEEP === '1'))
          rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  try {
    await stack.startHub();
  } catch (err) {
    await stack.close();
    throw err;
  }
  return stack;
}
