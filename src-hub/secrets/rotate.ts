/**
 * The operator's key rotation (`npm run hub -- rotate-secret-key`): a new key, every secret
 * re-sealed under it in one store transaction, then the key file replaced. Crash-safe: the new key
 * is written durably beside the key file (`<file>.next`) before the store changes, and a Hub that
 * finds the store sealed under `.next` finishes the rename at start (store-secrets.ts). The Hub
 * must not be running: it holds the old key in memory (SQLite: the data-directory lock proves it;
 * PostgreSQL: no instance may hold a live lease).
 */
import { existsSync } from 'node:fs';
import type { HubStore } from '../store/types.js';
import { writeKeyFile } from './key-file.js';
import {
  nextKeyFile,
  promoteNextKeyFile,
  readKeyFile,
  SECRET_KEY_ENV,
  type ResolvedSecretKey,
} from './key-source.js';
import { generateSecretKey } from './sealed.js';
import { resealUnderNewKey, type RotationResult } from './store-secrets.js';

export class RotationRefusedError extends Error {
  override name = 'RotationRefusedError';
  readonly code = 'rotation_refused';
}

export interface RotateOptions {
  store: HubStore;
  current: ResolvedSecretKey;
  /** Where the new key goes (made if absent, read if present); default: the current key file. */
  newKeyFile?: string;
  actor: string;
  nowMs?: number;
}

export async function rotateSecretKey(opts: RotateOptions): Promise<RotationResult & { key_file: string }> {
  const now = opts.nowMs ?? Date.now();
  const live = (await opts.store.listInstances()).filter(
    (i) => i.stopped_at === null && i.lease_expires_at_ms > now,
  );
  if (live.length > 0)
    throw new RotationRefusedError(
      `Hub instances are running on this store (${live.map((i) => i.instance_id).join(', ')}); stop them first — they hold the old key`,
    );
  if (opts.newKeyFile) {
    const newKey = existsSync(opts.newKeyFile) ? readKeyFile(opts.newKeyFile) : generateSecretKey();
    if (!existsSync(opts.newKeyFile)) writeKeyFile(opts.newKeyFile, newKey);
    if (newKey.id === opts.current.key.id)
      throw new RotationRefusedError('the new key is the current key; nothing was changed');
    const result = await resealUnderNewKey(opts.store, opts.current.key, newKey, opts.actor);
    return { ...result, key_file: opts.newKeyFile };
  }
  const file = opts.current.file;
  if (!file)
    throw new RotationRefusedError(
      `the current key comes from ${opts.current.source === 'env' ? SECRET_KEY_ENV : 'the caller'}; give --new-secret-key-file FILE for the new one`,
    );
  const next = nextKeyFile(file);
  const newKey = existsSync(next) ? readKeyFile(next) : generateSecretKey();
  if (!existsSync(next)) writeKeyFile(next, newKey);
  const result = await resealUnderNewKey(opts.store, opts.current.key, newKey, opts.actor);
  promoteNextKeyFile(file);
  return { ...result, key_file: file };
}
