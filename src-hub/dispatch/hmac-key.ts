/**
 * A signing secret as a KeyObject, made once per secret: createHmac with a string key converts and
 * prepares the key on every call (about half the cost of an HMAC over a small request here), and
 * every business request is signed twice (v1 and v2). Keyed by the secret itself, so a rotated
 * secret simply gets a new entry; the Hub's process already holds what opens every system's
 * secret, so keeping opened ones in memory exposes nothing new. Bounded: cleared when full.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';

const MAX_KEYS = 256;
const keys = new Map<string, KeyObject>();

export function hmacKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}
