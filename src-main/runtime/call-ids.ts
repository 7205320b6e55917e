/**
 * Two identities per tool call. The provider's id goes back to the provider exactly as it gave it
 * (OpenAI refuses ids over 40 characters, and some providers key state by them); where it gave none
 * (or repeated one within a reply) a short id of our own is made: `call_` and 24 letters and digits.
 * The desk's own identity — turn, index, host call id (unique per session, sent to the Hub as
 * `host_call_id`), invocation id — is kept beside it in the archive and never sent to the provider.
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A provider id longer than this is not an id we can keep (a broken or hostile server): we make our own. */
const MAX_PROVIDER_ID = 256;

export function shortCallId(): string {
  let id = 'call_';
  for (const b of randomBytes(24)) id += ALPHABET[b % ALPHABET.length];
  return id;
}

/** The id each call of one reply goes back to the provider with: its own, unless missing, repeated or unusable. */
export function providerCallIds(calls: readonly { id: string }[]): string[] {
  const seen = new Set<string>();
  return calls.map((c) => {
    const usable = c.id.length > 0 && c.id.length <= MAX_PROVIDER_ID && !seen.has(c.id);
    const id = usable ? c.id : shortCallId();
    seen.add(id);
    return id;
  });
}

/** Host call ids are unique per session: the turn id, the call's position and the provider's id. */
export function hostCallId(turnId: string, providerCallId: string, index: number): string {
  const safe = providerCallId.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 100) || `call${index}`;
  return `${turnId}.${index}.${safe}`.slice(0, 200);
}

/**
 * The provider id of a call archived before provider ids were kept: a short id derived from the
 * host call id (the same on every rebuild, at most 40 characters, `[A-Za-z0-9_-]`).
 */
export function legacyProviderCallId(hostId: string): string {
  return `call_${createHash('sha256').update(hostId).digest('base64url').slice(0, 24)}`;
}
