/**
 * The tokens this Hub verified, kept in memory by the presented token's salted hash (never the
 * token), each under the configuration generation read with the rows it was verified against
 * (store/sql/ops/config-generation.ts). Every write of a client or of the admin token sets a new
 * generation in its own transaction, whichever process writes it (this Hub, the operator CLI,
 * another instance on PostgreSQL), so an entry stands only while the generation a request reads
 * is still its own: then neither the client's token nor the admin token changed since it was
 * verified. Any other generation sends the token back to the store (and the hash comparison).
 */

/** The most tokens kept; the map is emptied when it is full. */
export const MAX_VERIFIED_TOKENS = 10_000;

export interface VerifiedToken {
  /** The client the token is the token of; null for the admin token. */
  client_id: string | null;
  generation: string | null;
}

export interface VerifiedTokens {
  get(presented: string): VerifiedToken | undefined;
  set(presented: string, token: VerifiedToken): void;
  forget(presented: string): void;
  clear(): void;
}

export function createVerifiedTokens(max = MAX_VERIFIED_TOKENS): VerifiedTokens {
  const tokens = new Map<string, VerifiedToken>();
  return {
    get: (presented) => tokens.get(presented),
    set(presented, token) {
      if (tokens.size >= max) tokens.clear();
      tokens.set(presented, token);
    },
    forget: (presented) => void tokens.delete(presented),
    clear: () => tokens.clear(),
  };
}

/**
 * Confirms a client token let through from memory against the configuration generation a route's
 * own reads carried: nothing to wait for when it is the generation the token was verified under,
 * otherwise the token is checked against the store (and refused, 401, if it changed).
 */
export type TokenConfirmation = (generation: string | null) => Promise<void> | undefined;
