/**
 * Electron main: the only code that imports `electron`. Single-instance lock, one window, IPC
 * registration, and an orderly shutdown that flushes the journal and the archive before exit.
 * Everything it hosts is plain Node (composeDesk), shared with the browser host.
 */
import { app, BrowserWindow, ipcMain } from 'electron';
import { join, resolve } from 'node:path';
import { composeDesk, type ComposedDesk } from '../embedded/composition-root.js';
import { registerIpc, type IpcRegistration } from './ipc.js';
import { createMainWindow, registerAppScheme, serveRenderer } from './window.js';

const log = (msg: string) => console.error(`[bailing] ${msg}`);

// Everything this process creates (data folder, Chromium's profile) is its owner's only.
process.umask(0o077);

// BAILING_DATA_DIR overrides the OS user-data folder (tests, portable use). Chromium's profile and
// the single-instance lock then live inside it too, so the lock guards that data folder: two
// launches on one folder cannot both write its journal, two on different folders do not collide.
const dataDirOverride = process.env.BAILING_DATA_DIR ? resolve(process.env.BAILING_DATA_DIR) : null;
if (dataDirOverride !== null) app.setPath('userData', join(dataDirOverride, 'electron-profile'));

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  registerAppScheme();
  let win: BrowserWindow | null = null;
  let root: ComposedDesk | null = null;
  let ipc: IpcRegistration | null = null;
  let quitting = false;

  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });

  app.on('web-contents-created', (_e, contents) => {
    contents.on('will-navigate', (event, url) => {
      if (!url.startsWith('app://bailing/')) event.preventDefault();
    });
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  });

  app
    .whenReady()
    .then(async () => {
      serveRenderer(join(import.meta.dirname, '../renderer'));
      root = await composeDesk({
        dataDir: dataDirOverride ?? app.getPath('userData'),
        version: app.getVersion(),
        log,
      });
      ipc = registerIpc({
        ipcMain,
        router: root.router,
        bus: root.bus,
        webContents: () => (win && !win.isDestroyed() ? win.webContents : null),
        log,
      });
      win = createMainWindow(join(import.meta.dirname, '../preload/index.cjs'));
      win.on('closed', () => {
        win = null;
      });
    })
    .catch((err: unknown) => {
      log(`could not start: ${err instanceof Error ? err.message : String(err)}`);
      app.exit(1);
    });

  app.on('window-all-closed', () => app.quit());

  app.on('before-quit', (event) => {
    if (quitting || !root) return;
    event.preventDefault();
    quitting = true;
    ipc?.dispose();
    root
      .close()
      .catch((err: unknown) => log(`shutdown: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => app.exit(0));
  });
}
