/**
 * The acceptance run's check of the data directories a stack leaves behind (docs/acceptance.md):
 * no file — SQLite databases, their WAL and SHM files, key files, logs — holds a signing secret,
 * client token, admin token, model key or launch token in clear (UTF-8 or UTF-16), every file is
 * 0600 and every directory 0700. Called by a stack's close(); a finding fails the spec.
 */
import { secretsInFiles, wideModes } from '../../test/support/data-scan.js';

export function assertDataDirsPrivate(dirs: string[], secrets: Record<string, string>): void {
  const leaks = secretsInFiles(dirs, secrets);
  const wide = process.platform === 'win32' ? [] : wideModes(dirs);
  if (leaks.length === 0 && wide.length === 0) return;
  throw new Error(
    `data directories are not private: ${JSON.stringify({
      secrets_in_clear: leaks,
      wider_than_owner_only: wide,
    })}`,
  );
}
