/**
 * The operator's day, in Chromium through the browser host, by hand (one scripted model answer, in
 * test 13): every step through the
 * screen, every word looked up in the app's catalogue by its code (never typed in English here).
 *  1. a read's arguments and result on its card without Inspect, also after a reload;
 *  2. a write shows its exact request and needs Confirm; a double click sends one request (ledger);
 *  3. the host SIGKILLed while a write was at the shop: after the restart the card has the
 *     invocation id and its actions, the card and Needs attention agree, exactly one write; the
 *     shop's data survives a SIGKILL of the shop itself (a read in the app shows the write);
 *  4. a lost acknowledgement across a reopen: the card and Needs attention agree ("Result needs
 *     checking"); what the operator checked in the shop, recorded in Needs attention, settles the
 *     call (nothing sent) and the open conversation follows without a reload;
 *  5. language and theme survive a reload; no English catalogue words on the Chinese screens;
 *  6. the remote Hub unreachable at start: the app opens offline, says why, Settings a click away;
 *  6b. the embedded default: a write survives a SIGKILL of the app (and its demo shop); Reset demo
 *     data in Settings says what it does, asks, answers next to its button, and the shop is back
 *     at its seed while its write history and the Hub's record of the call are kept;
 *  7. the conversation: the page does not scroll, the composer stays pinned with the runner above
 *     it, the log follows new output, stops when scrolled up (a "jump to the latest" button), resumes;
 *  8. a token kept for one session only, gone after a restart: the app opens offline, says why,
 *     Settings a click away (the keychain's state worded, never the loader's developer path);
 *  9. a task's boundary on the task and in its conversation's header (title, rule in words),
 *     exactly its authorizations ticked, and a refusal naming the argument;
 * 10. approvals (embedded default): the system by name, approval apart from execution, the link to
 *     the conversation (its card says "approved" too), Resume runs it once;
 * 11. Resume in Needs attention, and the open conversation follows without a reload; one write;
 * 12. screenshots of the main views in English/light and Chinese/dark (docs/desktop-app.md);
 * 13. a Markdown answer rendered, raw HTML in it never markup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { stateLabel } from '../../src-renderer/src/i18n/index.js';
import { receipt, dispatchCount } from './support/checks.js';
import type { Script } from '../../demo/scripted-model/script.js';
import { startApp, type AppUnderTest } from './support/stack-fixture.js';
import { createTask, openApp, openRunner, screenshot, SCREENSHOT_DIR } from './support/ui.js';
import { startLocalStack } from '../harness/local-stack.js';
import { DEMO_SESSION_TITLE } from '../../src-main/embedded/composition-root.js';
import { seedProducts } from '../../demo/shop/seed.js';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

/** The one model answer of the day: Markdown, with raw HTML that must never become markup. */
const MARKDOWN_SCRIPT: Script = [
  {
    match: { userIncludes: '[markdown]' },
    reply: {
      text: '**Shop A** has two towels:\n\n- Linen tea towel\n- Waffle towel\n\n<img src="x" onerror="window.__pwned = 1"> <b>raw</b>',
    },
  },
];

let app: AppUnderTest;
test.beforeAll(async ({ browser }) => {
  app = await startApp(browser, 'operator-day', MARKDOWN_SCRIPT);
});
test.afterAll(async () => {
  await app?.close();
});

const TITLE = 'Operator day';
const label = (state: string) => stateLabel(state, 'en');

type NavKey = 'nav.conversations' | 'nav.tasks' | 'nav.idle' | 'nav.approvals' | 'nav.settings';

async function goTo(page: Page, key: NavKey): Promise<void> {
  await page
    .getByRole('navigation', { name: en['nav.main'] })
    .getByRole('button', { name: new RegExp(`^${en[key]}`) })
    .click();
}

async function openConversation(page: Page, title = TITLE): Promise<void> {
  await goTo(page, 'nav.conversations');
  await page
    .getByRole('navigation', { name: en['sessions.title'] })
    .getByRole('button', { name: title, exact: true })
    .click();
  await expect(page.getByTestId('conversation-title')).toHaveText(title);
}

const runner = (page: Page) => page.getByRole('region', { name: en['manual.title'] });

async function chooseTool(page: Page, query: string, tool: string): Promise<void> {
  await openRunner(page);
  const r = runner(page);
  await r.getByLabel(en['manual.query']).fill(query);
  await r.getByRole('button', { name: en['manual.search'] }).click();
  const select = r.locator('select').first();
  const pick = () =>
    select.evaluate(
      (el: HTMLSelectElement, want: string) =>
        [...el.options].find((o) => (o.textContent ?? '').startsWith(want))?.value ?? '',
      `${tool} — Shop A`,
    );
  await expect.poll(pick).not.toBe('');
  await select.selectOption(await pick());
}

