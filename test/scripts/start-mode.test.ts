// `npm start` chooses its mode before building anything: the desktop app when an Electron binary is
// installed AND the native modules fit it; otherwise browser mode, saying plainly why. Checked with
// `--check` against no binary, a stand-in Electron whose native modules do not fit (the message real
// Electron prints), and a stand-in that runs as this Node (where they do fit).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A folder for ELECTRON_OVERRIDE_DIST_PATH, with an `electron` executable made of `script` (or none). */
function distWith(script: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'bailing-fake-electron-'));
  dirs.push(dir);
  if (script !== null) {
    const bin = join(dir, 'electron');
    writeFileSync(bin, script);
    chmodSync(bin, 0o755);
  }
  return dir;
}

function check(dist: string, extra: Record<string, string> = {}): { status: number | null; out: string } {
  const env: Record<string, string | undefined> = { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: dist };
  delete env.BAILING_FORCE_BROWSER;
  Object.assign(env, extra);
  const r = spawnSync(process.execPath, [join(root, 'scripts/start.mjs'), '--check'], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 90_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('npm start: which mode, and why', () => {
  it('no Electron binary: browser mode, said plainly', () => {
    const r = check(distWith(null));
    expect(r.status).toBe(0);
    expect(r.out).toContain('mode: browser');
    expect(r.out).toContain('The Electron binary is not installed on this machine');
  });

  it('Electron whose native modules were built for Node: browser mode, with the ABI message and the rebuild command', () => {
    const mismatch = [
      '#!/bin/sh',
      'echo "Error: The module \'better_sqlite3.node\' was compiled against a different Node.js version using" >&2',
      'echo "NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 130. Please try re-compiling" >&2',
      'exit 1',
      '',
    ].join('\n');
    const r = check(distWith(mismatch));
    expect(r.status).toBe(0);
    expect(r.out).toContain('mode: browser');
    expect(r.out).toContain(
      'the native modules are built for Node, not for Electron (NODE_MODULE_VERSION 115.',
    );
    expect(r.out).toContain('npx @electron/rebuild -w better-sqlite3,re2,keytar');
  });

  it('Electron whose native modules fit: the desktop app (asked of the binary itself, as Node)', () => {
    // Stands in for Electron run as Node (ELECTRON_RUN_AS_NODE=1): this Node, whose ABI the modules were built for.
    const fits = `#!/bin/sh\n[ "$ELECTRON_RUN_AS_NODE" = "1" ] || { echo "expected to be run as Node" >&2; exit 3; }\nexec "${process.execPath}" "$@"\n`;
    const r = check(distWith(fits));
    expect(r.status).toBe(0);
    expect(r.out).toContain('mode: electron');
  });

  it('BAILING_FORCE_BROWSER=1: browser mode whatever is installed', () => {
    const r = check(distWith(`#!/bin/sh\nexec "${process.execPath}" "$@"\n`), { BAILING_FORCE_BROWSER: '1' });
    expect(r.out).toContain('mode: browser');
    expect(r.out).toContain('BAILING_FORCE_BROWSER=1');
  });
});
