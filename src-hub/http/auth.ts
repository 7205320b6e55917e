/**
 * Bearer authentication hooks. Tokens are read only from the Authorization header (never from a
 * query string or cookie). Client tokens on admin routes and the admin token on agent routes get
 * 403 `forbidden`; anything else that does not verify gets 401 `unauthorized`. Each authenticated
 * request spends its client's (or the admin's) request rate, and failed tokens count against their
 * address (rate-limit.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, clientIdOfToken, hashesMatch, hashToken } from '../auth/tokens.js';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { createBuckets, createFailureBound } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    clientId?: string;
  }
}

export const ADMIN_TOKEN_META = 'admin_token_hash';

export function createAuth(ctx: HubContext) {
  const salt = ctx.store.tokenSalt();
  let adminHash: string | null | undefined;
  // `presented` is the presented token's salted hash, computed once per request
  const isAdmin = async (presented: string) => {
    if (adminHash === undefined) adminHash = await ctx.store.getMeta(ADMIN_TOKEN_META);
    return adminHash !== null && hashesMatch(presented, adminHash);
  };
  // Client tokens this Hub verified, by the presented token's salted hash. Only on a store no other
  // process serves (SQLite: one Hub per data directory): a client's token is set only by the config
  // applied before this app exists, so a verified token stays the client's for this process's life.
  // On a shared store another instance may change it, so every request reads the client.
  const verifiedClients = ctx.store.shared ? null : new Map<string, string>();
  const clientOf = async (token: string, presented: string): Promise<string | null> => {
    const id = clientIdOfToken(token);
    if (!id) return null;
    if (verifiedClients?.get(presented) === id) return id;
    const c = await ctx.store.getClient(id);
    if (!c || !hashesMatch(presented, c.token_hash)) return null;
    if (verifiedClients) {
      if (verifiedClients.size >= 10_000) verifiedClients.clear();
      verifiedClients.set(presented, c.client_id);
    }
    return c.client_id;
  };
  const limits = ctx.settings.rateLimits;
  const agentLimit = createBuckets(limits.agent);
  const adminLimit = createBuckets(limits.admin);
  const failures = createFailureBound(limits.authFailures);
  /** Hashes of tokens this Hub has verified: still accepted while their address is over the failure bound. */
  const knownGood = new Set<string>();
  const verified = (presented: string) => {
    if (knownGood.size >= 10_000) knownGood.clear();
    knownGood.add(presented);
  };
  /** Over the failure bound, only an already verified token is looked at. */
  const guard = (request: FastifyRequest, presented: string) => {
    try {
      failures.check(request.ip);
    } catch (err) {
      if (!knownGood.has(presented)) throw err;
    }
  };
  const failed = (request: FastifyRequest) => {
    failures.fail(request.ip);
    return new HubError(401, 'unauthorized', 'unknown or invalid token');
  };
  return {
    /** Forget the cached admin hash (after the token is changed). */
    reset() {
      adminHash = undefined;
      knownGood.clear();
      verifiedClients?.clear();
    },
    async client(request: FastifyRequest, _reply: FastifyReply) {
      const token = bearerToken(request.headers.authorization);
      if (!token)
        throw new HubError(
          401,
          'unauthorized',
          'a client bearer token is required in the Authorization header',
        );
      const presented = hashToken(salt, token);
      guard(request, presented);
      const clientId = await clientOf(token, presented);
      if (!clientId) {
        if (await isAdmin(presented)) {
          verified(presented);
          throw new HubError(403, 'forbidden', 'the admin token cannot use the agent API');
        }
        throw failed(request);
      }
      verified(presented);
      request.clientId = clientId;
      agentLimit.take(clientId, 'this client');
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
      const presented = hashToken(salt, token);
      guard(request, presented);
      if (await isAdmin(presented)) {
        verified(presented);
        adminLimit.take('admin', 'the admin API');
        return;
      }
      if (await clientOf(token, presented)) {
        verified(presented);
        throw new HubError(403, 'forbidden', 'client tokens cannot use the admin API');
      }
      throw failed(request);
    },
  };
}

export type HubAuth = ReturnType<typeof createAuth>;

export function requireClientId(request: FastifyRequest): string {
  if (!request.clientId) throw new HubError(401, 'unauthorized', 'not authenticated');
  return request.clientId;
}