async function reviewWrite(page: Page, productId: number, description: string): Promise<Locator> {
  await chooseTool(page, 'edit product description', 'update_product_content');
  const r = runner(page);
  await r.getByLabel(/^product_id/).fill(String(productId));
  await r.getByLabel(/^description/).fill(description);
  await r.getByRole('button', { name: en['manual.review'] }).click();
  return r.getByTestId('write-preview');
}

function card(page: Page, invocationId: string): Locator {
  return page
    .getByRole('log', { name: en['conv.items'] })
    .getByTestId('tool-card')
    .filter({ has: page.getByTestId('tool-card-invocation').filter({ hasText: invocationId }) });
}

/** Runs get_product for a Shop A product by hand and answers its card once completed. */
async function readProduct(page: Page, productId: number): Promise<Locator> {
  const log = page.getByRole('log', { name: en['conv.items'] });
  const reads = log
    .getByTestId('tool-card')
    .filter({ has: page.getByTestId('tool-card-summary').filter({ hasText: 'get_product' }) })
    .filter({ has: page.getByText(`product_id ${productId}`) });
  const before = await reads.count();
  await chooseTool(page, 'product details', 'get_product');
  await runner(page)
    .getByLabel(/^product_id/)
    .fill(String(productId));
  await runner(page).getByRole('button', { name: en['manual.run'] }).click();
  await expect(reads).toHaveCount(before + 1);
  const read = reads.last();
  await expect(read.getByTestId('tool-card-state')).toHaveText(label('succeeded'));
  return read;
}

/**
 * A description write to product 13 the shop commits but whose answer is lost on the way back:
 * the card says "Result needs checking"; returns its invocation id (exactly one write in the ledger).
 */
async function writeWithLostAnswer(page: Page, description: string): Promise<string> {
  const { stack } = app;
  await stack.setFault('shop-a', {
    operation: 'update_product_content',
    kind: 'drop_after_commit',
    times: 'once',
  });
  const before = (await stack.ledger('shop-a')).length;
  const preview = await reviewWrite(page, 13, description);
  await preview.getByRole('button', { name: en['manual.confirmWrite'] }).click();
  await expect.poll(async () => (await stack.ledger('shop-a')).length).toBe(before + 1);
  const id = (await stack.ledger('shop-a')).at(-1)?.idempotency_key ?? '';
  await expect(card(page, id).getByTestId('tool-card-state')).toHaveText(label('unknown'));
  return id;
}

const idleRow = (page: Page, invocationId: string) =>
  page.getByTestId('idle-row').filter({ hasText: invocationId });

test('1. a read shows its arguments and result on its card, also after a reload', async () => {
  const page = app.page;
  await goTo(page, 'nav.conversations');
  await page.getByRole('button', { name: en['sessions.new'] }).click();
  const form = page.getByRole('form', { name: en['sessions.new'] });
  await form.getByLabel(en['sessions.newTitle']).fill(TITLE);
  const boxes = form.getByRole('group', { name: en['sessions.scope'] }).getByRole('checkbox');
  await expect(boxes.first()).toBeVisible();
  for (let i = 0; i < (await boxes.count()); i++) {
    const text = (await boxes.nth(i).locator('xpath=..').innerText()).trim();
    await boxes.nth(i).setChecked(text.startsWith('Shop A'));
  }
  await form.getByRole('button', { name: en['sessions.create'] }).click();
  await expect(page.getByTestId('conversation-title')).toHaveText(TITLE);

  await chooseTool(page, 'product details', 'get_product');
  await runner(page)
    .getByLabel(/^product_id/)
    .fill('42');
  await runner(page).getByRole('button', { name: en['manual.run'] }).click();
  const read = page.getByTestId('tool-card').filter({ has: page.getByText('product_id 42') });
  await expect(read.getByTestId('tool-card-state')).toHaveText(label('succeeded'));
  await expect(read.getByTestId('tool-card-summary')).toContainText('get_product');
  await expect(read.getByTestId('tool-card-result')).toContainText('"product_id": 42');
  await expect(read.getByTestId('tool-card-result').locator('pre')).toBeVisible();
  const resultText = await read.getByTestId('tool-card-result').locator('pre').innerText();
  await screenshot(page, 'operator-01-read-result');

  await page.reload();
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible({ timeout: 30_000 });
  await openConversation(page);
  const again = page.getByTestId('tool-card').filter({ has: page.getByText('product_id 42') });
  await expect(again.getByTestId('tool-card-result').locator('pre')).toHaveText(resultText);
});

