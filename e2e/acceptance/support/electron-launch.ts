/**
 * Launching the real Electron app for the acceptance scenarios: `electron-vite build` once per
 * worker, `_electron.launch` of the built app with the given environment, the first window loaded
 * and ready; and a SIGKILL that waits for the exit (reopen = kill + launch on the same data).
 *
 * UNVERIFIED: no machine in this workplace has an Electron binary, so this has only been
 * type-checked and linted, never run.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from '@playwright/test';
import { ROOT } from '../../harness/renderer-build.js';
import { assertElectronRunnable } from '../../support/electron-binary.js';
import { waitAppReady } from './ui.js';

let built = false;

/** `electron-vite build` once per test worker (main, preload and renderer into out/), after checking the native modules fit. */
function buildElectronApp(binary: string): void {
  if (built) return;
  assertElectronRunnable(binary);
  const r = spawnSync(join(ROOT, 'node_modules/.bin/electron-vite'), ['build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('electron-vite build failed');
  built = true;
}

export async function killAndWait(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGKILL');
  await exited;
}

export interface RunningElectron {
  app: ElectronApplication;
  page: Page;
}

/** Launches the app on BAILING_DATA_DIR = `dataDir` with `env` added; resolves once its window is ready. */
export async function launchElectronDesk(
  binary: string,
  dataDir: string,
  env: Record<string, string>,
): Promise<RunningElectron> {
  buildElectronApp(binary);
  const app = await electron.launch({
    executablePath: binary,
    args: [ROOT],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), BAILING_DATA_DIR: dataDir, ...env },
  });
  try {
    const page = await app.firstWindow();
    await waitAppReady(page);
    return { app, page };
  } catch (err) {
    await killAndWait(app.process());
    throw err;
  }
}

/** An orderly quit, or a SIGKILL when the app does not answer. */
export async function closeElectronDesk(running: RunningElectron): Promise<void> {
  await running.app.close().catch(() => killAndWait(running.app.process()));
}

/** One Electron app across reopens: the current window, SIGKILL, relaunch, orderly quit. */
export interface ElectronLifecycle {
  readonly page: Page;
  kill(): Promise<void>;
  start(): Promise<void>;
  quit(): Promise<void>;
}

export function electronLifecycle(launch: () => Promise<RunningElectron>): ElectronLifecycle {
  let current: RunningElectron | null = null;
  return {
    get page(): Page {
      if (!current) throw new Error('the Electron app is not running');
      return current.page;
    },
    async kill() {
      const running = current;
      current = null;
      if (running) await killAndWait(running.app.process());
    },
    async start() {
      if (current) throw new Error('the Electron app is already running');
      current = await launch();
    },
    async quit() {
      const running = current;
      current = null;
      if (running) await closeElectronDesk(running);
    },
  };
}
