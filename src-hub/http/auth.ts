/**
 * Bearer authentication hooks. Tokens are read only from the Authorization header (never from a
 * query string or cookie). Client tokens on admin routes and the admin token on agent routes get
 * 403 `forbidden`; anything else that does not verify gets 401 `unauthorized`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, clientIdOfToken, tokenMatches } from '../auth/tokens.js';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    clientId?: string;
  }
}

export const ADMIN_TOKEN_META = 'admin_token_hash';

export function createAuth(ctx: HubContext) {
  const salt = ctx.store.tokenSalt();
  let adminHash: string | null | undefined;
  const isAdmin = async (token: string) => {
    if (adminHash === undefined) adminHash = await ctx.store.getMeta(ADMIN_TOKEN_META);
    return adminHash !== null && tokenMatches(salt, token, adminHash);
  };
  const clientOf = async (token: string): Promise<string | null> => {
    const id = clientIdOfToken(token);
    if (!id) return null;
    const c = await ctx.store.getClient(id);
    return c && tokenMatches(salt, token, c.token_hash) ? c.client_id : null;
  };
  return {
    /** Forget the cached admin hash (after the token is changed). */
    reset() {
      adminHash = undefined;
    },
    async client(request: FastifyRequest, _reply: FastifyReply) {
      const token = bearerToken(request.headers.authorization);
      if (!token)
        throw new HubError(
          401,
          'unauthorized',
          'a client bearer token is required in the Authorization header',
        );
      const clientId = await clientOf(token);
      if (!clientId) {
        if (await isAdmin(token))
          throw new HubError(403, 'forbidden', 'the admin token cannot use the agent API');
        throw new HubError(401, 'unauthorized', 'unknown or invalid token');
      }
      request.clientId = clientId;
      ctx.metrics.request(clientId, `${request.method} ${request.routeOptions.url ?? request.url}`);
    },
    async admin(request: FastifyRequest, _reply: FastifyReply) {
      const token = bearerToken(request.headers.authorization);
      if (!token)
        throw new HubError(
          401,
          'unauthorized',
          'the admin bearer token is required in the Authorization header',
        );
      if (await isAdmin(token)) return;
      if (await clientOf(token))
        throw new HubError(403, 'forbidden', 'client tokens cannot use the admin API');
      throw new HubError(401, 'unauthorized', 'unknown or invalid token');
    },
  };
}

export type HubAuth = ReturnType<typeof createAuth>;

export function requireClientId(request: FastifyRequest): string {
  if (!request.clientId) throw new HubError(401, 'unauthorized', 'not authenticated');
  return request.clientId;
}
