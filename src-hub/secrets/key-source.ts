/**
 * Where the Hub's secret key comes from — never from the store it protects (docs/operations.md,
 * "The Hub's secret key"), first match wins:
 *
 * 1. given in-process (`createHub({ secretKey })`: the desk's local Hub keeps it in the OS keychain);
 * 2. a key file named by the command line or the config (`--secret-key-file`, `secret_key_file`);
 * 3. the BAILING_HUB_SECRET_KEY environment variable (the key's text);
 * 4. the BAILING_HUB_SECRET_KEY_FILE environment variable (a key file);
 * 5. a SQLite Hub without any of these: `<data dir>/hub-secret.key`, made (0600) on first start.
 * A key file is owner-only (0600), a regular file owned by this user, never a symlink.
 *
 * A Hub on PostgreSQL has no default: every instance sharing the database needs the same key.
 */
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { readOwnerOnlyFile } from '../../src-shared/private-files.js';
import { writeKeyFile } from './key-file.js';
import { generateSecretKey, parseSecretKey, type SecretKey } from './sealed.js';

export const SECRET_KEY_ENV = 'BAILING_HUB_SECRET_KEY';
export const SECRET_KEY_FILE_ENV = 'BAILING_HUB_SECRET_KEY_FILE';
export const DEFAULT_KEY_FILE_NAME = 'hub-secret.key';

export type SecretKeySource = 'given' | 'env' | 'file' | 'default_file';

export interface ResolvedSecretKey {
  key: SecretKey;
  source: SecretKeySource;
  /** The key file it was read from (file, default_file), else null. */
  file: string | null;
  /** The default key file was made now (first start). */
  created: boolean;
}

export class SecretKeyMissingError extends Error {
  override name = 'SecretKeyMissingError';
}

export interface SecretKeyRequest {
  /** A key handed over in-process (its text, or its 32 bytes). */
  given?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** --secret-key-file / config secret_key_file. */
  file?: string;
  /** The SQLite data directory (where the default key file lives); absent on PostgreSQL. */
  dataDir?: string;
}

export const readKeyFile = (path: string): SecretKey =>
  parseSecretKey(
    readOwnerOnlyFile(path, { label: `the secret key file ${path}`, maxBytes: 1024 }),
    `the secret key file ${path}`,
  );

export function resolveSecretKey(req: SecretKeyRequest): ResolvedSecretKey {
  const env = req.env ?? process.env;
  if (req.given !== undefined) {
    const key =
      typeof req.given === 'string'
        ? parseSecretKey(req.given, 'the given secret key')
        : parseSecretKey(req.given.toString('base64url'), 'the given secret key');
    return { key, source: 'given', file: null, created: false };
  }
  if (req.file) return { key: readKeyFile(req.file), source: 'file', file: req.file, created: false };
  const fromEnv = env[SECRET_KEY_ENV];
  if (fromEnv)
    return { key: parseSecretKey(fromEnv, SECRET_KEY_ENV), source: 'env', file: null, created: false };
  const envFile = env[SECRET_KEY_FILE_ENV];
  if (envFile) return { key: readKeyFile(envFile), source: 'file', file: envFile, created: false };
  if (!req.dataDir)
    throw new SecretKeyMissingError(
      `a Hub on PostgreSQL needs its secret key (the same for every instance): set ${SECRET_KEY_ENV}, ${SECRET_KEY_FILE_ENV}, --secret-key-file FILE or config "secret_key_file" (docs/operations.md)`,
    );
  const path = join(req.dataDir, DEFAULT_KEY_FILE_NAME);
  if (existsSync(path)) return { key: readKeyFile(path), source: 'default_file', file: path, created: false };
  const key = generateSecretKey();
  writeKeyFile(path, key);
  return { key, source: 'default_file', file: path, created: true };
}

/** The key a rotation wrote beside the key file before it changed the store (key-file.ts). */
export const nextKeyFile = (file: string) => `${file}.next`;

/** Finishes a rotation that stopped after the store changed: the next key becomes the key. */
export function promoteNextKeyFile(file: string): void {
  renameSync(nextKeyFile(file), file);
}