test('2. a write shows its exact request, needs Confirm, and a double click sends one request', async () => {
  const page = app.page;
  const before = await app.stack.ledger('shop-a');
  const preview = await reviewWrite(page, 13, 'Stonewashed linen towel, 50 x 70 cm.');
  await expect(preview.getByTestId('write-preview-arguments')).toHaveText(
    JSON.stringify({ product_id: 13, description: 'Stonewashed linen towel, 50 x 70 cm.' }, null, 2),
  );
  await expect(preview).toContainText('Shop A');
  expect(await app.stack.ledger('shop-a')).toEqual(before); // nothing sent before the confirm
  await screenshot(page, 'operator-02-write-preview');

  await preview.getByRole('button', { name: en['manual.confirmWrite'] }).dblclick();
  await expect(runner(page).getByTestId('write-sent')).toBeVisible();
  await expect.poll(async () => (await app.stack.ledger('shop-a')).length).toBe(before.length + 1);
  await expect(runner(page).getByLabel(/^product_id/)).toHaveValue('');
  await page.waitForTimeout(1000);
  const after = await app.stack.ledger('shop-a');
  expect(after).toHaveLength(before.length + 1);
  const key = after.at(-1)?.idempotency_key ?? '';
  expect(await dispatchCount(app.stack, key)).toBe(1);
});

test('3. SIGKILL mid-write: after the restart the card has its id and actions and agrees with Needs attention; one write', async () => {
  const { stack } = app;
  let page = app.page;
  // The shop takes its time: the host is killed while the request is at the shop.
  await stack.setFault('shop-a', {
    operation: 'update_product_content',
    kind: 'delay',
    delay_ms: 6000,
    times: 'once',
  });
  const preview = await reviewWrite(page, 7, 'Blue-rim enamel mug.');
  await preview.getByRole('button', { name: en['manual.confirmWrite'] }).click();
  const atShop = async () =>
    (await stack.requests('shop-a')).filter((r) => r.kind === 'operation' && r.fault === 'delay').at(-1)
      ?.idempotency_key ?? '';
  await expect.poll(atShop, { timeout: 30_000 }).not.toBe('');
  const id = await atShop();
  await app.kill();
  await app.start();
  page = app.page;

  await openConversation(page);
  const c = card(page, id);
  // The card has the call's id from the archive (written before the request left) and its actions;
  // the Hub's answer, arriving on the live stream after the restart, brings it to Completed.
  await expect(c.getByRole('button', { name: en['card.inspect'] })).toBeVisible();
  await expect(c.getByTestId('tool-card-state')).toHaveText(label('succeeded'), { timeout: 30_000 });
  await screenshot(page, 'operator-03-after-crash-card');

  // Needs attention still lists it (the journal has no answer recorded yet) and says the same.
  await goTo(page, 'nav.idle');
  const row = idleRow(page, id);
  await expect(row.getByTestId('idle-state')).toHaveText(label('succeeded'));
  await expect(row.getByTestId('idle-journal-entry')).toHaveText(en['idle.fenceSaved']);
  await expect(row).not.toContainText('pending_dispatch');
  await row.getByRole('button', { name: en['card.inspect'] }).click();
  await expect(idleRow(page, id)).toHaveCount(0);

  await goTo(page, 'nav.conversations');
  await expect(c.getByTestId('tool-card-state')).toHaveText(label('succeeded'));
  await expect(c.getByTestId('tool-card-result')).toContainText('Blue-rim enamel mug.');
  expect(await dispatchCount(stack, id)).toBe(1);
  expect((await stack.ledger('shop-a')).filter((e) => e.idempotency_key === id)).toHaveLength(1);

  // The shop's own data survives a SIGKILL of the shop: it is kept in its data folder, so after a
  // crash the operator can look in the shop to see whether the write happened.
  await stack.killDemo();
  await stack.startDemo();
  const products = (await stack.demoState('shop-a')) as {
    products: { product_id: number; description: string }[];
  };
  expect(products.products.find((p) => p.product_id === 7)?.description).toBe('Blue-rim enamel mug.');
  expect((await stack.ledger('shop-a')).filter((e) => e.idempotency_key === id)).toHaveLength(1);
  const check = await readProduct(page, 7);
  await expect(check.getByTestId('tool-card-result')).toContainText('Blue-rim enamel mug.');
});

