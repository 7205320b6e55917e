/**
 * Bearer authentication hooks. Tokens are read only from the Authorization header (never from a
 * query string or cookie). Client tokens on admin routes and the admin token on agent routes get
 * 403 `forbidden`; anything else that does not verify gets 401 `unauthorized`. Each authenticated
 * request spends its client's (or the admin's) request rate, and failed tokens count against their
 * address (rate-limit.ts).
 *
 * A token is verified against the store's rows (its client's salted hash, or the admin token's,
 * compared in constant time) and then kept by its salted hash under the configuration generation
 * read with those rows (auth/verified-tokens.ts). A later request with that token checks only that
 * the generation is still the same — every write of a client or of the admin token sets a new one,
 * by whichever process — so a rotated token is refused by the first request whose read sees the
 * rotation, on this Hub and on every other instance of the store. A route that reads the
 * generation anyway (`config: { confirmsToken: true }`: POST /agent/v1/invocations, whose reads
 * carry it) gets the client from memory and confirms it from its own reads (`confirmer`), before
 * it answers or does anything; every other route reads the generation here.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken, clientIdOfToken, hashesMatch, hashToken } from '../auth/tokens.js';
import { createVerifiedTokens, type TokenConfirmation, type VerifiedToken } from '../auth/verified-tokens.js';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { createBuckets, createFailureBound } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    clientId?: string;
    /** A client token let through from memory, still to be confirmed by the route (confirmsToken). */
    pendingToken?: PendingToken;
  }
  interface FastifyContextConfig {
    /** The route confirms a remembered client token against the generation its reads carry. */
    confirmsToken?: boolean;
  }
}

interface PendingToken {
  presented: string;
  generation: string | null;
}

export function createAuth(ctx: HubContext) {
  const salt = ctx.store.tokenSalt();
  const tokens = createVerifiedTokens();
  /** The token's rows from the store: who it is now, remembered under the generation read with them. */
  const verify = async (token: string, presented: string): Promise<VerifiedToken | null> => {
    const id = clientIdOfToken(token);
    const rows = await ctx.store.credentialRows(id);
    let who: VerifiedToken | null = null;
    if (id !== null && rows.client && hashesMatch(presented, rows.client.token_hash))
      who = { client_id: rows.client.client_id, generation: rows.generation };
    else if (rows.admin_token_hash !== null && hashesMatch(presented, rows.admin_token_hash))
      who = { client_id: null, generation: rows.generation };
    if (who) tokens.set(presented, who);
    else tokens.forget(presented);
    return who;
  };
  /** Who the token is: from memory while the generation is the one it was verified under. */
  const identify = async (token: string, presented: string): Promise<VerifiedToken | null> => {
    const known = tokens.get(presented);
    if (known && known.generation === (await ctx.store.configGeneration())) return known;
    return verify(token, presented);
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
  /** A client token's holder let in (its request rate spent), or the error it is refused with. */
  const admitClient = (
    request: FastifyRequest,
    presented: string,
    who: VerifiedToken | null,
    routeUrl: string | undefined,
  ): HubError | undefined => {
    if (!who) return failed(request);
    verified(presented);
    if (who.client_id === null)
      return new HubError(403, 'forbidden', 'the admin token cannot use the agent API');
    request.clientId = who.client_id;
    try {
      agentLimit.take(who.client_id, 'this client');
    } catch (err) {
      return err as HubError;
    }
    ctx.metrics.request(who.client_id, `${request.method} ${routeUrl ?? request.url}`);
    return undefined;
  };
  /** The route's own reads carried another generation: the token is checked against the store now. */
  const reconfirm = async (request: FastifyRequest, pending: PendingToken): Promise<void> => {
    const token = bearerToken(request.headers.authorization);
    const who = token ? await verify(token, pending.presented) : null;
    if (!who || who.client_id !== request.clientId) throw failed(request);
  };
  return {
    /** Forget every remembered token (and the admin's). */
    reset() {
      tokens.clear();
      knownGood.clear();
    },
    /**
     * A callback hook, not an async one: a token remembered for a route that confirms it itself
     * (confirmsToken) is let through with no promise made; any other is identified first.
     */
    client(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
      const token = bearerToken(request.headers.authorization);
      if (!token)
        return done(
          new HubError(401, 'unauthorized', 'a client bearer token is required in the Authorization header'),
        );
      const presented = hashToken(salt, token);
      try {
        guard(request, presented);
      } catch (err) {
        return done(err as Error);
      }
      // Fastify builds this object anew on every read of request.routeOptions: read once
      const route = request.routeOptions;
      const who = tokens.get(presented);
      if (who && who.client_id !== null && route.config.confirmsToken) {
        request.pendingToken = { presented, generation: who.generation };
        return done(admitClient(request, presented, who, route.url));
      }
      identify(token, presented).then(
        (found) => done(admitClient(request, presented, found, route.url)),
        (err: unknown) => done(err as Error),
      );
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
      const who = await identify(token, presented);
      if (!who) throw failed(request);
      verified(presented);
      if (who.client_id !== null)
        throw new HubError(403, 'forbidden', 'client tokens cannot use the admin API');
      adminLimit.take('admin', 'the admin API');
    },
    /**
     * For a route with `confirmsToken`: what confirms the client token the hook let through from
     * memory against the generation the route's reads carry (undefined when the hook checked it).
     * The route calls it before it answers or changes anything; a token changed since is refused
     * there (401), as the hook would have refused it.
     */
    confirmer(request: FastifyRequest): TokenConfirmation | undefined {
      const pending = request.pendingToken;
      if (!pending) return undefined;
      return (generation) => (generation === pending.generation ? undefined : reconfirm(request, pending));
    },
  };
}

export type HubAuth = ReturnType<typeof createAuth>;

export function requireClientId(request: FastifyRequest): string {
  if (!request.clientId) throw new HubError(401, 'unauthorized', 'not authenticated');
  return request.clientId;
}
