#!/usr/bin/env node
// `npm start`: builds what is needed and starts Bailing Desk. With an Electron binary installed it
// starts the desktop app; without one (as on machines that cannot download it) it says so in one
// sentence and starts the browser host instead, printing the URL to open.
// Environment: BAILING_DATA_DIR (data folder), BAILING_PORT (browser host port),
// BAILING_OPEN_BROWSER=1 (open Chromium on the URL), BAILING_FORCE_BROWSER=1 (browser mode anyway).
// `npm start -- --check` prints which mode it would start and why, and exits.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { electronBinary, nativeModulesFit, REBUILD_HINT, ROOT as root } from './electron-env.mjs';
import { createLinkRelay } from './launch-link.mjs';

const bin = (name) => join(root, 'node_modules/.bin', name);

/** Electron's userData folder for this app, so both modes share one data folder. */
function defaultDataDir() {
  if (process.env.BAILING_DATA_DIR) return process.env.BAILING_DATA_DIR;
  if (process.platform === 'darwin') return join(homedir(), 'Library/Application Support/bailing-desk');
  if (process.platform === 'win32')
    return join(process.env.APPDATA ?? join(homedir(), 'AppData/Roaming'), 'bailing-desk');
  return join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'bailing-desk');
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    console.error(`Build step failed: ${cmd} ${args.join(' ')}`);
    process.exit(r.status ?? 1);
  }
}

function chooseMode() {
  if (process.env.BAILING_FORCE_BROWSER === '1')
    return {
      mode: 'browser',
      electron: null,
      why: 'BAILING_FORCE_BROWSER=1 is set, so Bailing Desk starts in browser mode.',
    };
  const binary = electronBinary();
  if (!binary) {
    return {
      mode: 'browser',
      electron: null,
      why: 'The Electron binary is not installed on this machine (node_modules/electron has no downloaded binary), so Bailing Desk starts in browser mode instead.',
    };
  }
  const fit = nativeModulesFit(binary);
  if (!fit.ok) {
    return {
      mode: 'browser',
      electron: binary,
      why: `Electron is installed, but the native modules are built for Node, not for Electron (${fit.why}), so Bailing Desk starts in browser mode instead. ${REBUILD_HINT}`,
    };
  }
  return { mode: 'electron', electron: binary, why: `Starting the desktop app (${binary}).` };
}

const choice = chooseMode();
if (process.argv.includes('--check')) {
  console.log(`mode: ${choice.mode}`);
  console.log(choice.why);
  process.exit(0);
}
const electron = choice.mode === 'electron' ? choice.electron : null;

if (electron) {
  console.log('Building the desktop app…');
  run(bin('electron-vite'), ['build']);
  const child = spawn(electron, ['.'], { cwd: root, stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.log(choice.why);
  console.log('Building the renderer…');
  run(bin('vite'), ['build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn']);
  const dataDir = defaultDataDir();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(root, 'src-main/browser-host/cli.ts'), '--data', dataDir],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: process.env,
    },
  );
  const relay = createLinkRelay({
    log: (text) => console.log(text),
    open: process.env.BAILING_OPEN_BROWSER === '1',
    browser:
      ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) =>
        existsSync(p),
      ) ?? null,
    spawnBrowser: (browser, args) => spawn(browser, args, { stdio: 'ignore', detached: true }).unref(),
  });
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      relay(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  const forward = (sig) => () => child.kill(sig);
  process.on('SIGINT', forward('SIGINT'));
  process.on('SIGTERM', forward('SIGTERM'));
  child.on('exit', (code) => process.exit(code ?? 0));
}
