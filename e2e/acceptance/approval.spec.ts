/**
 * Scenario 6 (pending approval across reopen) in Chromium: the app's embedded default through the
 * product's own browser-mode launcher (src-main/browser-host/cli.ts) on a prepared installation
 * whose local Hub tokens are in the real OS keychain. The body is ./scenarios/approval.ts.
 */
import { test } from '@playwright/test';
import { startLocalStack } from '../harness/local-stack.js';
import {
  APPROVAL_TITLE,
  approvalScript,
  pendingApprovalAcrossReopen,
  type LocalAppUnderTest,
} from './scenarios/approval.js';
import { openApp } from './support/ui.js';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

let app: LocalAppUnderTest | undefined;
test.beforeAll(async ({ browser }) => {
  const stack = await startLocalStack({ name: 'approval', script: approvalScript });
  try {
    const page = await browser.newPage();
    app = {
      stack,
      page,
      kill: () => stack.killHost(),
      async start() {
        const host = await stack.startHost();
        await openApp(page, host.url);
      },
      async close() {
        await page.close().catch(() => undefined);
        await stack.close();
      },
    };
    await app.start();
  } catch (err) {
    await stack.close();
    throw err;
  }
});
test.afterAll(async () => {
  await app?.close();
});

test(APPROVAL_TITLE, async () => {
  if (!app) throw new Error('the local stack did not start');
  await pendingApprovalAcrossReopen(app);
});
