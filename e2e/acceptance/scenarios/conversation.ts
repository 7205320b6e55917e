/**
 * Scenarios 1, 2 and 10 (one stack, one conversation over Shop A and the inventory):
 *  1. switch capabilities: edit a description, query inventory, return to editing, with the right
 *     target and the CURRENT schema each time (Shop A changes its published spec in between);
 *  2. a follow-up reuses the loaded declarations: zero further tool searches (Hub metrics);
 * 10. "thanks" makes zero Hub requests.
 */
import { expect } from '@playwright/test';
import type { Script } from '../../../demo/scripted-model/script.js';
import type { AppUnderTest } from '../support/stack-fixture.js';
import type { ScenarioSuite } from '../support/suite.js';
import { auditByInvocation, receipt, requestTotals, searchCount } from '../support/checks.js';
import { cardsOf, newConversation, screenshot, send } from '../support/ui.js';

const LONG_DESCRIPTION = `Solid walnut end-grain board, oiled. ${'Hand-finished in small batches. '.repeat(90)}`.slice(0, 3000);
const EDIT = 'auth_shop_a__update_product_content';

const script: Script = [
  { name: 'edit-search', match: { userIncludes: 'description of product 42' }, reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product description' } }] } },
  {
    name: 'edit-call',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'description of product 42' },
    reply: { toolCalls: [{ name: EDIT, arguments: { product_id: 42, description: 'Walnut board, end grain, 40 x 30 cm.' } }] },
  },
  { name: 'edit-done', match: { afterToolResultFor: EDIT, turnUserIncludes: 'description of product 42' }, reply: { text: 'Description of product 42 updated.' } },
  { name: 'stock-search', match: { userIncludes: 'stock of product 42' }, reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'check stock sku' } }] } },
  {
    name: 'stock-sku',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'stock of product 42' },
    reply: { toolCalls: [{ name: 'auth_inventory__find_sku', arguments: { shop: 'shop-a', product_id: 42 } }] },
  },
  { name: 'stock-get', match: { afterToolResultFor: 'auth_inventory__find_sku' }, reply: { toolCalls: [{ name: 'auth_inventory__get_stock', arguments: { sku: 'SKU-A-0042' } }] } },
  { name: 'stock-done', match: { afterToolResultFor: 'auth_inventory__get_stock' }, reply: { text: 'Product 42 has 12 on hand.' } },
  { name: 'back-search', match: { userIncludes: 'back to editing' }, reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product description' } }] } },
  {
    name: 'back-call',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: 'back to editing' },
    reply: { toolCalls: [{ name: EDIT, arguments: { product_id: 42, description: LONG_DESCRIPTION } }] },
  },
  { name: 'back-done', match: { afterToolResultFor: EDIT, turnUserIncludes: 'back to editing' }, reply: { text: 'Long description saved.' } },
  { name: 'followup-call', match: { userIncludes: 'description of product 7' }, reply: { toolCalls: [{ name: EDIT, arguments: { product_id: 7, description: 'Enamel mug, 350 ml, blue rim.' } }] } },
  { name: 'followup-done', match: { afterToolResultFor: EDIT, turnUserIncludes: 'description of product 7' }, reply: { text: 'Product 7 updated too.' } },
  { name: 'thanks', match: { userEquals: 'thanks' }, reply: { text: 'You are welcome.' }, repeat: true },
];

