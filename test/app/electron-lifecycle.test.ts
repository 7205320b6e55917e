// Electron main's lifecycle with only the `electron` module replaced: the single-instance lock,
// start-up on the OS user-data folder (the real desk boots there), IPC registered for our window,
// and an orderly quit that waits for the desk to close (journal and archive flushed, Hub stopped).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CALL_NAMES } from '../../src-shared/ipc/contract.js';
import { waitFor } from './support.js';

const e = vi.hoisted(() => {
  const state = {
    lock: true,
    userData: '',
    calls: [] as string[],
    appHandlers: new Map<string, (...a: unknown[]) => void>(),
    ipcHandlers: new Map<string, unknown>(),
    windows: 0,
    quit: 0,
    exitCode: null as number | null,
  };
  class BrowserWindow {
    webContents = {
      id: 1,
      on: () => {},
      setWindowOpenHandler: () => {},
      isDestroyed: () => false,
      send: () => {},
    };
    constructor() {
      state.windows += 1;
    }
    once() {}
    on() {}
    isDestroyed() {
      return false;
    }
    loadURL() {
      return Promise.resolve();
    }
  }
  const module = {
    app: {
      requestSingleInstanceLock: () => {
        state.calls.push('requestSingleInstanceLock');
        return state.lock;
      },
      whenReady: () => Promise.resolve(),
      getPath: () => state.userData,
      setPath: (name: string, path: string) => {
        state.calls.push(`setPath ${name} ${path}`);
        if (name === 'userData') state.userData = path;
      },
      getVersion: () => '0.0.0-test',
      on: (name: string, fn: (...a: unknown[]) => void) => state.appHandlers.set(name, fn),
      quit: () => {
        state.quit += 1;
      },
      exit: (code: number) => {
        state.exitCode = code;
      },
    },
    ipcMain: {
      handle: (channel: string, fn: unknown) => state.ipcHandlers.set(channel, fn),
      removeHandler: (channel: string) => state.ipcHandlers.delete(channel),
    },
    BrowserWindow,
    protocol: { registerSchemesAsPrivileged: () => {}, handle: () => {} },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: () => {} },
        setPermissionRequestHandler: () => {},
        setPermissionCheckHandler: () => {},
      },
    },
    net: { fetch: () => {} },
    shell: { openExternal: () => {} },
    contextBridge: { exposeInMainWorld: () => {} },
    ipcRenderer: {},
  };
  return { state, module };
});
vi.mock('electron', () => ({ ...e.module, default: e.module }));

const dir = mkdtempSync(join(tmpdir(), 'bailing-electron-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Electron main lifecycle', () => {
  it('quits at once when another instance holds the lock', async () => {
    e.state.lock = false;
    vi.resetModules();
    const prev = process.env.BAILING_DATA_DIR;
    delete process.env.BAILING_DATA_DIR;
    try {
      await import('../../src-main/app/main.js');
    } finally {
      if (prev !== undefined) process.env.BAILING_DATA_DIR = prev;
    }
    expect(e.state.calls).toEqual(['requestSingleInstanceLock']); // the OS user-data folder is kept
    expect(e.state.quit).toBe(1);
    expect(e.state.ipcHandlers.size).toBe(0);
    expect(e.state.windows).toBe(0);
  });

  it('with BAILING_DATA_DIR, moves the Chromium profile (and so the single-instance lock) into that folder before taking the lock', async () => {
    e.state.lock = false;
    e.state.calls = [];
    e.state.quit = 0;
    vi.resetModules();
    const prev = process.env.BAILING_DATA_DIR;
    process.env.BAILING_DATA_DIR = join(dir, 'portable', '..', 'portable');
    try {
      await import('../../src-main/app/main.js');
    } finally {
      if (prev !== undefined) process.env.BAILING_DATA_DIR = prev;
      else delete process.env.BAILING_DATA_DIR;
    }
    expect(e.state.calls).toEqual([
      `setPath userData ${join(dir, 'portable', 'electron-profile')}`,
      'requestSingleInstanceLock',
    ]);
    expect(e.state.quit).toBe(1); // another launch holds THIS folder's lock
  });

  it('boots the desk in the user-data folder, opens one window, and quits only after an orderly close', async () => {
    e.state.lock = true;
    e.state.userData = join(dir, 'userData');
    vi.resetModules();
    const prev = process.env.BAILING_DATA_DIR;
    delete process.env.BAILING_DATA_DIR;
    try {
      await import('../../src-main/app/main.js');
      await waitFor(() => e.state.windows === 1, 60_000, 'the window');
      expect([...e.state.ipcHandlers.keys()].sort()).toEqual(CALL_NAMES.map((n) => `bailing:${n}`).sort());
      expect(existsSync(join(e.state.userData, 'settings.json'))).toBe(true);
      expect(existsSync(join(e.state.userData, 'host', 'invocations.sqlite'))).toBe(true);

      const port = (
        JSON.parse(readFileSync(join(e.state.userData, 'settings.json'), 'utf8')) as {
          embedded: { hub_port: number };
        }
      ).embedded.hub_port;
      expect((await fetch(`http://127.0.0.1:${port}/health`)).ok).toBe(true);

      const beforeQuit = e.state.appHandlers.get('before-quit');
      const prevented = vi.fn();
      beforeQuit?.({ preventDefault: prevented });
      expect(prevented).toHaveBeenCalledTimes(1); // quitting waits for the desk to close
      await waitFor(() => e.state.exitCode !== null, 30_000, 'exit after close');
      expect(e.state.exitCode).toBe(0);
      expect(e.state.ipcHandlers.size).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow(); // the local Hub stopped
      // A second before-quit (Electron sends it again on app.exit paths) does not block.
      const again = vi.fn();
      beforeQuit?.({ preventDefault: again });
      expect(again).not.toHaveBeenCalled();
    } finally {
      if (prev !== undefined) process.env.BAILING_DATA_DIR = prev;
    }
  });
});
