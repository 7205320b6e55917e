/**
 * The acceptance suite's own Playwright config (run it alone with
 *   npx playwright test -c e2e/acceptance/playwright.config.ts
 * ). One worker: each spec file starts its own Hub, demo systems, scripted model and browser host
 * as separate processes, and the machine has two cores. Debian's Chromium, never a download.
 */
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from './support/browser.js';

export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts$/,
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 180_000,
  expect: { timeout: 20_000 },
  reporter: [['list']],
  outputDir: '../../test-results/acceptance',
  use: {
    browserName: 'chromium',
    launchOptions: chromiumLaunchOptions(),
    viewport: { width: 1400, height: 1000 },
    trace: 'off',
    screenshot: 'off',
  },
});
