/**
 * Builds the Hub's Fastify app: JSON parsing, the error envelope (also for what never reaches a
 * route: see framework-errors.ts), strict query strings, auth, rate limits and every route.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { re2Engine } from '../../src-shared/schema-safety.js';
import type { HubContext } from '../context.js';
import { registerAdminRoutes } from './admin-routes.js';
import { registerAgentRoutes } from './agent-routes.js';
import { createAuth, type HubAuth } from './auth.js';
import { installErrorHandling, installJsonParser } from './errors.js';
import {
  createClientErrorHandler,
  frameworkErrorHandler,
  installExpectationHandler,
} from './framework-errors.js';
import { installStrictQuery } from './query.js';
import { requestLoggerFactory } from './request-logger.js';
import { createStreamRegistry } from '../events/stream-registry.js';
import { registerEventRoutes } from './events-route.js';
import { registerTaskRoutes } from './task-routes.js';
import { registerMcpEndpoint } from '../mcp-endpoint/route.js';

/** Longest raw path parameter the router takes; longer → 414 `uri_too_long`. */
export const MAX_PARAM_LENGTH = 512;

export interface HubRoute {
  method: string;
  url: string;
}

export interface HubApp {
  app: FastifyInstance;
  auth: HubAuth;
  /** Every route registered (tests fuzz each one). */
  routes: HubRoute[];
  /** Closes every open SSE stream (used at shutdown). */
  closeStreams(): void;
}

export function buildApp(ctx: HubContext): HubApp {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // each request's child logger is made only when it logs (request-logger.ts)
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: ctx.settings.bodyLimit,
    forceCloseConnections: true,
    // ids up to the contract's 128 visible characters, percent-encoded (3 bytes each), fit
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    requestTimeout: ctx.settings.requestTimeoutMs,
    http: {
      headersTimeout: Math.min(ctx.settings.headersTimeoutMs, ctx.settings.requestTimeoutMs),
      // how often Node looks for requests past their timeout (its default of 30 s makes them vague)
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(ctx.settings.requestTimeoutMs / 2)),
      maxHeaderSize: 16 * 1024,
    },
    clientErrorHandler: createClientErrorHandler(ctx.logger),
    frameworkErrors: frameworkErrorHandler,
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        allErrors: false,
        code: { regExp: re2Engine },
      },
    },
  });
  installJsonParser(app);
  installErrorHandling(app);
  installStrictQuery(app);
  installExpectationHandler(app.server);
  const routes: HubRoute[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) routes.push({ method, url: r.url });
  });
  const auth = createAuth(ctx);
  const streams = createStreamRegistry(ctx);
  app.get('/health', async () => ({ status: 'ok', hub_id: ctx.hubId }));
  registerAgentRoutes(app, ctx, auth);
  registerTaskRoutes(app, ctx, auth);
  registerEventRoutes(app, auth, streams);
  registerAdminRoutes(app, ctx, auth, streams);
  registerMcpEndpoint(app, ctx, auth);
  return {
    app,
    auth,
    routes,
    closeStreams: () => streams.closeAll(),
  };
}