test('4. a lost acknowledgement across a reopen: the operator checks the shop and records it; the call is settled by a person, nothing sent', async () => {
  const { stack } = app;
  let page = app.page;
  await openConversation(page);
  const before = (await stack.ledger('shop-a')).length;
  const id = await writeWithLostAnswer(page, 'Linen towel, stonewashed, 50 x 70 cm.');

  await app.reopen();
  page = app.page;
  await openConversation(page);
  await expect(card(page, id).getByTestId('tool-card-state')).toHaveText(label('unknown'));
  await goTo(page, 'nav.idle');
  const row = idleRow(page, id);
  await expect(row.getByTestId('idle-state')).toHaveText(label('unknown'));

  // The operator looked in the shop: the new description is there. They record it.
  await row.getByRole('button', { name: en['card.attest'] }).click();
  const form = row.getByTestId('attest-form');
  await form.getByLabel(en['attest.succeeded']).check();
  await form.getByLabel(en['attest.note']).fill('Product 13 shows the new description in the shop.');
  await screenshot(page, 'operator-04-attest-form');
  await form.getByRole('button', { name: en['attest.confirm'] }).click();
  await expect(idleRow(page, id)).toHaveCount(0);
  expect((await receipt(stack, id))?.state).toBe('succeeded');
  expect((await receipt(stack, id))?.reason_code).toBe('operator_attested');

  await goTo(page, 'nav.conversations');
  const c = card(page, id);
  await expect(c.getByTestId('tool-card-state')).toHaveText(label('succeeded'));
  await expect(c.getByTestId('tool-card-settlement')).toContainText(en['card.settled.succeeded']);
  await expect(c.getByTestId('tool-card-settlement')).toContainText('Product 13 shows the new description');
  expect((await stack.ledger('shop-a')).length).toBe(before + 1);
  expect(await dispatchCount(stack, id)).toBe(1); // nothing was sent again
  await screenshot(page, 'operator-04-settled-by-person');
});

// Every English sentence of the catalogue (and every English state word or raw code) that the page
// shows; product data (tool names, arguments, results) may be English.
const ENGLISH = [
  ...Object.entries(en)
    .filter(([k, v]) => (zh as Record<string, string>)[k] !== v)
    .flatMap(([, v]) => v.split(/\{\w+\}/))
    .map((f) => f.trim())
    .filter((f) => f.length >= 12),
  ...['Result needs checking', 'Unverified', 'Completed', 'Running', 'pending_dispatch', 'interrupted:'],
];

async function englishOnScreen(page: Page): Promise<string[]> {
  const shown = await page.evaluate(() => {
    const root = document.body.cloneNode(true) as HTMLElement;
    for (const el of root.querySelectorAll('pre, code, .card-summary, option')) el.remove();
    return root.innerText;
  });
  return ENGLISH.filter((e) => shown.includes(e));
}

