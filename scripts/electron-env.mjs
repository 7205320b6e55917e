// Whether this checkout can run the Electron app: the binary (found without triggering its
// download) and whether the native modules load in it. Shared by `npm start` (scripts/start.mjs)
// and the Electron Playwright suites (e2e/support/electron-binary.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** The Electron binary: ELECTRON_OVERRIDE_DIST_PATH, else node_modules/electron/path.txt + dist/<path>; null when absent. */
export function electronBinary() {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, 'electron');
    return existsSync(p) ? p : null;
  }
  const dir = join(ROOT, 'node_modules/electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const p = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(p) ? p : null;
}

/**
 * The native modules (better-sqlite3, re2, keytar) are compiled for one ABI; installed by Node's npm they
 * fit Node, not Electron, which then fails at the first database open. Asked of Electron itself
 * (run as Node), so a mismatch is known before any window opens. `why` is the ABI line when there is one.
 */
export function nativeModulesFit(binary) {
  const r = spawnSync(binary, ['-e', "require('better-sqlite3'); require('re2'); console.log('ok')"], {
    cwd: ROOT,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.status === 0 && r.stdout.includes('ok')) return { ok: true, why: null };
  const text = `${r.stderr ?? ''}${r.stdout ?? ''}${r.error ? String(r.error) : ''}`;
  const abi = /NODE_MODULE_VERSION \d+[^\n]*/.exec(text)?.[0];
  return { ok: false, why: abi ?? (text.trim().split('\n')[0] || `exit ${r.status}`) };
}

export const REBUILD_HINT =
  'For the desktop window run `npx @electron/rebuild -w better-sqlite3,re2,keytar` (and `npm rebuild better-sqlite3 re2 keytar` before `npm test` again).';
