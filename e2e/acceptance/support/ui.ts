/** UI steps the scenarios share, written against the renderer's roles, labels and test ids. */
import { expect, type Locator, type Page } from '@playwright/test';
import { join } from 'node:path';
import { ROOT } from '../../harness/renderer-build.js';

export const SCREENSHOT_DIR = join(ROOT, 'e2e/screenshots');

export async function openApp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await waitAppReady(page);
}

/** The app has loaded its state and is connected to the Hub. */
export async function waitAppReady(page: Page): Promise<void> {
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('hub-state')).toContainText('Hub connected', { timeout: 30_000 });
}

export type ViewName = 'Conversations' | 'Tasks' | 'Needs attention' | 'Approvals' | 'Settings';

export async function goTo(page: Page, view: ViewName): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('button', { name: new RegExp(`^${view}`) })
    .click();
}

export interface NewConversation {
  title: string;
  /** Visible system names to keep selected (e.g. "Shop A (homeware)"); the others are unticked. */
  systems: string[];
  /** Task title to bind to (optional). */
  task?: string;
}

export async function newConversation(page: Page, c: NewConversation): Promise<void> {
  await goTo(page, 'Conversations');
  await page.getByRole('button', { name: 'New conversation' }).click();
  const form = page.getByRole('form', { name: 'New conversation' });
  await form.getByLabel('Title').fill(c.title);
  if (c.task) await form.getByLabel('Task').selectOption({ label: c.task });
  const boxes = form.getByRole('group', { name: 'Authorizations' }).getByRole('checkbox');
  await expect(boxes.first()).toBeVisible();
  const n = await boxes.count();
  for (let i = 0; i < n; i++) {
    const box = boxes.nth(i);
    const label = (await box.locator('xpath=..').innerText()).trim();
    const want = c.systems.some((s) => label.startsWith(s));
    if (want !== (await box.isChecked())) await box.setChecked(want);
  }
  await form.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByTestId('conversation-title')).toHaveText(c.title);
}

export async function openConversation(page: Page, title: string): Promise<void> {
  await goTo(page, 'Conversations');
  await page
    .getByRole('navigation', { name: 'Conversations' })
    .getByRole('button', { name: title, exact: true })
    .click();
  await expect(page.getByTestId('conversation-title')).toHaveText(title);
}

/** Sends a message and waits until the turn is over (the "Working…" status is gone). */
export async function send(
  page: Page,
  text: string,
  opts: { waitForText?: string | RegExp } = {},
): Promise<void> {
  const log = page.getByRole('log', { name: 'Conversation' });
  const before = await log.locator('li.item-user_message').count();
  await page.locator('#composer-input').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(log.locator('li.item-user_message')).toHaveCount(before + 1);
  if (opts.waitForText) await expect(log).toContainText(opts.waitForText, { timeout: 60_000 });
  await expect(page.getByRole('status').filter({ hasText: 'Working…' })).toHaveCount(0, { timeout: 60_000 });
}

/** Opens the "Run a tool by hand" panel above the composer (collapsed while a model is configured). */
export async function openRunner(page: Page): Promise<Locator> {
  const panel = page.getByTestId('runner-panel');
  if (!(await panel.evaluate((el) => (el as HTMLDetailsElement).open)))
    await panel.locator('summary').click();
  await expect(panel).toHaveAttribute('open', '');
  return panel;
}

export function cards(page: Page): Locator {
  return page.getByRole('log', { name: 'Conversation' }).getByTestId('tool-card');
}

/** The tool cards of one tool (by its tool name as shown on the card). */
export function cardsOf(page: Page, tool: string): Locator {
  return cards(page).filter({
    has: page.getByTestId('tool-card-summary').locator('strong', { hasText: new RegExp(`^${tool}$`) }),
  });
}

export async function screenshot(page: Page, scenario: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${scenario}.png`), fullPage: true });
}

export async function selectTask(page: Page, title: string): Promise<Locator> {
  await goTo(page, 'Tasks');
  await page.getByRole('button', { name: new RegExp(`^${title} · `) }).click();
  const detail = page.getByTestId('task-detail');
  await expect(detail.getByRole('heading', { level: 3 })).toContainText(title);
  return detail;
}

export interface NewTask {
  title: string;
  /** System name prefix (as shown, e.g. "Shop A") -> the tools allowed for it. */
  authorizations: Record<string, string[]>;
  budget: number;
  inFlight: number;
  /** Product ids whose edits may only change the description (with the tool it applies to). */
  descriptionOnly?: { products: string; tool: string };
}

/** Creates a task from the Tasks view's form (tools typed by name when none are listed). */
export async function createTask(page: Page, task: NewTask): Promise<void> {
  await goTo(page, 'Tasks');
  await page.getByRole('button', { name: 'Create task', exact: true }).first().click();
  const form = page.getByRole('form', { name: 'Create task' });
  await form.getByLabel('Title').fill(task.title);
  const blocks = form.locator('.auth-block');
  await expect(blocks.first()).toBeVisible();
  for (const [system, tools] of Object.entries(task.authorizations)) {
    const block = blocks.filter({ hasText: system });
    await block.getByRole('checkbox').first().check();
    await expect(block.locator('.tool-choice').first()).toBeVisible();
    const listed = block.locator('.tool-choice').getByRole('checkbox');
    for (let i = (await listed.count()) - 1; i >= 0; i--) await listed.nth(i).uncheck();
    for (const tool of tools) {
      const existing = block
        .locator('.tool-choice')
        .filter({ hasText: new RegExp(`^${tool}$`) })
        .getByRole('checkbox');
      if ((await existing.count()) > 0) await existing.check();
      else {
        const input = block.locator('.tools').getByLabel('Add a tool by name');
        await input.fill(tool);
        await input.press('Enter');
        await expect(
          block
            .locator('.tool-choice')
            .filter({ hasText: new RegExp(`^${tool}$`) })
            .getByRole('checkbox'),
        ).toBeChecked();
      }
    }
  }
  await form.getByLabel('Write budget').fill(String(task.budget));
  await form.getByLabel('In-flight limit').fill(String(task.inFlight));
  if (task.descriptionOnly) {
    // The rule sits under its tool in each system block that allows it: only these products, and of
    // their fields only the description.
    const rules = form.getByTestId(`rule-${task.descriptionOnly.tool}`);
    await expect(rules.first()).toBeVisible();
    for (let i = 0; i < (await rules.count()); i++) {
      const rule = rules.nth(i);
      await rule.locator('summary').click();
      await rule.getByLabel('Only these product_id values').fill(task.descriptionOnly.products);
      const fields = rule.getByRole('group', { name: 'Fields it may change' }).getByRole('checkbox');
      for (let j = 0; j < (await fields.count()); j++) {
        const name = (await fields.nth(j).locator('xpath=..').innerText()).trim();
        await fields.nth(j).setChecked(name === 'description');
      }
    }
  }
  await form.getByRole('button', { name: 'Create task' }).click();
  await expect(form).toHaveCount(0);
  await expect(page.getByRole('button', { name: new RegExp(`^${task.title} · `) })).toBeVisible();
}
