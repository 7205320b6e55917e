/**
 * The keys and tokens Settings handles: each one stored or read is remembered (the runtime masks
 * every remembered secret from then on); a secret the operator typed goes to the keychain, or,
 * when there is none, to memory only with the operator's explicit session-only consent; saving a
 * URL keeps, replaces or deletes the stored secret by its origin (./secret-origin.ts).
 */
import { AppError } from '../../src-shared/errors.js';
import { KeychainUnavailableError, type Keychain } from '../keychain/index.js';
import { secretChangeOnSave } from './secret-origin.js';

export interface SecretKeeper {
  /** Remembers a secret (to be masked) and gives it back. */
  remember(secret: string | null): string | null;
  secrets(): string[];
  /**
   * Saving a URL: a secret entered with it is stored for its origin; without one, a stored secret
   * for another origin is deleted. Returns the origin to record and why the secret is gone (kept
   * as it was when nothing changed).
   */
  followOrigin(
    account: string,
    storedOrigin: string | null,
    url: string,
    entered: string | undefined,
    sessionOnly: boolean | undefined,
  ): Promise<{
    origin: string | null;
    cleared: (before: 'origin_changed' | null) => 'origin_changed' | null;
  }>;
}

export function createSecretKeeper(kc: Keychain, initial: ReadonlyArray<string | null>): SecretKeeper {
  const known = new Set<string>();
  const remember = (secret: string | null) => {
    if (secret) known.add(secret);
    return secret;
  };
  for (const s of initial) remember(s);

  const storeSecret = async (account: string, secret: string, sessionOnly: boolean | undefined) => {
    if (kc.status().state === 'unavailable') {
      if (!sessionOnly)
        throw new AppError(
          'keychain_unavailable',
          new KeychainUnavailableError(kc.status().reason ?? 'unknown').message,
        );
      kc.useSessionOnly();
    }
    remember(secret);
    await kc.set(account, secret);
  };

  return {
    remember,
    secrets: () => [...known],
    async followOrigin(account, storedOrigin, url, entered, sessionOnly) {
      const change = secretChangeOnSave({
        storedOrigin,
        stored: await kc.has(account),
        newUrl: url,
        entered: Boolean(entered),
      });
      if (change.action === 'store' && entered) await storeSecret(account, entered, sessionOnly);
      if (change.action === 'clear') await kc.delete(account);
      return {
        origin: change.action === 'clear' ? null : change.origin,
        cleared: (before) =>
          change.action === 'clear' ? 'origin_changed' : change.action === 'store' ? null : before,
      };
    },
  };
}
