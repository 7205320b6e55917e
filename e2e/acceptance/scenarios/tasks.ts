/**
 * The task boundary, through the Tasks view:
 *  3. pause during work: after Pause no further permit is granted; the earlier call stays visible
 *     with its state; the UI says so precisely;
 *  5. accounting: messages and restarts did not reset the budget; completed, pending, unverified
 *     and not dispatched calls are distinguishable;
 * 11. the three-product exercise (docs/acceptance.md): two authorizations, inventory reads, description-only
 *     edits of three products, a budget of six writes; prices and stock unchanged;
 * 14. a system retired since a task was made: the task still names it, marked retired.
 */
import { expect, type Locator } from '@playwright/test';
import type { Script } from '../../../demo/scripted-model/script.js';
import { en } from '../../../src-renderer/src/i18n/en.js';
import { seedProducts } from '../../../demo/shop/seed.js';
import type { AppUnderTest } from '../support/stack-fixture.js';
import type { ScenarioSuite } from '../support/suite.js';
import { auditByInvocation, receipt } from '../support/checks.js';
import {
  cardsOf,
  createTask,
  newConversation,
  openConversation,
  screenshot,
  selectTask,
  send,
} from '../support/ui.js';

const EDIT = 'auth_shop_a__update_product_content';
const edit = (product_id: number, description: string) => ({
  name: EDIT,
  arguments: { product_id, description },
});

interface TaskLike {
  task_id: string;
  title: string;
  state: string;
  writes_used: number;
  writes_left: number;
  permits_granted: number;
  boundary: { write_budget: number };
}

const script: Script = [
  // 3. pause
  {
    name: 'pause-search',
    match: { userIncludes: '[pause]' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product description' } }] },
  },
  {
    name: 'pause-first',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[pause]' },
    reply: { toolCalls: [edit(7, 'Mug, enamel, 350 ml.')] },
  },
  {
    name: 'pause-more',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[pause]' },
    reply: { toolCalls: [edit(13, 'Linen towel.'), edit(42, 'Walnut board.')] },
  },
  {
    name: 'pause-done',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[pause]' },
    reply: { text: 'Stopped: the task is paused.' },
  },
  // 5. accounting
  {
    name: 'acct1-search',
    match: { userIncludes: '[acct-1]' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit product description' } }] },
  },
  {
    name: 'acct1',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[acct-1]' },
    reply: { toolCalls: [edit(13, 'Linen towel, stonewashed.')] },
  },
  {
    name: 'acct1-done',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[acct-1]' },
    reply: { text: 'Product 13 done.' },
  },
  {
    name: 'acct2-search',
    match: { userIncludes: '[acct-2]' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'publish listing' } }] },
  },
  {
    name: 'acct2',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[acct-2]' },
    reply: {
      toolCalls: [{ name: 'auth_shop_a__publish_listing', arguments: { product_id: 13, channel: 'web' } }],
    },
  },
  {
    name: 'acct2-done',
    match: { afterToolResultFor: 'auth_shop_a__publish_listing', turnUserIncludes: '[acct-2]' },
    reply: { text: 'Publishing waits for approval.' },
  },
  {
    name: 'acct3',
    match: { userIncludes: '[acct-3]' },
    reply: { toolCalls: [edit(42, 'Walnut board, oiled.')] },
  },
  {
    name: 'acct3-done',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[acct-3]' },
    reply: { text: 'Product 42 needs checking.' },
  },
  { name: 'acct4', match: { userIncludes: '[acct-4]' }, reply: { toolCalls: [edit(7, 'Enamel mug.')] } },
  {
    name: 'acct4-more',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[acct-4]' },
    reply: { toolCalls: [edit(13, 'Linen towel, once more.')] },
  },
  {
    name: 'acct4-done',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[acct-4]' },
    reply: { text: 'The budget is spent.' },
  },
  // 11. three products
  {
    name: 'three-search',
    match: { userIncludes: '[three]' },
    reply: {
      toolCalls: [
        { name: 'search_tools', arguments: { query: 'edit product description' } },
        { name: 'search_tools', arguments: { query: 'check stock sku' } },
      ],
    },
  },
  {
    name: 'three-sku',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[three]' },
    reply: {
      toolCalls: [7, 13, 42].map((p) => ({
        name: 'auth_inventory__find_sku',
        arguments: { shop: 'shop-a', product_id: p },
      })),
    },
  },
  {
    name: 'three-stock',
    match: { afterToolResultFor: 'auth_inventory__find_sku', turnUserIncludes: '[three]' },
    reply: {
      toolCalls: ['SKU-A-0007', 'SKU-A-0013', 'SKU-A-0042'].map((sku) => ({
        name: 'auth_inventory__get_stock',
        arguments: { sku },
      })),
    },
  },
  {
    name: 'three-edit',
    match: { afterToolResultFor: 'auth_inventory__get_stock', turnUserIncludes: '[three]' },
    reply: {
      toolCalls: [
        edit(7, 'White enamel mug with a blue rim, 350 ml. In stock: 40.'),
        edit(13, 'Natural stonewashed linen, 50 x 70 cm. Currently out of stock.'),
        edit(42, 'Solid walnut end-grain board, 40 x 30 cm. In stock: 12.'),
        // Outside the boundary on purpose: a title change where only descriptions may change.
        { name: EDIT, arguments: { product_id: 42, title: 'Walnut board (new title)' } },
      ],
    },
  },
  {
    name: 'three-done',
    match: { afterToolResultFor: EDIT, turnUserIncludes: '[three]' },
    reply: { text: 'All three descriptions updated; the title change was refused.' },
  },
];

