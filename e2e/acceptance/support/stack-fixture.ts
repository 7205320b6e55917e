/**
 * One acceptance stack per spec file (Hub, demo systems, scripted model, browser host), one page
 * that stays open across the file's serial scenarios, and `reopen()`: SIGKILL the host process,
 * start it again on the same data, and load the app again.
 */
import type { Browser, Page } from '@playwright/test';
import { startStack, type Stack } from '../../harness/stack.js';
import type { Script } from '../../../demo/scripted-model/script.js';
import { openApp } from './ui.js';

export interface AppUnderTest {
  stack: Stack;
  page: Page;
  /** SIGKILL the host, start it on the same data, open the app again (same page object). */
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export async function startApp(browser: Browser, name: string, script: Script = []): Promise<AppUnderTest> {
  const stack = await startStack({ name, script });
  try {
    const host = await stack.startHost();
    const page = await browser.newPage();
    await openApp(page, host.url);
    const app: AppUnderTest = {
      stack,
      page,
      async reopen() {
        await stack.killHost();
        const next = await stack.startHost();
        await openApp(page, next.url);
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
