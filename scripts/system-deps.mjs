// The system packages the test suite needs (Debian names) and how to get them: `npm test` calls
// ensureSystemDeps() first, so a fresh machine passes with the README's two commands alone.
// As root with apt-get it installs what is missing; otherwise it stops at once and names the
// one command to run. After libsecret's headers arrive it builds keytar (an optional dependency
// that `npm ci` skips silently where libsecret is missing).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** One entry per Debian package: how to tell it is there. */
export const SYSTEM_PACKAGES = [
  { pkg: 'chromium', present: () => existsSync(process.env.BAILING_CHROMIUM ?? '/usr/bin/chromium') },
  { pkg: 'dbus', present: () => has('dbus-run-session') },
  { pkg: 'gnome-keyring', present: () => has('gnome-keyring-daemon') },
  { pkg: 'libsecret-tools', present: () => has('secret-tool') },
  { pkg: 'libsecret-1-dev', present: () => existsSync('/usr/include/libsecret-1/libsecret/secret.h') },
  { pkg: 'postgresql', present: () => postgresBinDir() !== null },
];

/** The folder holding initdb/pg_ctl/postgres, or null. */
export function postgresBinDir() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const v of ['17', '16', '15', '14', '13']) {
    const dir = join(base, v, 'bin');
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return null;
}

export function missingPackages() {
  return SYSTEM_PACKAGES.filter((p) => !p.present()).map((p) => p.pkg);
}

function keytarInstalled(root) {
  return existsSync(join(root, 'node_modules/keytar/build/Release/keytar.node'));
}

/**
 * Makes sure the system packages and keytar are there. Returns null when ready, or the message
 * to print (with the one command to run) when it cannot do it itself.
 */
export function ensureSystemDeps(root, log = console.log) {
  const missing = missingPackages();
  if (missing.length > 0) {
    const command = `apt-get install -y ${missing.join(' ')}`;
    const canInstall = process.getuid?.() === 0 && has('apt-get');
    if (!canInstall) {
      return `The test suite needs these system packages: ${missing.join(', ')}. Run: sudo ${command}`;
    }
    log(`Installing the system packages the tests need: ${missing.join(' ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    const install =
      update.status === 0
        ? spawnSync('apt-get', ['install', '-y', '-qq', ...missing], {
            stdio: ['ignore', 'ignore', 'inherit'],
            env,
          })
        : update;
    if (install.status !== 0 || missingPackages().length > 0) {
      return `Installing system packages failed. Run: ${command}`;
    }
  }
  if (!keytarInstalled(root)) {
    log('Building keytar (an optional dependency skipped at install because libsecret was missing then)');
    const r = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts=false', 'keytar@7.9.0'],
      { cwd: root, stdio: 'inherit' },
    );
    if (r.status !== 0 || !keytarInstalled(root))
      return 'Building keytar failed. Run: npm install --no-save keytar@7.9.0';
  }
  return null;
}