async function hubTask(app: AppUnderTest, title: string): Promise<TaskLike> {
  const { tasks } = await app.stack.admin<{ tasks: TaskLike[] }>('GET', '/admin/v1/tasks');
  const t = tasks.find((x) => x.title === title);
  if (!t) throw new Error(`no task ${title}`);
  return t;
}

async function idsOf(app: AppUnderTest, tool: string): Promise<string[]> {
  const codes = cardsOf(app.page, tool).locator('code');
  return (await codes.allInnerTexts()).map((s) => s.trim());
}

async function scenario3(app: AppUnderTest): Promise<void> {
  const { page, stack } = app;
  await createTask(page, {
    title: 'Catalogue refresh',
    authorizations: { 'Shop A': ['update_product_content', 'publish_listing'] },
    budget: 5,
    inFlight: 2,
  });
  await newConversation(page, {
    title: 'Refresh under a task',
    systems: ['Shop A'],
    task: 'Catalogue refresh',
  });
  await stack.setFault('shop-a', {
    operation: 'update_product_content',
    kind: 'delay',
    delay_ms: 6000,
    times: 'once',
  });
  await page.locator('#composer-input').fill('[pause] Refresh the descriptions of products 7, 13 and 42.');
  await page.getByRole('button', { name: 'Send' }).click();
  // The first edit is at the shop (held there by the delay) when the operator pauses.
  await expect
    .poll(
      async () =>
        (await stack.requests('shop-a')).filter(
          (r) => r.operation === 'update_product_content' && r.outcome === 'pending',
        ).length,
      { timeout: 30_000 },
    )
    .toBe(1);
  // While it is at the shop the card says so (docs/design.md#states: dispatching = "Running"). Soft: the test
  // still fails if not, but the rest of the scenario is still checked and reported.
  await expect
    .soft(cardsOf(page, 'update_product_content').first().getByTestId('tool-card-state'))
    .toHaveText('Running', { timeout: 2_000 });

  const detail = await selectTask(page, 'Catalogue refresh');
  await detail.getByRole('button', { name: 'Pause' }).click();
  await expect(detail.getByTestId('task-state')).toHaveText('Paused');
  await expect(detail.getByTestId('task-sentence')).toContainText('Further dispatch is paused.');

  await openConversation(page, 'Refresh under a task');
  await expect(page.getByRole('log', { name: 'Conversation' })).toContainText(
    'Stopped: the task is paused.',
    { timeout: 60_000 },
  );
  const states = cardsOf(page, 'update_product_content').getByTestId('tool-card-state');
  await expect(states).toHaveText(['Completed', 'Not dispatched', 'Not dispatched']);
  await screenshot(page, '03-pause-conversation');

  const task = await hubTask(app, 'Catalogue refresh');
  expect(task.state).toBe('paused');
  expect(task.permits_granted).toBe(1);
  expect(task.writes_used).toBe(1);
  const ledger = await stack.ledger('shop-a');
  expect(ledger.map((e) => e.target)).toEqual(['product:7']);
  const [first, ...refused] = await idsOf(app, 'update_product_content');
  expect((await receipt(stack, first ?? ''))?.state).toBe('succeeded');
  for (const id of refused) {
    const r = await receipt(stack, id);
    expect(r?.state).toBe('not_dispatched');
    expect(r?.reason_code ?? '').toMatch(/pause/);
  }
  expect((await stack.audit({ task_id: task.task_id })).some((e) => e.kind === 'task.paused')).toBe(true);
  await selectTask(page, 'Catalogue refresh');
  await screenshot(page, '03-pause-task-panel');
}

