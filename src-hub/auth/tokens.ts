/**
 * Bearer tokens. A client token is `bdc_<client_id>.<secret>`; the admin token is any string the
 * operator chooses. Only sha256(salt + token) is stored (the salt is per Hub, in the store's meta
 * table); presented tokens are compared with timingSafeEqual. Tokens are accepted only from the
 * `Authorization: Bearer` header.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export function hashToken(salt: string, token: string): string {
  // one-shot over the same bytes as three updates (salt, NUL, token)
  return hash('sha256', `${salt}\0${token}`, 'hex');
}

/** Constant-time comparison of a presented token's hash with a stored one (hex). */
export function hashesMatch(presentedHash: string, storedHash: string): boolean {
  const a = Buffer.from(presentedHash, 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function newClientToken(clientId: string): string {
  return `bdc_${clientId}.${randomBytes(32).toString('base64url')}`;
}

/** The client id a client token names (the hash comparison still decides). */
export function clientIdOfToken(token: string): string | null {
  const m = /^bdc_([A-Za-z0-9_.:-]{1,128})\.[A-Za-z0-9_-]{16,}$/.exec(token);
  return m?.[1] ?? null;
}

export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  const m = /^Bearer ([\x21-\x7e]{1,1024})$/.exec(header.trim());
  return m?.[1] ?? null;
}
