// The same operator steps in the real Electron app (_electron.launch), wherever an Electron
// binary is installed. Where it is not (machines that cannot download it), the suite reports a
// skip with that reason; the browser smoke suite covers the same steps through the same handlers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron as electron, test } from '@playwright/test';
import { ROOT } from '../support/desk-process.js';
import { assertElectronRunnable, electronBinary } from '../support/electron-binary.js';
import { createTask, pauseAndContinue, seeDemoConversation } from '../support/steps.js';

const binary = electronBinary();

test('Electron: start, see the demo conversation, create a task, pause and continue it', async () => {
  test.skip(
    binary === null,
    'Electron binary not installed on this machine (node_modules/electron has no downloaded binary)',
  );
  if (binary === null) return;
  assertElectronRunnable(binary);
  const build = spawnSync(join(ROOT, 'node_modules/.bin/electron-vite'), ['build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) throw new Error('electron-vite build failed');
  const userData = mkdtempSync(join(tmpdir(), 'bailing-electron-'));
  const app = await electron.launch({
    executablePath: binary,
    args: [ROOT],
    cwd: ROOT,
    env: { ...process.env, BAILING_DATA_DIR: userData } as Record<string, string>,
  });
  try {
    const page = await app.firstWindow();
    await seeDemoConversation(page);
    await createTask(page, 'Three products');
    await pauseAndContinue(page);
  } finally {
    await app.close();
    rmSync(userData, { recursive: true, force: true });
  }
});
