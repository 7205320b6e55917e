/**
 * Composition root shared by Electron main and the browser host: settings, keychain, the Hub
 * (embedded local default, or remote), the DeskRuntime on the app's data folder, the Hub gateway,
 * the event relay, the handler table and its router. No Electron here.
 *
 * First start (no settings file): start a local Hub with the demo shops and inventory, create the
 * operator's client and authorizations, and a first conversation with that scope.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHubAdminClient, createHubClient } from '../hub-client/index.js';
import { createCallRouter, type CallRouter } from '../handlers/call-router.js';
import { createEventBus, type EventBus } from '../handlers/event-bus.js';
import { createHubGateway } from '../handlers/hub-gateway-over-client.js';
import type { HubGateway } from '../handlers/hub-gateway.js';
import { startRelay } from '../handlers/relay.js';
import { createHandlerTable } from '../handlers/table.js';
import { createKeychain, type Keychain } from '../keychain/index.js';
import { createDeskRuntimeFromDataDir } from '../runtime/from-data-dir.js';
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import {
  createSettingsFileStore,
  createSettingsService,
  defaultSettings,
  type DeskSettings,
} from '../settings/index.js';
import { launchHubFromEnv, type LaunchHub } from './launch-hub.js';
import { startLocalHub, type LocalHub } from './local-hub.js';

export const DEMO_SESSION_TITLE = 'Demo: shops and inventory';

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

export async function composeDesk(opts: DeskOptions): Promise<ComposedDesk> {
  const env = opts.env ?? process.env;
  const log = opts.log ?? (() => {});
  mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
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

  let local: LocalHub | null = null;
  let hubUrl: string;
  let hubToken: string;
  let clientId: string;
  let hubId: string | undefined;
  let adminToken: string | null = null;
  if (launch) {
    // Launch-time route: nothing about it is saved (settings, keychain) or sent to the renderer.
    hubUrl = launch.url;
    hubToken = launch.token;
    clientId = clientIdOfToken(launch.token) ?? 'remote-client';
  } else if (file.hub.mode === 'local') {
    const emb = file.embedded;
    if (!emb) throw new Error('embedded settings missing');
    local = await startLocalHub({
      dataDir: join(opts.dataDir, 'hub'),
      keychain,
      clientId: emb.client_id,
      port: emb.hub_port,
    });
    if (emb.hub_port !== local.hub.port)
      settings.update((s) => ({
        ...s,
        embedded: s.embedded && { ...s.embedded, hub_port: local?.hub.port ?? null },
      }));
    hubUrl = local.url;
    hubToken = local.clientToken;
    clientId = local.clientId;
    hubId = local.hubId;
    adminToken = local.adminToken;
  } else {
    const url = file.hub.remote_url;
    // The token is used only for the origin it was entered for.
    const token = await settings.remoteHubToken();
    if (!url || !token)
      throw new Error(
        'A remote Hub is chosen but its URL or client token is not configured; choose the local Hub or set both in settings.',
      );
    hubUrl = url;
    hubToken = token;
    clientId = clientIdOfToken(token) ?? 'remote-client';
    hubId = file.hub.remote_hub_id ?? undefined;
  }

  let runtime: DeskRuntime;
  try {
    const made = await createDeskRuntimeFromDataDir({
      dataDir: join(opts.dataDir, 'host'),
      hubUrl,
      hubToken,
      ...(hubId ? { hubId } : {}),
      clientId,
      modelSettings: settings.modelProvider,
      secrets: () => [
        hubToken,
        ...(adminToken ? [adminToken] : []),
        ...(env.BAILING_MODEL_API_KEY ? [env.BAILING_MODEL_API_KEY] : []),
        ...settings.secrets(),
      ],
    });
    runtime = made.runtime;
    if (!launch && file.hub.mode === 'remote' && !file.hub.remote_hub_id) {
      const health = await made.hubClient.health();
      if (typeof health.hub_id === 'string') {
        const id = health.hub_id;
        settings.update((s) => ({ ...s, hub: { ...s.hub, remote_hub_id: id } }));
      }
    }
  } catch (err) {
    await local?.close();
    throw err;
  }

  // The embedded default's first conversation, with the operator's three authorizations.
  let defaultSessionId = settings.current().embedded?.default_session_id ?? null;
  if (local && defaultSessionId === null) {
    const s = await runtime.createSession({
      title: DEMO_SESSION_TITLE,
      authorizationRefs: local.authorizationRefs,
    });
    defaultSessionId = s.sessionId;
    const id = s.sessionId;
    settings.update((f) => ({ ...f, embedded: f.embedded && { ...f.embedded, default_session_id: id } }));
    log(`${firstStart ? 'First start: ' : ''}created the demo conversation.`);
  }

  const client = createHubClient({ baseUrl: hubUrl, token: hubToken, ...(hubId ? { hubId } : {}) });
  const admin = adminToken ? createHubAdminClient({ baseUrl: hubUrl, token: adminToken }) : null;
  const gateway = createHubGateway({
    client,
    admin,
    mode,
    url: hubUrl,
    ...(opts.reconnectDelayMs !== undefined ? { reconnectDelayMs: opts.reconnectDelayMs } : {}),
  });
  const bus = createEventBus({ onInvalid: (name, message) => log(`event ${name} refused: ${message}`) });
  const stopRelay = startRelay({ runtime, hub: gateway, bus });
  const table = createHandlerTable({
    runtime,
    hub: gateway,
    settings,
    version: opts.version,
    defaultSessionId: () => defaultSessionId,
    modelConfigured: () => settings.modelConfigured(),
  });
  const router = createCallRouter({
    table,
    onError: (name, error, cause) => {
      if (error.code === 'internal_error')
        log(`call ${name} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    },
  });

  let closing: Promise<void> | null = null;
  return {
    router,
    bus,
    runtime,
    gateway,
    settings,
    keychain,
    local,
    defaultSessionId,
    close() {
      closing ??= (async () => {
        stopRelay();
        await gateway.close();
        await runtime.close();
        await local?.close();
      })();
      return closing;
    },
  };
}
