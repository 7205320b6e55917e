// Runs a command under a private D-Bus session with an unlocked gnome-keyring (a real Secret
// Service in throwaway folders), so keychain code talks to the real thing and never to the
// user's own keyring. Used by scripts/test.mjs, and by hand:
//   node scripts/keyring-session.mjs npx playwright test e2e/acceptance/approval.spec.ts
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const which = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

export const keyringSessionAvailable = () => which('dbus-run-session') && which('gnome-keyring-daemon');

const quote = (a) => `'${String(a).replaceAll("'", "'\\''")}'`;

/** Runs `argv` inside the session; returns its exit status. */
export function runInKeyringSession(argv, opts = {}) {
  const home = mkdtempSync(join(tmpdir(), 'bailing-keyring-'));
  for (const d of ['data', 'cache', 'run']) mkdirSync(join(home, d), { recursive: true, mode: 0o700 });
  const env = {
    ...process.env,
    ...opts.env,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
    XDG_RUNTIME_DIR: join(home, 'run'),
  };
  const script = `eval "$(printf pass | gnome-keyring-daemon --unlock --components=secrets)"; export GNOME_KEYRING_CONTROL; exec ${argv.map(quote).join(' ')}`;
  try {
    const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', script], {
      stdio: 'inherit',
      env,
      cwd: opts.cwd,
    });
    return r.status ?? 1;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const argv = process.argv.slice(2);
  if (argv.length === 0) {
    console.error('usage: node scripts/keyring-session.mjs COMMAND [ARGS...]');
    process.exit(2);
  }
  if (!keyringSessionAvailable()) {
    console.error(
      'dbus-run-session and gnome-keyring-daemon are needed (apt-get install dbus gnome-keyring).',
    );
    process.exit(2);
  }
  process.exit(runInKeyringSession(argv));
}
