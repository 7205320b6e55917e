/**
 * The Electron variant of the acceptance scenarios: the same scenario bodies as the Chromium specs
 * (./scenarios/*.ts), run against the real Electron app through `_electron.launch`
 * (./support/electron-app.ts: remote mode against the harness's Hub via BAILING_HUB_URL +
 * BAILING_HUB_TOKEN_FILE, data in BAILING_DATA_DIR, reopen = SIGKILL of the Electron process and a
 * relaunch on the same data). It runs only where an Electron binary is installed; elsewhere every
 * entry is reported skipped with that reason.
 *
 * Scenario 6 (pending approval across reopen) drives the app's LOCAL Hub: the Electron app is
 * launched on an installation prepared by e2e/harness/local-install.ts (its local Hub's tokens in
 * the OS keychain, read by the app's own keychain code), through ./support/electron-local-app.ts.
 *
 * Nothing in this workplace can run Electron: the driver and this spec are type-checked and
 * linted, never executed (docs/acceptance.md).
 */
import { test } from '@playwright/test';
import { electronBinary } from '../support/electron-binary.js';
import { startElectronApp } from './support/electron-app.js';
import { startElectronLocalApp } from './support/electron-local-app.js';
import {
  APPROVAL_TITLE,
  approvalScript,
  pendingApprovalAcrossReopen,
  type LocalAppUnderTest,
} from './scenarios/approval.js';
import type { AppUnderTest } from './support/stack-fixture.js';
import type { ScenarioSuite } from './support/suite.js';
import { boundariesSuite } from './scenarios/boundaries.js';
import { conversationSuite } from './scenarios/conversation.js';
import { recoverySuite } from './scenarios/recovery.js';
import { tasksSuite } from './scenarios/tasks.js';

const binary = electronBinary();
const NO_BINARY =
  'Electron binary not installed on this machine (node_modules/electron has no downloaded binary); the same scenario runs in Chromium through the browser host';

function registerElectron(suite: ScenarioSuite): void {
  test.describe(`Electron: ${suite.name}`, () => {
    test.describe.configure({ mode: suite.mode, timeout: 240_000 });
    test.skip(binary === null, NO_BINARY);
    let app: AppUnderTest | undefined;
    test.beforeAll(async () => {
      if (binary === null) return;
      app = await startElectronApp(binary, suite.name, suite.script);
      await suite.setup?.(app);
    });
    test.afterAll(async () => {
      await app?.close();
    });
    for (const s of suite.scenarios) {
      test(`Electron: ${s.title}`, async () => {
        if (!app) throw new Error('the Electron stack did not start');
        await s.run(app);
      });
    }
  });
}

registerElectron(conversationSuite);
registerElectron(tasksSuite);
registerElectron(recoverySuite);
registerElectron(boundariesSuite);

test.describe('Electron: approval', () => {
  test.describe.configure({ mode: 'serial', timeout: 240_000 });
  test.skip(binary === null, NO_BINARY);
  let app: LocalAppUnderTest | undefined;
  test.beforeAll(async () => {
    if (binary === null) return;
    app = await startElectronLocalApp(binary, 'approval', approvalScript);
  });
  test.afterAll(async () => {
    await app?.close();
  });
  test(`Electron: ${APPROVAL_TITLE}`, async () => {
    if (!app) throw new Error('the Electron app did not start');
    await pendingApprovalAcrossReopen(app);
  });
});
