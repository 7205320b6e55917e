/** Builds the Hub's Fastify app: JSON parsing, the error envelope, auth and every route. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { re2Engine } from '../../src-shared/schema-safety.js';
import type { HubContext } from '../context.js';
import { registerAdminRoutes } from './admin-routes.js';
import { registerAgentRoutes } from './agent-routes.js';
import { createAuth, type HubAuth } from './auth.js';
import { installErrorHandling, installJsonParser } from './errors.js';
import { createStreamRegistry } from '../events/stream-registry.js';
import { registerEventRoutes } from './events-route.js';
import { registerTaskRoutes } from './task-routes.js';

export interface HubApp {
  app: FastifyInstance;
  auth: HubAuth;
  /** Closes every open SSE stream (used at shutdown). */
  closeStreams(): void;
}

export function buildApp(ctx: HubContext): HubApp {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    bodyLimit: ctx.settings.bodyLimit,
    forceCloseConnections: true,
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
  const auth = createAuth(ctx);
  const streams = createStreamRegistry(ctx);
  app.get('/health', async () => ({ status: 'ok', hub_id: ctx.hubId }));
  registerAgentRoutes(app, ctx, auth);
  registerTaskRoutes(app, ctx, auth);
  registerEventRoutes(app, auth, streams);
  registerAdminRoutes(app, ctx, auth, streams);
  return {
    app,
    auth,
    closeStreams: () => streams.closeAll(),
  };
}
