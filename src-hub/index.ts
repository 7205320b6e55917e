/**
 * The Hub, embeddable in-process: `const hub = await createHub({ dataDir })` starts it on
 * 127.0.0.1 (port 0 = any free port) over a SQLite store in `dataDir`; `hub.close()` stops it.
 * On start it verifies migrations and turns every `dispatching` record into `unknown`.
 */
import { setMaxListeners } from 'node:events';
import pino, { type Logger } from 'pino';
import { hashToken } from './auth/tokens.js';
import { applyConfig, rateLimitsOf, type HubConfig } from './config.js';
import type { BusinessEdge, HubContext, HubSettings } from './context.js';
import { createBusinessEdge } from './edge.js';
import { createEventBus } from './events/bus.js';
import { ADMIN_TOKEN_META } from './http/auth.js';
import { DEFAULT_RATE_LIMITS } from './http/rate-limit.js';
import { buildApp } from './http/server.js';
import { recoverDispatching } from './invocations/recovery.js';
import { createMetrics } from './metrics.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { startEventRetention } from './events/retention.js';
import { createSqliteStore } from './store/sqlite/store.js';
import type { HubStore } from './store/types.js';
import { createSchemaValidator } from './validation/ajv.js';

export interface CreateHubOptions {
  dataDir: string;
  host?: string;
  port?: number;
  /** Sets (or replaces) the admin token; only its salted hash is stored. */
  adminToken?: string;
  config?: HubConfig;
  logger?: Logger;
  now?: () => Date;
  /** Override the outbound edge (tests of the edge itself only; defaults to the real one). */
  edge?: BusinessEdge;
  store?: HubStore;
  settings?: Partial<HubSettings>;
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

export const DEFAULT_SETTINGS: HubSettings = {
  bodyLimit: 1024 * 1024,
  rateLimits: DEFAULT_RATE_LIMITS,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  heartbeatMs: 15_000,
  specTimeoutMs: 10_000,
  lookupTimeoutMs: 10_000,
  eventPollMs: 1_000,
  sseMaxStreamsPerClient: 16,
  sseStallMs: 120_000,
  eventRetentionMs: 30 * 24 * 3600_000,
  eventRetentionPerClient: 100_000,
  eventPruneIntervalMs: 3600_000,
};

export interface HubContextOptions {
  dataDir: string;
  logger?: Logger;
  now?: () => Date;
  edge?: BusinessEdge;
  store?: HubStore;
  settings?: Partial<HubSettings>;
  config?: HubConfig;
}

/**
 * Opens the store and builds the services' context without serving HTTP or running startup
 * recovery: the operator CLI uses this next to a running Hub.
 */
export function openHubContext(options: HubContextOptions): { ctx: HubContext; abort: () => void } {
  const logger = options.logger ?? pino({ level: 'silent' });
  const store = options.store ?? createSqliteStore({ dataDir: options.dataDir });
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal); // one listener per in-flight send
  const now = options.now ?? (() => new Date());
  const settings: HubSettings = {
    ...DEFAULT_SETTINGS,
    ...(options.config?.body_limit ? { bodyLimit: options.config.body_limit } : {}),
    ...(options.config?.heartbeat_ms ? { heartbeatMs: options.config.heartbeat_ms } : {}),
    ...(options.config?.event_retention_days
      ? { eventRetentionMs: options.config.event_retention_days * 24 * 3600_000 }
      : {}),
    rateLimits: rateLimitsOf(options.config, DEFAULT_SETTINGS.rateLimits),
    ...(options.config?.sse_max_streams_per_client
      ? { sseMaxStreamsPerClient: options.config.sse_max_streams_per_client }
      : {}),
    ...(options.config?.event_retention_per_client
      ? { eventRetentionPerClient: options.config.event_retention_per_client }
      : {}),
    ...options.settings,
  };
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
    settings,
    shutdown: shutdown.signal,
    inflight: new Set(),
  };
  return { ctx, abort: () => shutdown.abort() };
}

export async function createHub(options: CreateHubOptions): Promise<Hub> {
  const unlock = options.store ? () => undefined : lockDataDir(options.dataDir);
  let opened: ReturnType<typeof openHubContext>;
  try {
    opened = openHubContext(options);
  } catch (err) {
    unlock();
    throw err;
  }
  const { ctx, abort } = opened;
  const { store, logger } = ctx;
  try {
    const adminToken = options.adminToken ?? options.config?.admin_token;
    if (adminToken) await store.setMeta(ADMIN_TOKEN_META, hashToken(store.tokenSalt(), adminToken));
    const recovered = await recoverDispatching(ctx);
    if (recovered > 0)
      logger.warn({ recovered }, 'dispatching calls found at start are now unknown (not re-sent)');
    if (options.config) await applyConfig(ctx, options.config);
    const { app, closeStreams } = buildApp(ctx);
    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
    const retention = startEventRetention(ctx);
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
    const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
    logger.info({ url, hub_id: ctx.hubId, durability: store.durability }, 'hub listening');
    let closing: Promise<void> | null = null;
    return {
      url,
      hubId: ctx.hubId,
      port,
      store,
      ctx,
      recovered,
      close() {
        closing ??= (async () => {
          retention.stop();
          closeStreams();
          abort();
          // aborted sends finish at once and record `unknown`; let them write before the store closes
          await Promise.allSettled([...ctx.inflight]);
          await app.close();
          await store.close();
          unlock();
        })();
        return closing;
      },
    };
  } catch (err) {
    await store.close();
    unlock();
    throw err;
  }
}

export type { HubConfig } from './config.js';
export type { HubStore } from './store/types.js';
