/**
 * Composition root shared by Electron main and the browser host: settings, keychain, the Hub
 * (embedded local default, or remote), the DeskRuntime on the app's data folder, the Hub gateway,
 * the event relay, the handler table and its router. No Electron here.
 *
 * First start (no settings file): start a local Hub with the demo shops and inventory, create the
 * operator's client and authorizations, and a first conversation with that scope.
 */
import { randomBytes } from 'node:crypto';
import { ensurePrivateDir, modeText, tightenTree } from '../../src-shared/private-files.js';
import { join } from 'node:path';
import { createHubAdminClient, createHubClient } from '../hub-client/index.js';
import { createCallRouter, type CallRouter } from '../handlers/call-router.js';
import { createEventBus, type EventBus } from '../handlers/event-bus.js';
import { createHubGateway } from '../handlers/hub-gateway-over-client.js';
import type { HubGateway } from '../handlers/hub-gateway.js';
import { feedAuthorizationChanges } from '../handlers/authorization-feed.js';
import { startRelay } from '../handlers/relay.js';
import { createHandlerTable } from '../handlers/table.js';
import { createMcpServerHandlers } from '../handlers/mcp-servers.js';
import { requireConnectedHub } from '../handlers/errors.js';
import { createKeychain, type Keychain } from '../keychain/index.js';
import { createDeskRuntimeFromDataDir } from '../runtime/from-data-dir.js';
import type { HubProblem } from '../../src-shared/states.js';
import { isHubClientError } from '../hub-client/index.js';
import { testHubConnection } from '../hub-client/connection-test.js';
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import {
  createSettingsFileStore,
  createSettingsService,
  defaultSettings,
  type DeskSettings,
  type SettingsFile,
} from '../settings/index.js';
import { launchHubFromEnv, type LaunchHub } from './launch-hub.js';
import { startLocalHub, type LocalHub } from './local-hub.js';
import { createDemoDataPort } from './demo-data-port.js';

export const DEMO_SESSION_TITLE = 'Demo: shops and inventory';
/** Where the embedded demo systems keep their business data (docs/desktop-app.md#demo-data). */
export const demoDataDir = (dataDir: string): string => join(dataDir, 'demo');

export interface DeskOptions {
  dataDir: string;
  version: string;
  keychain?: Keychain;
  env?: NodeJS.ProcessEnv;
  log?: (msg: string) => void;
  /** Reconnect delay of the Hub event stream (tests shorten it). */
  reconnectDelayMs?: number;
  /**
   * A remote Hub for this launch only (URL + client token held in memory), overriding the saved
   * choice. Default: read from BAILING_HUB_URL + BAILING_HUB_TOKEN_FILE (see ./launch-hub.ts);
   * `null` disables the environment route.
   */
  launchHub?: LaunchHub | null;
}

export interface ComposedDesk {
  router: CallRouter;
  bus: EventBus;
  runtime: DeskRuntime;
  gateway: HubGateway;
  settings: DeskSettings;
  keychain: Keychain;
  /** The embedded local Hub (null in remote mode). */
  local: LocalHub | null;
  defaultSessionId: string | null;
  /** Orderly shutdown: stop events, cancel turns, flush the archive and the journal, stop the Hub. */
  close(): Promise<void>;
}

const clientIdOfToken = (token: string): string | null =>
  /^bdc_([A-Za-z0-9_.:-]{1,128})\./.exec(token)?.[1] ?? null;

/** The settings file (made on first start) and the settings service over it and the keychain. */
async function openSettings(
  opts: DeskOptions,
  env: NodeJS.ProcessEnv,
  keychain: Keychain,
  launch: LaunchHub | null,
) {
  const store = createSettingsFileStore(opts.dataDir);
  const firstStart = store.load() === null;
  let file = store.load() ?? defaultSettings();
  const mode: 'local' | 'remote' = launch ? 'remote' : file.hub.mode;
  if (file.hub.mode === 'local' && file.embedded === null) {
    file = {
      ...file,
      embedded: {
        client_id: `desk-${randomBytes(6).toString('hex')}`,
        hub_port: null,
        default_session_id: null,
      },
    };
  }
  store.save(file);

  const settings = createSettingsService({
    testHubConnection,
    store,
    keychain,
    dataDir: opts.dataDir,
    runningMode: mode,
    initial: file,
    envModel: {
      baseUrl: env.BAILING_MODEL_BASE_URL || null,
      model: env.BAILING_MODEL || null,
      apiKey: env.BAILING_MODEL_API_KEY || null,
      provider: env.BAILING_MODEL_PROVIDER || null,
    },
  });
  // Stored keys and tokens are masked from the first message on (also before the first model request).
  await settings.loadSecrets();
  return { settings, file, mode, firstStart };
}

/** How this launch reaches its Hub: the embedded local one, a launch-time route, or the saved remote one. */
interface HubAccess {
  local: LocalHub | null;
  url: string;
  token: string;
  clientId: string;
  hubId: string | undefined;
  adminToken: string | null;
  /** The chosen Hub cannot be used this launch: the app opens offline and says why. */
  problem: HubProblem | null;
}

