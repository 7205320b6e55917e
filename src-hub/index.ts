/**
 * The Hub, embeddable in-process: `const hub = await createHub({ dataDir })` starts it on
 * 127.0.0.1 (port 0 = any free port) over a SQLite store in `dataDir` — or, with `storeUrl`, over a
 * PostgreSQL database that several Hub instances may share; `hub.close()` stops it. On start it
 * verifies migrations, registers this instance's lease and turns every orphaned `dispatching`
 * record (its owner gone) into `unknown`.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';
import { hashToken } from './auth/tokens.js';
import { applyConfig, type HubConfig } from './config.js';
import type { BusinessEdge, HubContext, HubSettings } from './context.js';
import { createBusinessEdge } from './edge.js';
import { createEventBus } from './events/bus.js';
import { startEventRetention } from './events/retention.js';
import { buildApp } from './http/server.js';
import { keepLease, registerInstance } from './instances/lease.js';
import { startRecoverySweeper } from './instances/recovery-sweeper.js';
import { recoverOrphaned } from './invocations/recovery.js';
import { startMcpSupervisor } from './mcp/start.js';
import { createMetrics } from './metrics.js';
import { resolveSettings } from './settings.js';
import {
  LOCKED_SECRET_BOX,
  prepareStoreSecrets,
  resolveSecretKey,
  type OnKeyMismatch,
} from './secrets/index.js';
import { tightenTree } from '../src-shared/private-files.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { openStore } from './store/open-store.js';
import type { HubStore } from './store/types.js';
import { createSchemaValidator } from './validation/ajv.js';

export { DEFAULT_SETTINGS } from './settings.js';

export interface HubContextOptions {
  /** SQLite: the data directory (hub.sqlite, and the lock file that allows one serving Hub). */
  dataDir?: string;
  /** PostgreSQL: `postgres://…` (also config `store.url`); several Hub instances may share it. */
  storeUrl?: string;
  logger?: Logger;
  now?: () => Date;
  /** Override the outbound edge (tests of the edge itself only; defaults to the real one). */
  edge?: BusinessEdge;
  store?: HubStore;
  settings?: Partial<HubSettings>;
  config?: HubConfig;
}

export interface CreateHubOptions extends HubContextOptions {
  host?: string;
  port?: number;
  /** Sets (or replaces) the admin token; only its salted hash is stored. */
  adminToken?: string;
  /**
   * The secret key that seals the business systems' secrets in the store (never kept in it): its
   * text (base64url of 32 bytes) or bytes. Default: BAILING_HUB_SECRET_KEY, then `secretKeyFile`
   * (or config `secret_key_file`, BAILING_HUB_SECRET_KEY_FILE), then — SQLite only —
   * `<dataDir>/hub-secret.key`, made on first start (docs/operations.md).
   */
  secretKey?: string | Buffer;
  secretKeyFile?: string;
  /**
   * A key that does not open the store's secrets: `refuse` to start (default), or drop what it
   * cannot open (the desk's local Hub, whose systems come from its config at every start).
   */
  onSecretKeyMismatch?: OnKeyMismatch;
  /**
   * This process's name among the store's Hub instances (config `instance_id`). A restart with the
   * same name recovers its own earlier dispatches at once; without one, a PostgreSQL Hub gets a
   * fresh name and its predecessor's calls are recovered when that lease expires. SQLite: `local`.
   */
  instanceId?: string;
}

export interface Hub {
  url: string;
  hubId: string;
  port: number;
  store: HubStore;
  ctx: HubContext;
  /** How many `dispatching` records startup recovery turned into `unknown`. */
  recovered: number;
  close(): Promise<void>;
}

const storeUrlOf = (o: HubContextOptions) => o.storeUrl ?? o.config?.store?.url;

/**
 * Opens the store and builds the services' context without serving HTTP, holding a lease or
 * running recovery: the operator CLI uses this next to running Hubs (it never dispatches).
 */
export async function openHubContext(
  options: HubContextOptions,
): Promise<{ ctx: HubContext; abort: () => void }> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const store =
    options.store ??
    (await openStore(
      { dataDir: options.dataDir, url: storeUrlOf(options), poolSize: options.config?.store?.pool_size },
      (what, err) => logger.warn({ err: String(err) }, `${what} failed`),
    ));
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // one listener per in-flight send
  const now = options.now ?? (() => new Date());
  const ctx: HubContext = {
    store,
    hubId: store.hubId(),
    now,
    logger,
    bus: createEventBus(),
    metrics: createMetrics(now),
    edge: options.edge ?? createBusinessEdge(),
    schemas: createSchemaValidator({
      // Once per format name and process, structured (never ajv's own warning on stderr).
      onUnknownFormat: (format) =>
        logger.info(
          { event: 'format_unknown', format },
          'a string format the Hub does not check is accepted as an annotation',
        ),
    }),
    settings: resolveSettings(options.config, options.settings),
    shutdown: shutdown.signal,
    inflight: new Set(),
    instance: null,
    mcp: null,
    secrets: LOCKED_SECRET_BOX,
  };
  return { ctx, abort: () => shutdown.abort() };
}

