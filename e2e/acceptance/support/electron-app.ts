/**
 * The Electron driver of the acceptance scenarios: the same `AppUnderTest` as the browser host,
 * over the real Electron app (./electron-launch.ts).
 *
 * The app runs in REMOTE mode against the harness's Hub through the launch-time route
 * (BAILING_HUB_URL + BAILING_HUB_TOKEN_FILE, a 0600 file; src-main/embedded/launch-hub.ts), keeps
 * its data in BAILING_DATA_DIR (the stack's `desk` folder, as the browser host does) and talks to
 * the scripted model (BAILING_MODEL_BASE_URL, BAILING_MODEL, BAILING_MODEL_API_KEY). Reopen is a
 * SIGKILL of the Electron main process, a wait for its exit, and a relaunch on the same data.
 *
 * UNVERIFIED: no machine in this workplace has an Electron binary, so this driver has only been
 * type-checked and linted, never run.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { startStack } from '../../harness/stack.js';
import type { Script } from '../../../demo/scripted-model/script.js';
import { electronLifecycle, launchElectronDesk } from './electron-launch.js';
import type { AppUnderTest } from './stack-fixture.js';

export async function startElectronApp(
  binary: string,
  name: string,
  script: Script = [],
): Promise<AppUnderTest> {
  const stack = await startStack({ name: `electron-${name}`, script });
  const deskDir = join(stack.dir, 'desk');
  let tokenFile: string | null = null;
  const electron = electronLifecycle(() => {
    if (tokenFile === null) throw new Error('the Hub token file is gone (the stack was closed)');
    return launchElectronDesk(binary, deskDir, {
      BAILING_HUB_URL: stack.hubUrl,
      BAILING_HUB_TOKEN_FILE: tokenFile,
      BAILING_MODEL_BASE_URL: stack.model.url,
      BAILING_MODEL: 'scripted-model',
      BAILING_MODEL_API_KEY: 'sk-e2e-scripted',
    });
  });

  const app: AppUnderTest = {
    variant: 'electron',
    stack,
    get page(): Page {
      return electron.page;
    },
    deskDir,
    kill: () => electron.kill(),
    start: () => electron.start(),
    async reopen() {
      await app.kill();
      await app.start();
    },
    async close() {
      await electron.quit();
      if (tokenFile !== null) rmSync(tokenFile, { force: true });
      tokenFile = null;
      await stack.close();
    },
  };

  try {
    tokenFile = stack.writeHubTokenFile('electron-hub-token');
    await electron.start();
    return app;
  } catch (err) {
    await app.close();
    throw err;
  }
}
