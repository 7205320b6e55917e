/**
 * One acceptance stack per spec file (Hub, demo systems, scripted model, and the app under test),
 * and the driver interface the scenarios use: the app's page, `kill()` (SIGKILL the host, wait for
 * its exit), `start()` (start it again on the same data and load the app) and `reopen()` (both).
 * Two drivers implement it: the browser host in Chromium (`startApp`, here) and the Electron app
 * (`electronStarter`, ./electron-app.ts). Scenarios read `app.page` again after a reopen: in
 * Electron the window is a new page object.
 */
import type { Browser, Page } from '@playwright/test';
import { join } from 'node:path';
import { startStack, type Stack, type StrictProviderOption } from '../../harness/stack.js';
import type { Script } from '../../../demo/scripted-model/script.js';
import { openApp } from './ui.js';

export interface AppUnderTest {
  /** 'chromium' (browser host) or 'electron'. */
  variant: 'chromium' | 'electron';
  stack: Stack;
  /** The app's current page (the same object across reopens in Chromium, a new one in Electron). */
  readonly page: Page;
  /** The desk's data folder (settings, journal, archive) that survives a reopen. */
  deskDir: string;
  /** SIGKILL the host process and wait until it has exited. */
  kill(): Promise<void>;
  /** Start the host again on the same data and load the app (after `kill()`). */
  start(): Promise<void>;
  /** `kill()` then `start()`. */
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export async function startApp(
  browser: Browser,
  name: string,
  script: Script = [],
  provider?: StrictProviderOption,
): Promise<AppUnderTest> {
  const stack = await startStack({ name, script, ...(provider ? { provider } : {}) });
  try {
    const host = await stack.startHost();
    const page = await browser.newPage();
    await openApp(page, host.url);
    const app: AppUnderTest = {
      variant: 'chromium',
      stack,
      page,
      deskDir: join(stack.dir, 'desk'),
      async kill() {
        await stack.killHost();
      },
      async start() {
        const next = await stack.startHost();
        await openApp(page, next.url);
      },
      async reopen() {
        await app.kill();
        await app.start();
      },
      async close() {
        await page.close().catch(() => undefined);
        await stack.close();
      },
    };
    return app;
  } catch (err) {
    await stack.close();
    throw err;
  }
}
