/**
 * Secrets at rest in the Hub's store (business systems' signing secrets, and any other credential
 * the Hub keeps for a business system): AES-256-GCM under the Hub's secret key, which is never in
 * the store (key-source.ts). A sealed value is
 *
 *   bsk1:<key id>:<iv, base64url>:<ciphertext, base64url>:<tag, base64url>
 *
 * and is bound to where it is kept (`context`, e.g. `systems/shop-a/signing_secret`, the AEAD's
 * additional data), so a sealed value copied into another row does not open. The key id (a digest
 * of the key) names the key that sealed it, so a wrong key is told apart from a damaged value.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export const SECRET_KEY_BYTES = 32;
const PREFIX = 'bsk1';
const IV_BYTES = 12;

export interface SecretKey {
  readonly bytes: Buffer;
  /** A digest of the key (never the key): names the key in sealed values and messages. */
  readonly id: string;
}

/** Kept in place of a secret the Hub could not open with its key and was allowed to drop (a desk's session-only key). */
export const UNREADABLE_SECRET = `${PREFIX}:unreadable`;

export type SecretUnreadableReason = 'not_sealed' | 'other_key' | 'damaged' | 'dropped';

export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError';
  constructor(
    readonly reason: SecretUnreadableReason,
    readonly context: string,
  ) {
    super(
      reason === 'other_key'
        ? `the secret at ${context} was sealed with another secret key`
        : reason === 'dropped'
          ? `the secret at ${context} was dropped (its key was lost); register it again`
          : reason === 'not_sealed'
            ? `the value at ${context} is not a sealed secret`
            : `the sealed secret at ${context} is damaged`,
    );
  }
}

export function secretKeyFrom(bytes: Buffer): SecretKey {
  if (bytes.length !== SECRET_KEY_BYTES) throw new Error(`a secret key is ${SECRET_KEY_BYTES} bytes`);
  const id = createHash('sha256')
    .update('bailing-hub-secret-key-id\0')
    .update(bytes)
    .digest('hex')
    .slice(0, 16);
  return { bytes: Buffer.from(bytes), id };
}

export const generateSecretKey = (): SecretKey => secretKeyFrom(randomBytes(SECRET_KEY_BYTES));

/** The text form of a key (key files, BAILING_HUB_SECRET_KEY): base64url of its 32 bytes. */
export const secretKeyText = (key: SecretKey): string => key.bytes.toString('base64url');

/** A key from its text: base64 or base64url of 32 bytes, or 64 hex digits. Never echoes the text. */
export function parseSecretKey(text: string, label: string): SecretKey {
  const t = text.trim();
  let bytes: Buffer | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(t)) bytes = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) bytes = Buffer.from(t.replace(/=$/, ''), 'base64url');
  if (!bytes || bytes.length !== SECRET_KEY_BYTES)
    throw new Error(
      `${label} must hold a ${SECRET_KEY_BYTES}-byte key as base64url (43 characters) or hex (64 digits)`,
    );
  return secretKeyFrom(bytes);
}

export const isSealed = (value: string): boolean => value.startsWith(`${PREFIX}:`);

export function sealSecret(key: SecretKey, context: string, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
  cipher.setAAD(Buffer.from(`${PREFIX}\0${context}`, 'utf8'));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const b64 = (b: Buffer) => b.toString('base64url');
  return `${PREFIX}:${key.id}:${b64(iv)}:${b64(ct)}:${b64(cipher.getAuthTag())}`;
}

export function openSecret(key: SecretKey, context: string, sealed: string): string {
  if (sealed === UNREADABLE_SECRET) throw new SecretUnreadableError('dropped', context);
  const parts = sealed.split(':');
  if (parts.length !== 5 || parts[0] !== PREFIX) throw new SecretUnreadableError('not_sealed', context);
  const [, keyId, iv, ct, tag] = parts as [string, string, string, string, string];
  if (keyId !== key.id) throw new SecretUnreadableError('other_key', context);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`${PREFIX}\0${context}`, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError('damaged', context);
  }
}

/** Where each kind of secret is kept (the context a sealed value is bound to). */
export const SECRET_CONTEXTS = {
  systemSigningSecret: (systemId: string) => `systems/${systemId}/signing_secret`,
  keyCheck: 'meta/secret_key_check',
} as const;

/** The Hub's secrets as the services use them: seal before storing, open right before use. */
export interface SecretBox {
  /** The key's id, or null when this process holds no key (the operator CLI). */
  readonly keyId: string | null;
  seal(context: string, plaintext: string): string;
  open(context: string, sealed: string): string;
}

/** Opened values a box remembers (one per system's signing secret in practice); cleared when full. */
const OPENED_MAX = 256;

export function secretBox(key: SecretKey): SecretBox {
  // Every dispatch opens its system's signing secret: the answer for the same sealed value (which
  // names its key, IV and context) under the same key is always the same, so it is remembered.
  // This keeps nothing readable that the box itself could not open again: it holds the key.
  const opened = new Map<string, string>();
  return {
    keyId: key.id,
    seal: (context, plaintext) => sealSecret(key, context, plaintext),
    open(context, sealed) {
      const memo = `${context}\0${sealed}`;
      const known = opened.get(memo);
      if (known !== undefined) return known;
      const plaintext = openSecret(key, context, sealed);
      if (opened.size >= OPENED_MAX) opened.clear();
      opened.set(memo, plaintext);
      return plaintext;
    },
  };
}

/** For processes that never use a secret (the operator CLI): any use is a bug, and says so. */
export const LOCKED_SECRET_BOX: SecretBox = {
  keyId: null,
  seal() {
    throw new Error('this process holds no secret key');
  },
  open() {
    throw new Error('this process holds no secret key');
  },
};
