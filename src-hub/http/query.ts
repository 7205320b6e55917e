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
  // a callback hook, not an async one: most requests carry no query, and pass with no promise made
  app.addHook('preValidation', (req, _reply, done) => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const keys = Object.keys(query);
    if (keys.length === 0) return done();
    const allowed = req.routeOptions.config.query ?? [];
    for (const key of keys) {
      if (!allowed.includes(key)) {
        return done(
          badRequest(
            allowed.length === 0
              ? `this route takes no query parameters (got ${JSON.stringify(key.slice(0, 64))})`
              : `unknown query parameter ${JSON.stringify(key.slice(0, 64))} (allowed: ${allowed.join(', ')})`,
          ),
        );
      }
      if (typeof query[key] !== 'string')
        return done(badRequest(`query parameter ${key} is given more than once`));
    }
    done();
  });
}

/** One query parameter the route declared, as given (undefined when absent). */
export function queryParam(req: FastifyRequest, name: string): string | undefined {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
}