/** SQLite: one serving Hub per data directory. PostgreSQL: any number; leases tell them apart. */
function lockFor(options: CreateHubOptions): () => void {
  if (options.store || storeUrlOf(options)) return () => undefined;
  if (!options.dataDir) throw new Error('createHub needs dataDir (SQLite) or storeUrl (PostgreSQL)');
  // An existing data directory made with wider modes (an older Hub, another tool) is tightened.
  tightenTree(options.dataDir, (path, kind, before) =>
    (options.logger ?? pino({ level: 'silent' })).warn(
      { path, kind, mode: before.toString(8).padStart(4, '0') },
      'tightened to owner-only (0700 directories, 0600 files)',
    ),
  );
  return lockDataDir(options.dataDir);
}

const defaultInstanceId = (store: HubStore) =>
  store.shared ? `${hostname()}-${randomUUID().slice(0, 8)}` : 'local';

export async function createHub(options: CreateHubOptions): Promise<Hub> {
  const unlock = lockFor(options);
  let opened: Awaited<ReturnType<typeof openHubContext>>;
  try {
    opened = await openHubContext(options);
  } catch (err) {
    unlock();
    throw err;
  }
  const { ctx, abort } = opened;
  const { store, logger } = ctx;
  const stops: Array<() => void> = [];
  try {
    const resolved = resolveSecretKey({
      ...(options.secretKey !== undefined ? { given: options.secretKey } : {}),
      file: options.secretKeyFile ?? options.config?.secret_key_file,
      // an injected store (tests) keeps its default key file in the data directory given with it
      dataDir: storeUrlOf(options) ? undefined : options.dataDir,
    });
    if (resolved.created)
      logger.warn(
        { file: resolved.file },
        "made the Hub's secret key file beside its store; keep it out of the store's backups (docs/operations.md)",
      );
    ctx.secrets = await prepareStoreSecrets(store, resolved, {
      onMismatch: options.onSecretKeyMismatch ?? 'refuse',
      logger,
    });
    const adminToken = options.adminToken ?? options.config?.admin_token;
    if (adminToken) await store.setAdminTokenHash(hashToken(store.tokenSalt(), adminToken));
    const instance = await registerInstance(
      ctx,
      options.instanceId ?? options.config?.instance_id ?? defaultInstanceId(store),
    );
    ctx.instance = instance;
    // kept from now on: start-up (recovery, config, listen) may take longer than a lease
    let close: () => Promise<void> = async () => undefined;
    const lease = keepLease(ctx, instance, () => void close());
    stops.push(() => lease.stop());
    const recovered = await recoverOrphaned(ctx, 'startup');
    if (recovered > 0)
      logger.warn({ recovered }, 'dispatching calls found at start are now unknown (not re-sent)');
    const mcp = startMcpSupervisor(ctx);
    if (options.config) await applyConfig(ctx, options.config);
    await mcp.start();
    const { app, closeStreams } = buildApp(ctx);
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
    const retention = startEventRetention(ctx);
    stops.push(() => retention.stop());
    if (store.shared) {
      const sweeper = startRecoverySweeper(ctx);
      stops.push(() => sweeper.stop());
    }
    const unsubscribe = store.onEvents?.((clients) => {
      // 'some': notifications were missed (a reconnect, a lost LISTEN) or too many clients to name
      if (clients === 'some') ctx.bus.notifyAll();
      else for (const c of clients) ctx.bus.notify(c);
    });
    if (unsubscribe) stops.push(unsubscribe);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
    const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
    logger.info(
      {
        url,
        hub_id: ctx.hubId,
        instance_id: instance.id,
        incarnation: instance.incarnation,
        durability: store.durability,
      },
      'hub listening',
    );
    let closing: Promise<void> | null = null;
    close = () => {
      closing ??= (async () => {
        for (const stop of stops.splice(0)) stop();
        closeStreams();
        abort();
        // aborted sends finish at once and record `unknown`; let them write before the lease ends
        await Promise.allSettled([...ctx.inflight]);
        await mcp.close();
        await app.close();
        await store
          .stopInstance(instance.id, instance.incarnation, ctx.now().toISOString())
          .catch(() => undefined);
        await store.close();
        unlock();
      })();
      return closing;
    };
    return { url, hubId: ctx.hubId, port, store, ctx, recovered, close: () => close() };
  } catch (err) {
    for (const stop of stops.splice(0)) stop();
    await ctx.mcp?.close();
    await store.close();
    unlock();
    throw err;
  }
}

export type { HubConfig } from './config.js';
export type { HubStore } from './store/types.js';
