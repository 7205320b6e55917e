/**
 * Strict query strings: a route names the parameters it takes (`config: { query: [...] }`);
 * any other parameter, a repeated one (`?a=1&a=2`) or a bracketed one (`?state[]=x`) is
 * 400 `invalid_request`, so a typo is never silently ignored.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Query parameters this route accepts (none when absent). */
    query?: readonly string[];
  }
}

export function installStrictQuery(app: FastifyInstance): void {
  app.addHook('preValidation', async (req) => {
    const allowed = req.routeOptions.config.query ?? [];
    const query = (req.query ?? {}) as Record<string, unknown>;
    for (const [key, value] of Object.entries(query)) {
      if (!allowed.includes(key)) {
        throw badRequest(
          allowed.length === 0
            ? `this route takes no query parameters (got ${JSON.stringify(key.slice(0, 64))})`
            : `unknown query parameter ${JSON.stringify(key.slice(0, 64))} (allowed: ${allowed.join(', ')})`,
        );
      }
      if (typeof value !== 'string') throw badRequest(`query parameter ${key} is given more than once`);
    }
  });
}

/** One query parameter the route declared, as given (undefined when absent). */
export function queryParam(req: FastifyRequest, name: string): string | undefined {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
}