/**
 * The Hub id a launch without a usable Hub runs under: it matches no real Hub, so no conversation
 * bound to one is asked anything (they read as bound to another connection), and nothing is sent.
 */
const NO_HUB_ID = 'hub-unavailable-this-launch';
/** Never contacted (the gateway of a launch without a usable Hub asks nothing); the discard port. */
const NO_HUB_URL = 'http://127.0.0.1:9';

async function connectHub(
  opts: DeskOptions,
  file: SettingsFile,
  settings: DeskSettings,
  keychain: Keychain,
  launch: LaunchHub | null,
): Promise<HubAccess> {
  if (launch) {
    // Launch-time route: nothing about it is saved (settings, keychain) or sent to the renderer.
    const clientId = clientIdOfToken(launch.token) ?? 'remote-client';
    return {
      local: null,
      url: launch.url,
      token: launch.token,
      clientId,
      hubId: undefined,
      adminToken: null,
      problem: null,
    };
  }
  if (file.hub.mode === 'local') {
    const emb = file.embedded;
    if (!emb) throw new Error('embedded settings missing');
    const local = await startLocalHub({
      dataDir: join(opts.dataDir, 'hub'),
      demoDataDir: demoDataDir(opts.dataDir),
      keychain,
      clientId: emb.client_id,
      port: emb.hub_port,
      ...(opts.log ? { log: opts.log } : {}),
    });
    if (emb.hub_port !== local.hub.port)
      settings.update((s) => ({
        ...s,
        embedded: s.embedded && { ...s.embedded, hub_port: local.hub.port },
      }));
    return {
      local,
      url: local.url,
      token: local.clientToken,
      clientId: local.clientId,
      hubId: local.hubId,
      adminToken: local.adminToken,
      problem: null,
    };
  }
  const url = file.hub.remote_url;
  // The token is used only for the origin it was entered for.
  const token = await settings.remoteHubToken();
  // Without both (e.g. a token kept for one session only, gone after a restart) the app still
  // opens: offline, saying why, with Settings a click away (never a refusal to start).
  if (!url || !token)
    return {
      local: null,
      url: NO_HUB_URL,
      token: '',
      clientId: 'remote-client',
      hubId: NO_HUB_ID,
      adminToken: null,
      problem: 'remote_not_configured',
    };
  return {
    local: null,
    url,
    token,
    clientId: clientIdOfToken(token) ?? 'remote-client',
    hubId: file.hub.remote_hub_id ?? undefined,
    adminToken: null,
    problem: null,
  };
}

/** The runtime on the data folder; a remote Hub's id is remembered the first time it is learned. */
async function startRuntime(
  opts: DeskOptions,
  env: NodeJS.ProcessEnv,
  hub: HubAccess,
  settings: DeskSettings,
  rememberHubId: boolean,
): Promise<DeskRuntime> {
  const made = await createDeskRuntimeFromDataDir({
    dataDir: join(opts.dataDir, 'host'),
    hubUrl: hub.url,
    hubToken: hub.token,
    ...(hub.hubId ? { hubId: hub.hubId } : {}),
    clientId: hub.clientId,
    modelSettings: settings.modelProvider,
    secrets: () => [
      hub.token,
      ...(hub.adminToken ? [hub.adminToken] : []),
      ...(env.BAILING_MODEL_API_KEY ? [env.BAILING_MODEL_API_KEY] : []),
      ...settings.secrets(),
    ],
  });
  if (rememberHubId) {
    const health = await made.hubClient.health();
    if (typeof health.hub_id === 'string') {
      const id = health.hub_id;
      settings.update((s) => ({ ...s, hub: { ...s.hub, remote_hub_id: id } }));
    }
  }
  return made.runtime;
}

/**
 * The runtime, also when a remote Hub never met before does not answer at start: then the app
 * opens offline under no Hub (the problem says why) instead of refusing to start. A remote Hub
 * already met (its id remembered) needs no answer to start: it reconnects when it comes back.
 */
async function startRuntimeOrOffline(
  opts: DeskOptions,
  env: NodeJS.ProcessEnv,
  hub: HubAccess,
  settings: DeskSettings,
  rememberHubId: boolean,
  log: (msg: string) => void,
): Promise<{ runtime: DeskRuntime; hub: HubAccess }> {
  try {
    return { runtime: await startRuntime(opts, env, hub, settings, rememberHubId), hub };
  } catch (err) {
    const unreachable =
      hub.local === null && isHubClientError(err) && (err.kind === 'network' || err.kind === 'timeout');
    if (!unreachable) throw err;
    log(`The remote Hub at ${hub.url} did not answer; opening offline.`);
    const offline: HubAccess = { ...hub, hubId: NO_HUB_ID, problem: 'remote_unreachable' };
    return { runtime: await startRuntime(opts, env, offline, settings, false), hub: offline };
  }
}

