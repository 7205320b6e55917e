// Smoke test in Chromium through the browser host: start, see the demo conversation, create a
// task, pause and continue it — the real handler table, Hub, demo systems and runtime.
import { test } from '@playwright/test';
import { startDeskProcess, type DeskProcess } from '../support/desk-process.js';
import { createTask, pauseAndContinue, seeDemoConversation } from '../support/steps.js';

let desk: DeskProcess;

test.beforeAll(async () => {
  desk = await startDeskProcess();
});
test.afterAll(async () => {
  await desk?.stop();
});

test('start, see the demo conversation, create a task, pause and continue it', async ({ page }) => {
  await page.goto(desk.url);
  await seeDemoConversation(page);
  await createTask(page, 'Three products');
  await pauseAndContinue(page);
});
