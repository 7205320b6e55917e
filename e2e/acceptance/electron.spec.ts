/**
 * The Electron variant of the acceptance scenarios (`_electron.launch`). It runs only where an
 * Electron binary is installed; elsewhere every scenario is reported skipped with that reason.
 *
 * Where a binary exists, each scenario needs the Electron main process started in REMOTE mode
 * against the harness's Hub (the app now takes BAILING_HUB_URL + BAILING_HUB_TOKEN_FILE at launch)
 * and a reopen driver that SIGKILLs and relaunches the Electron process. The scenarios have not
 * been ported to that driver yet (no machine here can run Electron to verify it), so the test
 * fails loudly there instead of pretending to pass.
 */
import { test } from '@playwright/test';
import { electronBinary } from '../support/electron-binary.js';
import { SCENARIOS } from './support/scenarios.js';

const binary = electronBinary();

for (const s of SCENARIOS) {
  test(`Electron: ${s.n}. ${s.name}`, () => {
    test.skip(binary === null, 'Electron binary not installed on this machine (node_modules/electron has no downloaded binary); the same scenario runs in Chromium through the browser host');
    throw new Error(
      `Electron ${binary}: scenario ${s.n} is not yet ported to _electron.launch (needs an Electron reopen driver); it runs in Chromium through the browser host (${s.file}).`,
    );
  });
}
