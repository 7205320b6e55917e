/**
 * A key or token follows its origin: it is sent only to the origin (scheme, host, port) it was
 * entered for. Saving a URL on another origin without entering a new secret in the same save
 * removes the stored one, and the operator is told to enter it again — so a renderer bug or a
 * leaked browser-mode link cannot redirect a stored key anywhere.
 */
import { originOf } from '../../src-shared/model-providers.js';

export type SecretChange =
  | { action: 'store'; origin: string | null }
  | { action: 'clear' }
  | { action: 'keep'; origin: string | null };

export function secretChangeOnSave(opts: {
  /** The origin the stored secret was entered for (null: none recorded). */
  storedOrigin: string | null;
  /** A secret is stored now. */
  stored: boolean;
  newUrl: string;
  /** A secret entered in the same save. */
  entered: boolean;
}): SecretChange {
  const origin = originOf(opts.newUrl);
  if (opts.entered) return { action: 'store', origin };
  if (!opts.stored) return { action: 'keep', origin: opts.storedOrigin };
  return opts.storedOrigin === origin ? { action: 'keep', origin } : { action: 'clear' };
}

/** Whether a secret entered for `storedOrigin` may go to `url`. */
export function secretFits(storedOrigin: string | null | undefined, url: string | null | undefined): boolean {
  const target = originOf(url);
  return target !== null && storedOrigin === target;
}