async function scenario1(app: AppUnderTest): Promise<void> {
  const { page, stack } = app;
  await send(page, 'Please change the description of product 42 in Shop A.', { waitForText: 'Description of product 42 updated.' });
  await expect(cardsOf(page, 'update_product_content')).toHaveCount(1);
  await expect(cardsOf(page, 'update_product_content').first()).toContainText('Shop A (homeware)');
  await expect(cardsOf(page, 'update_product_content').first().getByTestId('tool-card-state')).toHaveText('Completed');

  await send(page, 'How much stock of product 42 is there?', { waitForText: 'Product 42 has 12 on hand.' });
  await expect(cardsOf(page, 'get_stock').first()).toContainText('Inventory');
  await expect(cardsOf(page, 'get_stock').first().getByTestId('tool-card-state')).toHaveText('Completed');
  await expect(cardsOf(page, 'find_sku').first().getByTestId('tool-card-state')).toHaveText('Completed');

  // Shop A publishes a new spec (descriptions up to 5000 characters); the Hub re-reads it.
  const r = await fetch(`${stack.systemUrls['shop-a']}/__demo/spec`, { method: 'POST', body: JSON.stringify({ variant: 'v2' }) });
  expect(r.ok).toBe(true);
  await stack.admin('POST', '/admin/v1/systems/shop-a/refresh');

  await send(page, 'Now go back to editing: use the long description for product 42.', { waitForText: 'Long description saved.' });
  await expect(cardsOf(page, 'update_product_content')).toHaveCount(2);
  await expect(cardsOf(page, 'update_product_content').nth(1).getByTestId('tool-card-state')).toHaveText('Completed');

  // The model saw the current schema when it returned to editing.
  const reqs = stack.model.requests();
  const backCall = reqs.find((q) => q.matchedStep === 'back-call');
  const offered = backCall?.tools.find((t) => t.function.name === EDIT)?.function.parameters as
    | { properties?: { description?: { maxLength?: number } } }
    | undefined;
  expect(offered?.properties?.description?.maxLength).toBe(5000);
  const first = reqs.find((q) => q.matchedStep === 'edit-call');
  const firstOffered = first?.tools.find((t) => t.function.name === EDIT)?.function.parameters as typeof offered;
  expect(firstOffered?.properties?.description?.maxLength).toBe(2000);

  // Right targets: Shop A product 42 twice (the long text the second time), nothing elsewhere.
  const ledgerA = await stack.ledger('shop-a');
  expect(ledgerA.map((e) => `${e.operation} ${e.target}`)).toEqual(['update_product_content product:42', 'update_product_content product:42']);
  expect(ledgerA[1]?.changes.description?.after).toBe(LONG_DESCRIPTION);
  expect(await stack.ledger('shop-b')).toEqual([]);
  expect(await stack.ledger('inventory')).toEqual([]);

  // The Hub's audit: both edits and both reads succeeded; the edits carry different declaration revisions.
  const audit = await auditByInvocation(stack);
  const keys = ledgerA.map((e) => e.idempotency_key);
  for (const k of keys) expect(audit.get(k)?.some((e) => e.to_state === 'succeeded')).toBe(true);
  const [r1, r2] = await Promise.all(keys.map((k) => receipt(stack, k)));
  expect(r1?.authorization_ref).toBe('auth-shop-a');
  expect(r2?.authorization_ref).toBe('auth-shop-a');
  expect(r1?.declaration_revision).not.toBe(r2?.declaration_revision);
  await screenshot(page, '01-switch-capabilities');
}

async function scenario2(app: AppUnderTest): Promise<void> {
  const { page, stack } = app;
  const searchesBefore = await searchCount(stack);
  expect(searchesBefore).toBeGreaterThanOrEqual(3);
  await send(page, 'Also update the description of product 7.', { waitForText: 'Product 7 updated too.' });
  expect(await searchCount(stack)).toBe(searchesBefore);
  await expect(cardsOf(page, 'update_product_content').last().getByTestId('tool-card-state')).toHaveText('Completed');
  const ledgerA = await stack.ledger('shop-a');
  expect(ledgerA.map((e) => e.target)).toEqual(['product:42', 'product:42', 'product:7']);
  const last = ledgerA[2];
  expect(last && (await receipt(stack, last.idempotency_key))?.state).toBe('succeeded');
  // The model was offered the loaded function on the follow-up without searching.
  const follow = stack.model.requests().find((q) => q.matchedStep === 'followup-call');
  expect(follow?.toolNames).toContain(EDIT);
  await screenshot(page, '02-follow-up-reuses-declarations');
}

async function scenario10(app: AppUnderTest): Promise<void> {
  const { page, stack } = app;
  const before = await requestTotals(stack);
  const ledgerBefore = (await stack.ledger('shop-a')).length;
  await send(page, 'thanks', { waitForText: 'You are welcome.' });
  // Let any stray follow-up request land before measuring.
  await page.waitForTimeout(1000);
  expect(await requestTotals(stack)).toEqual(before);
  expect((await stack.ledger('shop-a')).length).toBe(ledgerBefore);
  await screenshot(page, '10-thanks-zero-hub-requests');

  // The same in a conversation with an empty scope (seed 001). Opening the "New conversation"
  // form lists the authorizations from the Hub, so the count starts once it is created.
  await newConversation(page, { title: 'Just chatting', systems: [] });
  await page.waitForTimeout(500);
  const beforeEmpty = await requestTotals(stack);
  await send(page, 'thanks', { waitForText: 'You are welcome.' });
  await expect(page.getByRole('log', { name: 'Conversation' }).locator('li.item-assistant_text')).toHaveCount(1);
  await page.waitForTimeout(1000);
  expect(await requestTotals(stack)).toEqual(beforeEmpty);
  const lastModelRequest = stack.model.requests().at(-1);
  expect(lastModelRequest?.toolNames).toEqual([]);
  await screenshot(page, '10-empty-scope-zero-hub-requests');
}

export const conversationSuite: ScenarioSuite = {
  name: 'conversation',
  script,
  mode: 'serial',
  setup: async (app) => {
    await newConversation(app.page, { title: 'Catalogue work', systems: ['Shop A', 'Inventory'] });
  },
  scenarios: [
    { title: '1. switch capabilities: edit, query inventory, return to editing (right target, current schema)', run: scenario1 },
    { title: '2. a follow-up reuses the loaded declarations: no further search', run: scenario2 },
    { title: '10. "thanks" makes zero Hub requests', run: scenario10 },
  ],
};