async function scenario5(app: AppUnderTest): Promise<void> {
  const { stack } = app;
  let page = app.page;
  await createTask(page, {
    title: 'Accounting',
    authorizations: { 'Shop A': ['update_product_content', 'publish_listing'] },
    budget: 3,
    inFlight: 1,
  });
  await newConversation(page, { title: 'Accounting work', systems: ['Shop A'], task: 'Accounting' });

  await send(page, '[acct-1] Update product 13, please.', { waitForText: 'Product 13 done.' });
  expect((await hubTask(app, 'Accounting')).writes_used).toBe(1);

  await send(page, '[acct-2] Publish product 13.', { waitForText: 'Publishing waits for approval.' });
  await expect(cardsOf(page, 'publish_listing').getByTestId('tool-card-state')).toHaveText(
    'Awaiting approval',
  );
  expect((await hubTask(app, 'Accounting')).writes_used).toBe(1);

  await stack.setFault('shop-a', {
    operation: 'update_product_content',
    kind: 'drop_after_commit',
    times: 'once',
  });
  await stack.setFault('shop-a', { operation: '*', kind: 'lookup_unavailable', times: 'once' });
  await send(page, '[acct-3] And product 42.', { waitForText: 'Product 42 needs checking.' });
  const unknownCard = cardsOf(page, 'update_product_content').last();
  await expect(unknownCard.getByTestId('tool-card-state')).toHaveText('Result needs checking');
  await unknownCard.getByRole('button', { name: 'Resume' }).click();
  await expect(unknownCard.getByRole('status')).toContainText('Unverified');
  expect((await hubTask(app, 'Accounting')).writes_used).toBe(2);

  await send(page, '[acct-4] Products 7 and 13 as well.', { waitForText: 'The budget is spent.' });
  const before = await hubTask(app, 'Accounting');
  expect(before.writes_used).toBe(3);

  await app.reopen();
  page = app.page; // a new window in Electron
  const after = await hubTask(app, 'Accounting');
  expect(after.writes_used).toBe(3);
  expect(after.writes_left).toBe(0);
  const d = await selectTask(page, 'Accounting');
  await expect(d).toContainText('Writes: 3 used, 0 left of 3');
  await expect(d.getByTestId('task-sentence')).toContainText('The write budget is spent');
  const counts = d.locator('ul.counts');
  await expect(counts).toContainText('Completed: 2');
  await expect(counts).toContainText('Not dispatched: 1');
  await expect(counts).toContainText('Awaiting approval: 1');
  await expect(counts).toContainText('Unverified: 1');
  await screenshot(page, '05-accounting-after-reopen');

  // The ledger agrees: three writes of this task reached the shop, within the budget of three.
  const ids = new Set<string>();
  for (const e of await stack.ledger('shop-a'))
    if ((await receipt(stack, e.idempotency_key))?.task_id === after.task_id) ids.add(e.idempotency_key);
  expect(ids.size).toBe(3);
  const audit = await stack.audit({ task_id: after.task_id });
  expect(audit.some((e) => e.to_state === 'not_dispatched')).toBe(true);

  // After the reopen each call still shows its own state in the conversation.
  await openConversation(page, 'Accounting work');
  const idsShown = await idsOf(app, 'update_product_content');
  expect((await receipt(stack, idsShown[3] ?? ''))?.reason_code ?? '').toMatch(/budget/);
  await expect(cardsOf(page, 'update_product_content').getByTestId('tool-card-state')).toHaveText([
    'Completed',
    'Unverified',
    'Completed',
    'Not dispatched',
  ]);
  await expect(cardsOf(page, 'publish_listing').getByTestId('tool-card-state')).toHaveText(
    'Awaiting approval',
  );
  await screenshot(page, '05-accounting-conversation');
}

