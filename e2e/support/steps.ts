// The operator's first steps, shared by the browser smoke suite and the Electron suite:
// see the demo conversation, create a task, pause it, continue it.
import { expect, type Page } from '@playwright/test';
import { en } from '../../src-renderer/src/i18n/en.js';

export async function seeDemoConversation(page: Page): Promise<void> {
  await expect(page.getByTestId('conversation-title')).toHaveText('Demo: shops and inventory');
  await expect(page.getByTestId('hub-state')).toContainText('Hub connected');
  await expect(page.getByTestId('journal-state')).toContainText(en['journalState.ready']);
  await expect(page.getByTestId('archive-state')).toContainText(en['archiveState.ready']);
}

export async function createTask(page: Page, title: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('button', { name: 'Tasks' })
    .click();
  await page.getByRole('button', { name: 'Create task' }).first().click();
  const form = page.getByRole('form', { name: 'Create task' });
  await form.getByLabel('Title').fill(title);
  await form.getByRole('checkbox', { name: /Shop A/ }).check();
  // Allowed tools: add update_product explicitly if discovery did not list it.
  const tool = form.getByRole('checkbox', { name: 'update_product', exact: true });
  if ((await tool.count()) === 0) {
    const input = form.locator('.auth-block').filter({ hasText: 'Shop A' }).getByLabel('Tool');
    await input.fill('update_product');
    await input.press('Enter');
  }
  await expect(form.getByRole('checkbox', { name: 'update_product', exact: true })).toBeChecked();
  await form.getByLabel('Write budget').fill('6');
  await form.getByLabel('In-flight limit').fill('2');
  await form.getByRole('button', { name: 'Create task' }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByRole('heading', { name: new RegExp(title) })).toBeVisible();
  await expect(page.getByTestId('task-state')).toHaveText('Active');
  await expect(page.getByTestId('task-sentence')).toHaveText('Dispatch is allowed: 6 of 6 writes left.');
}

export async function pauseAndContinue(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByTestId('task-state')).toHaveText('Paused');
  await expect(page.getByTestId('task-sentence')).toHaveText(
    'Further dispatch is paused. Nothing is waiting.',
  );
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByTestId('task-state')).toHaveText('Active');
  await expect(page.getByTestId('task-sentence')).toHaveText('Dispatch is allowed: 6 of 6 writes left.');
}