/** The embedded default's first conversation, with the operator's three authorizations (made once). */
async function ensureDemoSession(
  runtime: DeskRuntime,
  local: LocalHub | null,
  settings: DeskSettings,
  log: (msg: string) => void,
  firstStart: boolean,
): Promise<string | null> {
  const existing = settings.current().embedded?.default_session_id ?? null;
  if (!local || existing !== null) return existing;
  const s = await runtime.createSession({
    title: DEMO_SESSION_TITLE,
    authorizationRefs: local.authorizationRefs,
  });
  const id = s.sessionId;
  settings.update((f) => ({ ...f, embedded: f.embedded && { ...f.embedded, default_session_id: id } }));
  log(`${firstStart ? 'First start: ' : ''}created the demo conversation.`);
  return id;
}

/** The Hub gateway, the event bus and relay, the handler table and the call router in front of it. */
function wireCalls(
  opts: DeskOptions,
  hub: HubAccess,
  mode: 'local' | 'remote',
  runtime: DeskRuntime,
  settings: DeskSettings,
  defaultSessionId: string | null,
  log: (msg: string) => void,
) {
  const client = createHubClient({
    baseUrl: hub.url,
    token: hub.token,
    ...(hub.hubId ? { hubId: hub.hubId } : {}),
  });
  const admin = hub.adminToken ? createHubAdminClient({ baseUrl: hub.url, token: hub.adminToken }) : null;
  const gateway = createHubGateway({
    client,
    admin,
    mode,
    url: hub.url,
    problem: hub.problem,
    ...(opts.reconnectDelayMs !== undefined ? { reconnectDelayMs: opts.reconnectDelayMs } : {}),
  });
  const bus = createEventBus({ onInvalid: (name, message) => log(`event ${name} refused: ${message}`) });
  const stopRelayOnly = startRelay({ runtime, hub: gateway, bus });
  const stopFeed = feedAuthorizationChanges({ hub: gateway, runtime });
  const stopRelay = () => {
    stopFeed();
    stopRelayOnly();
  };
  const mcp = createMcpServerHandlers({
    admin,
    clientId: hub.clientId,
    onBehalfOf: hub.local?.onBehalfOf ?? '',
    needHub: () => requireConnectedHub(gateway),
    grantedAuthorizations: () => gateway.listAuthorizations(),
  });
  const table = createHandlerTable({
    runtime,
    hub: gateway,
    settings,
    version: opts.version,
    defaultSessionId: () => defaultSessionId,
    modelConfigured: () => settings.modelConfigured(),
    demoData: hub.local ? createDemoDataPort(hub.local.demo, demoDataDir(opts.dataDir), log) : null,
    mcp,
  });
  const router = createCallRouter({
    table,
    onError: (name, error, cause) => {
      if (error.code === 'internal_error')
        log(`call ${name} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    },
  });
  return { gateway, bus, stopRelay, router };
}

export async function composeDesk(opts: DeskOptions): Promise<ComposedDesk> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  // A data folder made by an older version or another tool is tightened, and each change is said.
  const tightened = (path: string, kind: 'file' | 'directory', before: number) =>
    log(
      `Tightened ${kind} ${path} from ${modeText(before)} to owner-only (${kind === 'file' ? '0600' : '0700'}).`,
    );
  ensurePrivateDir(opts.dataDir, tightened);
  tightenTree(opts.dataDir, tightened);
  const keychain = opts.keychain ?? (await createKeychain({ sessionOnlyFallback: true }));
  const ks = keychain.status();
  if (ks.state === 'unavailable')
    log(`OS keychain unavailable (${ks.reason ?? 'unknown'}); secrets are kept for this session only.`);

  // Read once, before anything else: an incomplete or unsafe route stops the launch.
  const launch = opts.launchHub !== undefined ? opts.launchHub : launchHubFromEnv(env);
  if (launch)
    log(
      `Remote Hub for this launch: ${launch.url} (client token from BAILING_HUB_TOKEN_FILE, held in memory only).`,
    );

  const { settings, file, mode, firstStart } = await openSettings(opts, env, keychain, launch);
  const access = await connectHub(opts, file, settings, keychain, launch);
  let runtime: DeskRuntime;
  let hub: HubAccess;
  try {
    ({ runtime, hub } = await startRuntimeOrOffline(
      opts,
      env,
      access,
      settings,
      !launch && file.hub.mode === 'remote' && !file.hub.remote_hub_id && access.problem === null,
      log,
    ));
  } catch (err) {
    await access.local?.close();
    throw err;
  }
  const defaultSessionId = await ensureDemoSession(runtime, hub.local, settings, log, firstStart);
  const { gateway, bus, stopRelay, router } = wireCalls(
    opts,
    hub,
    mode,
    runtime,
    settings,
    defaultSessionId,
    log,
  );

  let closing: Promise<void> | null = null;
  return {
    router,
    bus,
    runtime,
    gateway,
    settings,
    keychain,
    local: hub.local,
    defaultSessionId,
    close() {
      closing ??= (async () => {
        stopRelay();
        await gateway.close();
        await runtime.close();
        await hub.local?.close();
      })();
      return closing;
    },
  };
}