async function scenario11(app: AppUnderTest): Promise<void> {
  const { page, stack } = app;
  const inventoryBefore = (await stack.demoState('inventory')) as {
    stock: { sku: string; on_hand: number; reserved: number }[];
  };
  await createTask(page, {
    title: 'Three product descriptions',
    authorizations: {
      'Shop A': ['update_product_content', 'get_product'],
      Inventory: ['find_sku', 'get_stock'],
    },
    budget: 6,
    inFlight: 2,
    descriptionOnly: { products: '7, 13, 42', tool: 'update_product_content' },
  });
  await newConversation(page, {
    title: 'Three products',
    systems: ['Shop A', 'Inventory'],
    task: 'Three product descriptions',
  });
  await send(
    page,
    '[three] Rewrite the descriptions of products 7, 13 and 42 using their stock; leave prices and stock unchanged.',
    {
      waitForText: 'All three descriptions updated',
    },
  );
  await expect(cardsOf(page, 'find_sku').getByTestId('tool-card-state')).toHaveText([
    'Completed',
    'Completed',
    'Completed',
  ]);
  await expect(cardsOf(page, 'get_stock').getByTestId('tool-card-state')).toHaveText([
    'Completed',
    'Completed',
    'Completed',
  ]);
  await expect(cardsOf(page, 'update_product_content').getByTestId('tool-card-state')).toHaveText([
    'Completed',
    'Completed',
    'Completed',
    'Not dispatched',
  ]);

  const task = await hubTask(app, 'Three product descriptions');
  expect(task.writes_used).toBe(3);
  expect(task.boundary.write_budget).toBe(6);

  // The shop saw exactly three description-only writes of this task; the title change never left the Hub.
  const mine = [];
  for (const e of await stack.ledger('shop-a'))
    if ((await receipt(stack, e.idempotency_key))?.task_id === task.task_id) mine.push(e);
  expect(mine.map((e) => e.target).sort()).toEqual(['product:13', 'product:42', 'product:7']);
  for (const e of mine) expect(Object.keys(e.changes)).toEqual(['description']);
  const editIds = await idsOf(app, 'update_product_content');
  const refused = await receipt(stack, editIds[3] ?? '');
  expect(refused?.state).toBe('not_dispatched');
  const audit = await auditByInvocation(stack);
  expect((audit.get(editIds[3] ?? '') ?? []).some((e) => e.to_state === 'not_dispatched')).toBe(true);

  // Prices and stock unchanged in the systems.
  const shop = (await stack.demoState('shop-a')) as {
    products: { product_id: number; price: number; stock: number; title: string }[];
  };
  for (const seed of seedProducts('A')) {
    const now = shop.products.find((p) => p.product_id === seed.product_id);
    expect({ id: now?.product_id, price: now?.price, stock: now?.stock }).toEqual({
      id: seed.product_id,
      price: seed.price,
      stock: seed.stock,
    });
  }
  expect(shop.products.find((p) => p.product_id === 42)?.title).toBe('Walnut cutting board');
  expect(await stack.ledger('inventory')).toEqual([]);
  const inventoryAfter = (await stack.demoState('inventory')) as typeof inventoryBefore;
  expect(inventoryAfter.stock).toEqual(inventoryBefore.stock);
  await screenshot(page, '11-three-products-conversation');

  // The task panel shows the same accounting as the Hub.
  const detail = await selectTask(page, 'Three product descriptions');
  await expect(detail).toContainText('Writes: 3 used, 3 left of 6');
  await screenshot(page, '11-three-products-task');
}

/**
 * 14. A system retired since the task was made (after 11; the inventory has no unresolved call):
 * the agent list no longer carries it, and the task still names it — by name, marked retired —
 * live (the retire's notice re-reads the tasks) and after a reopen (the tasks as the Hub serves them),
 * on the task panel and in the scope line of the conversation under the task.
 */
async function scenario14(app: AppUnderTest): Promise<void> {
  const { stack } = app;
  const inventoryOf = (detail: Locator) =>
    detail.getByTestId('task-boundary-system').filter({ hasText: 'Inventory' });
  const before = inventoryOf(await selectTask(app.page, 'Three product descriptions'));
  await expect(before).toHaveAttribute('data-system-state', 'in_service');
  await expect(before.getByTestId('system-state')).toHaveCount(0);

  const retired = await stack.admin<{ retired_at: string | null }>(
    'POST',
    '/admin/v1/systems/inventory/retire',
  );
  expect(retired.retired_at).toBeTruthy();
  const live = inventoryOf(app.page.getByTestId('task-detail'));
  await expect(live).toHaveAttribute('data-system-state', 'retired');
  await expect(live.getByTestId('system-state')).toHaveText(en['systemState.retired']);
  await expect(live.getByTestId('system-kind')).toHaveText('HTTP');
  await expect(app.page.getByTestId('task-boundary')).not.toContainText('auth-inventory');
  await screenshot(app.page, '14-retired-system-task');

  await app.reopen();
  const page = app.page; // a new window in Electron
  const reopened = inventoryOf(await selectTask(page, 'Three product descriptions'));
  await expect(reopened).toHaveAttribute('data-system-state', 'retired');
  await expect(reopened).toContainText('Inventory');
  await expect(page.getByTestId('task-boundary')).not.toContainText('auth-inventory');

  // The conversation under the task names it in its scope line too, by name, marked retired.
  await openConversation(page, 'Three products');
  const member = page.getByTestId('scope-member').filter({ hasText: /Inventory/ });
  await expect(member).toHaveAttribute('data-system-state', 'retired');
  await expect(member.getByTestId('system-state')).toHaveText(en['systemState.retired']);
}

export const tasksSuite: ScenarioSuite = {
  name: 'tasks',
  script,
  mode: 'default',
  scenarios: [
    {
      title: '3. pause during work: no further permit after Pause; earlier calls keep their states',
      run: scenario3,
    },
    {
      title: '5. accounting: messages and restarts do not reset the budget; states are distinguishable',
      run: scenario5,
    },
    {
      title: '11. three products: two authorizations, inventory reads, description-only edits, budget six',
      run: scenario11,
    },
    {
      title: '14. a system retired since: the task still names it, marked retired (live and after a reopen)',
      run: scenario14,
    },
  ],
};
