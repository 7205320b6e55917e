/**
 *  8. journal storage failure before dispatch: nothing is sent, the error is visible; once the
 *     storage is fixed, restoring works and the record is kept;
 *  9. a revoked authorization blocks the whole session scope, shown as blocked.
 * The storage failure is real: another process-level SQLite connection holds an EXCLUSIVE lock on
 * the host's journal file, so the host's CAS save fails (busy) exactly as a stuck storage would.
 */
import Database from 'better-sqlite3';
import { en } from '../../../src-renderer/src/i18n/en.js';
import { expect } from '@playwright/test';
import type { Script } from '../../../demo/scripted-model/script.js';
import type { AppUnderTest } from '../support/stack-fixture.js';
import type { ScenarioSuite } from '../support/suite.js';
import { dispatchCount, receipt, searchCount } from '../support/checks.js';
import { journalFile, readJournal } from '../support/journal.js';
import { cardsOf, newConversation, openConversation, openRunner, screenshot, send } from '../support/ui.js';

const EDIT = 'auth_shop_a__update_product_content';

const script: Script = [
  {
    name: 'storage-search',
    match: { userIncludes: '[storage]' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product description' } }] },
  },
  {
    name: 'storage-call',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[storage]' },
    reply: { toolCalls: [{ name: EDIT, arguments: { product_id: 42, description: 'Oiled walnut board.' } }] },
  },
  {
    name: 'storage-done',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[storage]' },
    reply: { text: 'The edit could not be recorded.' },
  },
  {
    name: 'scope-search',
    match: { userIncludes: '[scope]' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'read a product' } }] },
  },
  {
    name: 'scope-call',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[scope]' },
    reply: { toolCalls: [{ name: 'auth_shop_a__get_product', arguments: { product_id: 42 } }] },
  },
  {
    name: 'scope-done',
    match: { afterToolResultFor: 'auth_shop_a__get_product' },
    reply: { text: 'Product 42 read.' },
  },
  {
    name: 'after-revoke',
    match: { userIncludes: '[after revoke]' },
    reply: { text: 'should never be asked' },
  },
];

const invokes = async (app: AppUnderTest) =>
  Object.values((await app.stack.metrics()).clients).reduce((n, c) => n + c.invokes, 0);

async function scenario8(app: AppUnderTest): Promise<void> {
  const { page, stack } = app;
  await newConversation(page, { title: 'Storage failure', systems: ['Shop A'] });
  const desk = app.deskDir;
  const lock = new Database(journalFile(desk));
  lock.pragma('busy_timeout = 10000');
  lock.exec('BEGIN EXCLUSIVE');
  let locked = true;
  try {
    await send(page, '[storage] Update the description of product 42.', {
      waitForText: 'The edit could not be recorded.',
    });
    const card = cardsOf(page, 'update_product_content');
    const id = (await card.locator('code').innerText()).trim();
    expect(id).toMatch(/^inv_/);
    // Nothing sent: the Hub never saw an invoke, the shop never saw the id.
    expect(await invokes(app)).toBe(0);
    expect(await receipt(stack, id)).toBeNull();
    expect(await dispatchCount(stack, id)).toBe(0);
    expect(await stack.ledger('shop-a')).toEqual([]);
    // The error is visible, and it stays.
    const journalCell = page.getByTestId('journal-state');
    await expect(journalCell).toContainText(en['journalState.storage_error']);
    await expect(journalCell.getByRole('alert')).toContainText('Storage failed');
    await screenshot(page, '08-journal-storage-error');

    // Fix the storage, then restore from the UI.
    lock.exec('COMMIT');
    locked = false;
    await journalCell.getByRole('button', { name: 'Retry saving the journal' }).click();
    await expect(journalCell).toContainText(en['journalState.ready']);
    await expect(journalCell.getByRole('alert')).toHaveCount(0);
    // The record is kept, with its original id, and still nothing was sent.
    expect(readJournal(desk).some((r) => r.invocation_id === id)).toBe(true);
    await page.waitForTimeout(1000);
    expect(await invokes(app)).toBe(0);
    expect(await dispatchCount(stack, id)).toBe(0);
    await expect(card.locator('code')).toHaveText(id);
    await screenshot(page, '08-journal-restored');
  } finally {
    if (locked) lock.exec('ROLLBACK');
    lock.close();
  }
}

async function scenario9(app: AppUnderTest): Promise<void> {
  const { stack } = app;
  let page = app.page;
  await newConversation(page, { title: 'Shop and inventory', systems: ['Shop A', 'Inventory'] });
  await send(page, '[scope] Read product 42.', { waitForText: 'Product 42 read.' });
  await expect(cardsOf(page, 'get_product').getByTestId('tool-card-state')).toHaveText('Completed');
  const invokesBefore = await invokes(app);
  const modelBefore = stack.model.requests().length;

  await stack.admin('POST', '/admin/v1/authorizations/auth-inventory/revoke', {});
  const auths = await stack.admin<{ authorizations: { authorization_ref: string; state: string }[] }>(
    'GET',
    '/admin/v1/authorizations',
  );
  expect(auths.authorizations.find((a) => a.authorization_ref === 'auth-shop-a')?.state).toBe('active');

  // Reopen the conversation: its scope is revalidated as a whole.
  await app.reopen();
  page = app.page; // a new window in Electron
  await openConversation(page, 'Shop and inventory');
  await expect(page.getByRole('alert').filter({ hasText: 'Blocked' })).toBeVisible();
  await page.locator('#composer-input').fill('[after revoke] Read product 42 again.');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
  await screenshot(page, '09-revoked-scope-blocked');

  // The hand-run tool search is blocked too: no search for the surviving Shop A member.
  const searchesBefore = await searchCount(stack);
  await openRunner(page);
  await page.getByLabel('What do you want to do?').fill('read a product');
  await page.getByRole('button', { name: 'Search tools' }).click();
  await page.waitForTimeout(1000);
  expect(await searchCount(stack)).toBe(searchesBefore);

  // Nothing went out for the surviving Shop A member either.
  expect(await invokes(app)).toBe(invokesBefore);
  expect(stack.model.requests().length).toBe(modelBefore);
  const audit = await stack.audit();
  expect(
    audit.some((e) => e.kind === 'authorization.revoked' && e.detail.authorization_ref === 'auth-inventory'),
  ).toBe(true);
}

export const boundariesSuite: ScenarioSuite = {
  name: 'boundaries',
  script,
  mode: 'default',
  scenarios: [
    {
      title:
        '8. journal storage failure before dispatch: nothing sent, error visible, restore keeps the record',
      run: scenario8,
    },
    { title: '9. a revoked authorization blocks the whole session scope', run: scenario9 },
  ],
};