test('5. language and theme survive a reload, and no English is left on the Chinese screens', async () => {
  const page = app.page;
  await page.getByLabel(en['lang.label']).selectOption('zh');
  await page.getByRole('button', { name: zh['theme.toggle'].replace('{mode}', zh['theme.dark']) }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  const zhViews = ['nav.conversations', 'nav.tasks', 'nav.idle', 'nav.approvals', 'nav.settings'] as const;
  for (const key of zhViews) {
    await page
      .getByRole('navigation', { name: zh['nav.main'] })
      .getByRole('button', { name: new RegExp(`^${zh[key]}`) })
      .click();
    if (key === 'nav.conversations')
      await page
        .getByRole('navigation', { name: zh['sessions.title'] })
        .getByRole('button', { name: TITLE, exact: true })
        .click();
    await page.waitForTimeout(500);
    expect(await englishOnScreen(page), `English on the Chinese ${key} view`).toEqual([]);
    await screenshot(page, `operator-05-zh-dark-${key.replace('nav.', '')}`);
  }
  await page.getByLabel(zh['lang.label']).selectOption('en');
  await page.getByRole('button', { name: en['theme.toggle'].replace('{mode}', en['theme.light']) }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('6. the remote Hub unreachable at start: the app opens offline, says why, and Settings is one click away', async () => {
  const { stack } = app;
  const page = app.page;
  await app.kill();
  await stack.killHub();
  const host = await stack.startHost();
  await page.goto(host.url);
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible({ timeout: 30_000 });
  const banner = page.getByTestId('hub-banner');
  // The app is open, says the Hub cannot be reached (it keeps reconnecting) and offers Settings. A
  // remote Hub without its token, or never met and silent at start, opens with the problem worded
  // instead (test/app/never-locked-out.test.ts).
  await expect(banner).toContainText(en['hub.disconnected']);
  await screenshot(page, 'operator-05-offline');
  await banner.getByRole('button', { name: en['hub.openSettings'] }).click();
  await expect(page.getByRole('heading', { name: en['settings.title'] })).toBeVisible();
  // The conversations are still there to read.
  await openConversation(page);
  await expect(page.getByTestId('tool-card').first()).toBeVisible();

  await stack.startHub();
  await app.reopen();
  await expect(app.page.getByTestId('hub-state')).toContainText(en['hub.connected']);
});

test('6b. the embedded default: a write survives a SIGKILL of the app, and Reset demo data in Settings puts the shop back to its seed', async ({
  browser,
}) => {
  // The app's own launcher with its local Hub and demo systems inside it (the SIGKILL ends all three).
  const local = await startLocalStack({ name: 'operator-day-demo-data' });
  const page = await browser.newPage();
  try {
    await openApp(page, (await local.startHost()).url);
    await openConversation(page, DEMO_SESSION_TITLE);
    const preview = await reviewWrite(page, 42, 'Walnut board, re-oiled on delivery.');
    await preview.getByRole('button', { name: en['manual.confirmWrite'] }).click();
    await expect.poll(async () => (await local.ledger('shop-a')).length).toBe(1);
    const id = (await local.ledger('shop-a'))[0]?.idempotency_key ?? '';
    await expect(card(page, id).getByTestId('tool-card-state')).toHaveText(label('succeeded'));

    await local.killHost();
    await openApp(page, (await local.startHost()).url);
    await openConversation(page, DEMO_SESSION_TITLE);
    // The shop (restarted with the app) still has the write: the operator's read shows it.
    const read = await readProduct(page, 42);
    await expect(read.getByTestId('tool-card-result')).toContainText('Walnut board, re-oiled on delivery.');
    expect((await local.ledger('shop-a')).map((e) => e.idempotency_key)).toEqual([id]);

    await goTo(page, 'nav.settings');
    const section = page.getByTestId('demo-data');
    await expect(section.getByRole('heading', { name: en['demoData.title'] })).toBeVisible();
    await expect(section).toContainText(local.desk);
    const resetButton = section.getByRole('button', { name: en['demoData.reset'] });
    // Keep the current data: nothing happens.
    await resetButton.click();
    const confirm = section.getByTestId('demo-data-confirm');
    await expect(confirm).toContainText(en['demoData.confirmText']);
    await confirm.getByRole('button', { name: en['demoData.cancel'] }).click();
    await expect(confirm).toHaveCount(0);
    expect(await local.ledger('shop-a')).toHaveLength(1);

    await resetButton.click();
    await screenshot(page, 'operator-06b-reset-demo-data-confirm');
    await confirm.getByRole('button', { name: en['demoData.confirm'] }).click();
    // The answer is next to the button (in its row), worded from the catalogue.
    const answer = resetButton.locator('xpath=..').getByTestId('demo-data-answer');
    await expect(answer).toHaveText(
      en['demoData.done'].replace('{systems}', 'Shop A (homeware), Shop B (coffee gear), Inventory'),
    );
    await screenshot(page, 'operator-06b-reset-demo-data-done');

    // The shop is back at its seed; its write history and the Hub's record of the call are kept.
    await openConversation(page, DEMO_SESSION_TITLE);
    const seeded = await readProduct(page, 42);
    await expect(seeded.getByTestId('tool-card-result')).toContainText(
      seedProducts('A').find((p) => p.product_id === 42)?.description ?? '(seed)',
    );
    expect((await local.ledger('shop-a')).map((e) => e.idempotency_key)).toEqual([id]);
    const receiptAfter = await local.admin<{ state: string }>(
      'GET',
      `/admin/v1/invocations/${encodeURIComponent(id)}`,
    );
    expect(receiptAfter.state).toBe('succeeded');
  } finally {
    await page.close().catch(() => undefined);
    await local.close();
  }
});

test('7. the conversation: the page does not scroll, the composer stays pinned, the log follows new output unless the operator scrolled up', async () => {
  const page = app.page;
  await page.setViewportSize({ width: 1280, height: 720 });
  await openConversation(page);
  await chooseTool(page, 'product details', 'get_product');
  const log = page.getByTestId('conversation-log');
  const readOnce = async (productId: number) => {
    const before = await page.getByTestId('tool-card').count();
    await runner(page)
      .getByLabel(/^product_id/)
      .fill(String(productId));
    await runner(page).getByRole('button', { name: en['manual.run'] }).click();
    await expect(page.getByTestId('tool-card')).toHaveCount(before + 1);
  };
  const metrics = () =>
    log.evaluate((el) => ({
      fromEnd: el.scrollHeight - el.scrollTop - el.clientHeight,
      top: el.scrollTop,
      overflow: el.scrollHeight > el.clientHeight,
      pageScrolls: (document.scrollingElement?.scrollHeight ?? 0) > window.innerHeight,
    }));
  // Enough cards that the log is longer than its box.
  for (const id of [42, 7, 13, 42, 7]) await readOnce(id);
  await expect.poll(async () => (await metrics()).overflow).toBe(true);
  const m = await metrics();
  expect(m.pageScrolls).toBe(false); // the page itself never scrolls: only the log does
  expect(m.fromEnd).toBeLessThanOrEqual(2); // followed to the newest card
  const composer = page.locator('#composer-input');
  const box = await composer.boundingBox();
  expect(box && box.y + box.height).toBeLessThanOrEqual(720); // pinned in view
  // The runner is a panel above the composer, not below it.
  const runnerBox = await page.getByTestId('runner-panel').boundingBox();
  expect(runnerBox && box && runnerBox.y + runnerBox.height).toBeLessThanOrEqual(box?.y ?? 0);
  await screenshot(page, 'operator-07-conversation-pinned');

  // Scrolled up to read: new output does not pull the log down; the operator is told it arrived.
  await log.evaluate((el) => (el.scrollTop = 0));
  await readOnce(13);
  await expect(page.getByTestId('jump-latest')).toHaveText(en['conv.jumpLatest']);
  expect((await metrics()).top).toBe(0);
  // Back at the end: it follows again.
  await page.getByTestId('jump-latest').click();
  await expect(page.getByTestId('jump-latest')).toHaveCount(0);
  await readOnce(42);
  await expect.poll(async () => (await metrics()).fromEnd).toBeLessThanOrEqual(2);
  expect((await metrics()).pageScrolls).toBe(false);
  // Collapsing the runner gives its room back to the log; the composer stays where it was.
  await page.getByTestId('runner-panel').locator('summary').click();
  await expect(page.getByTestId('runner-panel')).not.toHaveAttribute('open', '');
  expect((await composer.boundingBox())?.y).toBe(box?.y);
});

test('8. a remote Hub with a token kept for this session only: after a restart the token is gone and the app opens offline, says why, Settings a click away', async () => {
  const { stack } = app;
  const page = app.page;
  // A desktop without a keychain: the operator keeps the Hub's token for this session only.
  await app.kill();
  await openApp(page, (await stack.startHost({ keychain: 'session-only' })).url);
  await goTo(page, 'nav.settings');
  const keychain = page.getByTestId('keychain-status');
  await expect(keychain).toContainText(en['keychainReason.keytar_missing']);
  // The loader's words (with a developer's path) stay folded away under "Technical detail".
  expect(await keychain.innerText()).not.toContain('Cannot find package');
  expect(await keychain.innerText()).not.toContain('/src-main/');
  await page.getByLabel(en['settings.sessionOnly']).check();
  const hubForm = page.getByRole('form', { name: en['settings.hub'] });
  const token = readFileSync(stack.writeHubTokenFile('operator-day-token'), 'utf8');
  await hubForm.getByLabel(en['settings.hubToken']).fill(token);
  await hubForm.getByRole('button', { name: en['settings.saveHub'] }).click();
  await expect(hubForm.getByTestId('hub-save-status')).toHaveText(en['settings.saved']);

  // The restart: the session is over, the token with it. The app opens anyway, offline.
  await app.kill();
  await page.goto((await stack.startHost({ keychain: 'session-only-empty' })).url);
  await expect(page.locator('.app[data-ready="true"]')).toBeVisible({ timeout: 30_000 });
  const banner = page.getByTestId('hub-banner');
  await expect(banner).toHaveAttribute('data-problem', 'remote_not_configured');
  await expect(banner).toContainText(en['hub.problem.remote_not_configured']);
  await screenshot(page, 'operator-08-offline-token-gone');
  // The conversations are there to read.
  await openConversation(page);
  await expect(page.getByTestId('tool-card').first()).toBeVisible();
  await banner.getByRole('button', { name: en['hub.openSettings'] }).click();
  await expect(page.getByRole('heading', { name: en['settings.title'] })).toBeVisible();
  await expect(
    page.getByRole('form', { name: en['settings.hub'] }).getByLabel(en['settings.hubToken']),
  ).toBeVisible();

  await app.reopen();
  await expect(app.page.getByTestId('hub-state')).toContainText(en['hub.connected']);
});

const TASK = 'Towel copy';
const TASK_CONVERSATION = 'Towel copy, product 13';

test('9. a task: its boundary on the task and in the header of a conversation under it (title, not id); a refusal names the argument and the rule', async () => {
  const page = app.page;
  await createTask(page, {
    title: TASK,
    authorizations: { 'Shop A': ['get_product', 'update_product_content'] },
    budget: 3,
    inFlight: 1,
    descriptionOnly: { products: '13', tool: 'update_product_content' },
  });
  await goTo(page, 'nav.tasks');
  await page.getByRole('button', { name: new RegExp(`^${TASK} · `) }).click();
  const detail = page.getByTestId('task-detail');
  const rule = `${en['task.ruleValues'].replace('{field}', 'product_id').replace('{values}', '13')} · ${en[
    'task.ruleFields'
  ].replace('{fields}', 'description')}`;
  const boundary = detail.getByTestId('task-boundary');
  await expect(boundary).toContainText('Shop A (homeware)');
  await expect(boundary).toContainText('get_product, update_product_content');
  await expect(boundary).toContainText(rule);
  await expect(detail.getByTestId('task-budget')).toHaveText(
    en['task.writes'].replace('{used}', '0').replace('{left}', '3').replace('{budget}', '3'),
  );
  await screenshot(page, 'operator-09-task-boundary');

  // A conversation under the task ticks exactly the task's one authorization.
  await detail.getByRole('button', { name: en['task.startConversation'] }).click();
  const form = detail.getByRole('form', { name: en['sessions.new'] });
  const boxes = form.getByRole('group', { name: en['sessions.scope'] }).getByRole('checkbox');
  await expect(boxes).toHaveCount(3);
  await expect
    .poll(async () => {
      const ticked: string[] = [];
      for (let i = 0; i < (await boxes.count()); i++)
        if (await boxes.nth(i).isChecked())
          ticked.push((await boxes.nth(i).locator('xpath=..').innerText()).trim());
      return ticked;
    })
    .toEqual([expect.stringMatching(/^Shop A \(homeware\)/)]);
  await form.getByLabel(en['sessions.newTitle']).fill(TASK_CONVERSATION);
  await form.getByRole('button', { name: en['sessions.create'] }).click();
  await expect(page.getByTestId('conversation-title')).toHaveText(TASK_CONVERSATION);
  const header = page.locator('.conversation > header');
  await expect(header).toContainText(en['conv.taskBound'].replace('{task}', TASK));
  await expect(header.getByTestId('task-boundary')).toContainText(rule);
  const taskId = await page.evaluate(
    () => document.querySelector('.conversation > header')?.textContent ?? '',
  );
  expect(taskId).not.toMatch(/task_[A-Za-z0-9]/); // the title, never the raw id

  // Product 7 is outside the task: the card names the argument and the rule it broke.
  const preview = await reviewWrite(page, 7, 'Blue-rim enamel mug, 350 ml.');
  await preview.getByRole('button', { name: en['manual.confirmWrite'] }).click();
  const refused = page
    .getByTestId('tool-card')
    .filter({ has: page.getByTestId('tool-card-breaches') })
    .last();
  await expect(refused.getByTestId('tool-card-state')).toHaveText(label('not_dispatched'));
  await expect(refused.getByTestId('tool-card-breaches')).toHaveText(
    en['card.breach.value'].replace('{field}', 'product_id'),
  );
  // Nothing left: the runner says so and keeps the values to be corrected.
  await expect(runner(page).getByTestId('write-not-sent')).toHaveText(en['manual.writeNotSent']);
  await expect(runner(page).getByLabel(/^product_id/)).toHaveValue('7');
  await screenshot(page, 'operator-09-refusal-named');
});

test('10. approvals (the embedded default, whose operator may decide them): the system by name, approval apart from execution, a link to the conversation, and Resume runs the approved call once', async ({
  browser,
}) => {
  const local = await startLocalStack({ name: 'operator-day-approvals' });
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  try {
    await openApp(page, (await local.startHost()).url);
    await openConversation(page, DEMO_SESSION_TITLE);
    // A price above 1000 needs a person's approval before the shop sees it.
    await chooseTool(page, 'change the price', 'update_product');
    const r = runner(page);
    await r.getByLabel(/^product_id/).fill('42');
    await r.getByLabel(/^price/).fill('2500');
    await r.getByRole('button', { name: en['manual.review'] }).click();
    await r.getByTestId('write-preview').getByRole('button', { name: en['manual.confirmWrite'] }).click();
    const waiting = page.getByTestId('tool-card').filter({ hasText: 'price 2500' }).last();
    await expect(waiting.getByTestId('tool-card-state')).toHaveText(label('awaiting_approval'));
    const id = (await waiting.getByTestId('tool-card-invocation').innerText()).trim();

    await goTo(page, 'nav.approvals');
    const row = page.getByTestId('approval').filter({ hasText: id });
    await expect(row.getByTestId('approval-system')).toHaveText('Shop A (homeware)');
    await expect(row).not.toContainText('auth-shop-a');
    await expect(row.getByTestId('approval-execution')).toHaveText(label('awaiting_approval'));
    await row.getByRole('button', { name: en['approvals.approve'] }).click();
    await expect(row).toContainText(
      en['approvals.approval'].replace('{state}', en['approvalState.approved']),
    );
    // Approved is not executed: nothing reached the shop.
    await expect(row.getByTestId('approval-execution')).toHaveText(label('approved'));
    expect(await local.ledger('shop-a')).toHaveLength(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-approvals-en-light.png') });

    // The link opens the conversation the call belongs to, where the card says the same.
    await row.getByRole('button', { name: en['idle.openConversation'] }).click();
    await expect(page.getByTestId('conversation-title')).toHaveText(DEMO_SESSION_TITLE);
    await expect(card(page, id).getByTestId('tool-card-state')).toHaveText(label('approved'));

    await goTo(page, 'nav.approvals');
    await page.getByLabel(en['lang.label']).selectOption('zh');
    await page.getByRole('button', { name: zh['theme.toggle'].replace('{mode}', zh['theme.dark']) }).click();
    await expect(row.getByTestId('approval-system')).toHaveText('Shop A (homeware)');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-approvals-zh-dark.png') });
    await page.getByLabel(zh['lang.label']).selectOption('en');
    await page.getByRole('button', { name: en['theme.toggle'].replace('{mode}', en['theme.light']) }).click();

    await row.getByRole('button', { name: en['card.resume'] }).click();
    await expect(row.getByTestId('approval-execution')).toHaveText(label('succeeded'));
    await expect.poll(async () => (await local.ledger('shop-a')).map((e) => e.idempotency_key)).toEqual([id]);
    await goTo(page, 'nav.conversations');
    await expect(card(page, id).getByTestId('tool-card-state')).toHaveText(label('succeeded'));
  } finally {
    await page.close().catch(() => undefined);
    await local.close();
  }
});

test('11. Resume in Needs attention brings the open conversation up to date without a reload; one write', async () => {
  const { stack } = app;
  const page = app.page;
  await openConversation(page);
  const id = await writeWithLostAnswer(page, 'Linen towel, stonewashed, 50 x 70 cm, grey.');
  const c = card(page, id);
  await expect(c.getByRole('button', { name: en['card.resume'] })).toBeVisible();

  await goTo(page, 'nav.idle');
  const row = idleRow(page, id);
  await expect(row.getByTestId('idle-state')).toHaveText(label('unknown'));
  await screenshot(page, 'operator-11-needs-attention');
  await row.getByRole('button', { name: en['card.resume'] }).click();
  await expect(idleRow(page, id)).toHaveCount(0);

  // Back in the conversation, the same page, no reload: the card followed.
  await goTo(page, 'nav.conversations');
  await expect(c.getByTestId('tool-card-state')).toHaveText(label('succeeded'));
  await expect(c.getByTestId('tool-card-result')).toContainText('stonewashed, 50 x 70 cm, grey.');
  await expect(c.getByRole('button', { name: en['card.resume'] })).toHaveCount(0);
  expect((await stack.ledger('shop-a')).filter((e) => e.idempotency_key === id)).toHaveLength(1);
});

test('12. the main views in English and light, and in Chinese and dark (screenshots for docs/desktop-app.md)', async () => {
  const page = app.page;
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByLabel(en['lang.label']).selectOption('en');
  if ((await page.locator('html').getAttribute('data-theme')) === 'dark')
    await page.getByRole('button', { name: en['theme.toggle'].replace('{mode}', en['theme.light']) }).click();
  const views: Array<[NavKey, string]> = [
    ['nav.conversations', 'conversation'],
    ['nav.tasks', 'tasks'],
    ['nav.idle', 'needs-attention'],
    ['nav.settings', 'settings'],
  ];
  const shoot = async (lang: 'en' | 'zh', theme: 'light' | 'dark') => {
    const words = lang === 'en' ? en : zh;
    for (const [key, name] of views) {
      await page
        .getByRole('navigation', { name: words['nav.main'] })
        .getByRole('button', { name: new RegExp(`^${words[key]}`) })
        .click();
      if (key === 'nav.conversations')
        await page
          .getByRole('navigation', { name: words['sessions.title'] })
          .getByRole('button', { name: TITLE, exact: true })
          .click();
      if (key === 'nav.tasks') await page.getByRole('button', { name: new RegExp(`^${TASK} · `) }).click();
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await page.waitForTimeout(300);
      if (lang === 'zh')
        expect(await englishOnScreen(page), `English on the Chinese ${name} view`).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOT_DIR, `view-${name}-${lang}-${theme}.png`) });
    }
  };
  await shoot('en', 'light');
  await page.getByLabel(en['lang.label']).selectOption('zh');
  await page.getByRole('button', { name: zh['theme.toggle'].replace('{mode}', zh['theme.dark']) }).click();
  await shoot('zh', 'dark');
  await page.getByLabel(zh['lang.label']).selectOption('en');
  await page.getByRole('button', { name: en['theme.toggle'].replace('{mode}', en['theme.light']) }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('13. an answer in Markdown is rendered, and raw HTML in it never becomes markup', async () => {
  const page = app.page;
  await openConversation(page);
  const log = page.getByRole('log', { name: en['conv.items'] });
  await page.locator('#composer-input').fill('[markdown] Which towels does Shop A have?');
  await page.getByRole('button', { name: en['conv.send'] }).click();
  const answer = log.locator('li.item-assistant_text').last().getByTestId('markdown');
  await expect(answer.locator('strong')).toHaveText('Shop A');
  await expect(answer.locator('li')).toHaveText(['Linen tea towel', 'Waffle towel']);
  await expect(answer).not.toContainText('**Shop A**');
  // The raw HTML is not markup: no image was made, no handler ran, no <b> element exists.
  await expect(log.locator('img')).toHaveCount(0);
  await expect(answer.locator('b')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  // The composer is still in view under the grown log.
  const box = await page.locator('#composer-input').boundingBox();
  expect(box && box.y + box.height).toBeLessThanOrEqual(page.viewportSize()?.height ?? 0);
});
