// Playwright: Debian's Chromium (no browser download here) with the flags of docs/operations.md#chromium-for-the-tests.
// The smoke suite drives the browser host; the Electron suite runs where an Electron binary exists.
import { defineConfig } from '@playwright/test';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/support/global-setup.ts',
  timeout: 90_000,
  expect: { timeout: 15_000 },
  // Two spec files at once: each acceptance spec starts its own stack (Hub, demo systems, scripted
  // model and browser host as separate processes, on free ports and a temp folder of its own) and
  // spends most of its time waiting on them. PLAYWRIGHT_WORKERS=1 runs one file at a time.
  workers: Number(process.env.PLAYWRIGHT_WORKERS) || 2,
  retries: 0,
  reporter: 'list',
  outputDir: 'test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: {
      executablePath: process.env.BAILING_CHROMIUM ?? '/usr/bin/chromium',
      args: CHROMIUM_ARGS,
    },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
