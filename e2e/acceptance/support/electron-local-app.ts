/**
 * The Electron driver of scenario 6: the real Electron app on its embedded default (local Hub and
 * demo systems in the main process), on an installation prepared by e2e/harness/local-install.ts
 * (settings with a known client id; the local Hub's tokens in the OS keychain, which the app reads
 * through its own keychain code, so the harness knows the admin token). Reopen = SIGKILL of the
 * Electron main process and a relaunch on the same data.
 *
 * UNVERIFIED: no machine in this workplace has an Electron binary. The same prepared installation
 * is exercised for real by approval.spec.ts through the browser-mode launcher.
 */
import type { Page } from '@playwright/test';
import { startLocalStack } from '../../harness/local-stack.js';
import type { Script } from '../../../demo/scripted-model/script.js';
import type { LocalAppUnderTest } from '../scenarios/approval.js';
import { electronLifecycle, launchElectronDesk } from './electron-launch.js';

export async function startElectronLocalApp(
  binary: string,
  name: string,
  script: Script,
): Promise<LocalAppUnderTest> {
  const stack = await startLocalStack({ name: `electron-${name}`, script });
  const electron = electronLifecycle(() => launchElectronDesk(binary, stack.desk, stack.modelEnv));
  const app: LocalAppUnderTest = {
    stack,
    get page(): Page {
      return electron.page;
    },
    kill: () => electron.kill(),
    start: () => electron.start(),
    async close() {
      await electron.quit();
      await stack.close();
    },
  };
  try {
    await app.start();
    return app;
  } catch (err) {
    await app.close();
    throw err;
  }
}
