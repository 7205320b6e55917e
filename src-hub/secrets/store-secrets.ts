/**
 * The store's sealed secrets against the key this Hub holds, checked once at start, and the key's
 * rotation (docs/operations.md, "The Hub's secret key").
 *
 * The store keeps a key check (a sealed known text, meta `secret_key_check`): a Hub whose key does
 * not open it refuses to start, naming where the key may come from — unless a rotation stopped
 * between changing the store and replacing the key file (its `.next` key opens the check: the
 * rotation is finished), or the caller may drop what it cannot open (the desk's local Hub, whose
 * systems come from its config at every start). Values an older Hub stored in clear are sealed.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { HubStore, SystemRecord } from '../store/types.js';
import { nextKeyFile, promoteNextKeyFile, readKeyFile, type ResolvedSecretKey } from './key-source.js';
import {
  isSealed,
  openSecret,
  SECRET_CONTEXTS,
  sealSecret,
  secretBox,
  UNREADABLE_SECRET,
  type SecretBox,
  type SecretKey,
} from './sealed.js';

export const KEY_CHECK_META = 'secret_key_check';
const KEY_CHECK_TEXT = 'bailing-hub-secret-key-check';

export class SecretKeyMismatchError extends Error {
  override name = 'SecretKeyMismatchError';
  readonly code = 'secret_key_mismatch';
}

export type OnKeyMismatch = 'refuse' | 'drop_unreadable';

const opens = (key: SecretKey, check: string): boolean => {
  try {
    return openSecret(key, SECRET_CONTEXTS.keyCheck, check) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
};

const signingContext = (s: SystemRecord) => SECRET_CONTEXTS.systemSigningSecret(s.system_id);

/** Seals clear values and, when allowed, drops values no key here opens; writes the key check. */
async function settle(
  store: HubStore,
  key: SecretKey,
  dropUnreadable: boolean,
  writeCheck: boolean,
  logger: Logger,
): Promise<void> {
  const updates: Array<{ system_id: string; signing_secret: string }> = [];
  let sealedNow = 0;
  let dropped = 0;
  for (const s of await store.listSystems()) {
    if (!isSealed(s.signing_secret)) {
      updates.push({
        system_id: s.system_id,
        signing_secret: sealSecret(key, signingContext(s), s.signing_secret),
      });
      sealedNow += 1;
      continue;
    }
    if (!dropUnreadable || s.signing_secret === UNREADABLE_SECRET) continue;
    try {
      openSecret(key, signingContext(s), s.signing_secret);
    } catch {
      updates.push({ system_id: s.system_id, signing_secret: UNREADABLE_SECRET });
      dropped += 1;
    }
  }
  if (updates.length === 0) {
    // nothing sealed or dropped: only a new store's key check to write (no audit entry for that)
    if (writeCheck)
      await store.setMeta(KEY_CHECK_META, sealSecret(key, SECRET_CONTEXTS.keyCheck, KEY_CHECK_TEXT));
    return;
  }
  await store.resealSecrets(
    updates,
    writeCheck ? { [KEY_CHECK_META]: sealSecret(key, SECRET_CONTEXTS.keyCheck, KEY_CHECK_TEXT) } : {},
    { actor: 'hub', kind: 'hub.secrets_sealed', detail: { key_id: key.id, sealed: sealedNow, dropped } },
  );
  if (sealedNow > 0)
    logger.warn(
      { sealed: sealedNow },
      'signing secrets an older Hub stored in clear are now sealed with the secret key',
    );
  if (dropped > 0)
    logger.warn(
      { dropped },
      'signing secrets sealed with a lost key were dropped; their systems send nothing until registered again',
    );
}

/**
 * Checks the key against the store (finishing an interrupted rotation, or dropping what cannot be
 * opened when allowed), seals clear values, and answers the box the services use.
 */
export async function prepareStoreSecrets(
  store: HubStore,
  resolved: ResolvedSecretKey,
  opts: { onMismatch: OnKeyMismatch; logger: Logger },
): Promise<SecretBox> {
  let key = resolved.key;
  const check = await store.getMeta(KEY_CHECK_META);
  if (check === null) {
    await settle(store, key, false, true, opts.logger);
    return secretBox(key);
  }
  if (opens(key, check)) {
    await settle(store, key, false, false, opts.logger);
    return secretBox(key);
  }
  const next = resolved.file ? nextKeyFile(resolved.file) : null;
  if (resolved.file && next && existsSync(next)) {
    const nextKey = readKeyFile(next);
    if (opens(nextKey, check)) {
      promoteNextKeyFile(resolved.file);
      opts.logger.warn(
        { key_id: nextKey.id },
        'a key rotation had changed the store but not yet the key file; the new key file is now in place',
      );
      key = nextKey;
      await settle(store, key, false, false, opts.logger);
      return secretBox(key);
    }
  }
  if (opts.onMismatch === 'drop_unreadable') {
    opts.logger.warn(
      { key_id: key.id },
      "the secret key does not open this store's secrets; dropping what it cannot open",
    );
    await settle(store, key, true, true, opts.logger);
    return secretBox(key);
  }
  throw new SecretKeyMismatchError(
    `the Hub's secret key (${resolved.source}${resolved.file ? ` ${resolved.file}` : ''}, id ${key.id}) does not open this store's secrets; start it with the key the store was sealed with (BAILING_HUB_SECRET_KEY, BAILING_HUB_SECRET_KEY_FILE, --secret-key-file or config "secret_key_file"; docs/operations.md)`,
  );
}

export interface RotationResult {
  resealed: number;
  /** Secrets already dropped (kept dropped). */
  dropped: number;
  old_key_id: string;
  new_key_id: string;
}

/** Re-seals every secret under the new key and replaces the key check, in one store transaction. */
export async function resealUnderNewKey(
  store: HubStore,
  oldKey: SecretKey,
  newKey: SecretKey,
  actor: string,
): Promise<RotationResult> {
  const check = await store.getMeta(KEY_CHECK_META);
  if (check !== null && !opens(oldKey, check))
    throw new SecretKeyMismatchError(
      `the current secret key (id ${oldKey.id}) does not open this store's secrets; nothing was changed`,
    );
  const updates: Array<{ system_id: string; signing_secret: string }> = [];
  let dropped = 0;
  for (const s of await store.listSystems()) {
    if (s.signing_secret === UNREADABLE_SECRET) {
      dropped += 1;
      continue;
    }
    const plain = isSealed(s.signing_secret)
      ? openSecret(oldKey, signingContext(s), s.signing_secret)
      : s.signing_secret;
    updates.push({ system_id: s.system_id, signing_secret: sealSecret(newKey, signingContext(s), plain) });
  }
  await store.resealSecrets(
    updates,
    { [KEY_CHECK_META]: sealSecret(newKey, SECRET_CONTEXTS.keyCheck, KEY_CHECK_TEXT) },
    {
      actor,
      kind: 'hub.secret_key_rotated',
      detail: { old_key_id: oldKey.id, new_key_id: newKey.id, resealed: updates.length },
    },
  );
  return { resealed: updates.length, dropped, old_key_id: oldKey.id, new_key_id: newKey.id };
}
