/**
 * Recovery across complete host reconstruction (the host process is SIGKILLed and started again
 * on the same data; the Hub and the business systems keep running):
 * (6, pending approval across reopen, is in approval.spec.ts: it needs the local Hub's operator.)
 *  4. lost acknowledgement: reopen, "Result needs checking", Inspect changes nothing, Resume
 *     reconciles, exactly one ledger write, no replacement invoke;
 *  7. fence saved, crash before the request reached the Hub: Resume gets the authoritative
 *     invocation_not_found, the UI shows unverified with "inspect original", no automatic retry.
 */
import { en } from '../../../src-renderer/src/i18n/en.js';
import { expect, type Locator, type Page } from '@playwright/test';
import type { Script } from '../../../demo/scripted-model/script.js';
import type { AppUnderTest } from '../support/stack-fixture.js';
import type { ScenarioSuite } from '../support/suite.js';
import { auditByInvocation, dispatchCount, receipt } from '../support/checks.js';
import { readJournal } from '../support/journal.js';
import { cardsOf, goTo, newConversation, openConversation, screenshot, send } from '../support/ui.js';

const EDIT = 'auth_shop_a__update_product_content';

const flow = (
  tag: string,
  call: { name: string; arguments: Record<string, unknown> },
  doneText: string,
): Script => [
  {
    name: `${tag}-search`,
    match: { userIncludes: tag },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'edit or publish a product' } }] },
  },
  {
    name: `${tag}-call`,
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: tag },
    reply: { toolCalls: [call] },
  },
  {
    name: `${tag}-done`,
    match: { afterToolResultFor: call.name, turnUserIncludes: tag },
    reply: { text: doneText },
  },
];

const script: Script = [
  ...flow(
    '[lost-ack]',
    { name: EDIT, arguments: { product_id: 13, description: 'Stonewashed linen towel, 50 x 70 cm.' } },
    'The shop did not confirm the edit.',
  ),
  ...flow(
    '[fence]',
    { name: EDIT, arguments: { product_id: 7, description: 'Blue-rim enamel mug.' } },
    'unreachable',
  ),
];

function idleRow(page: Page, invocationId: string): Locator {
  return page.getByTestId('idle-row').filter({ hasText: invocationId });
}

async function snapshotEverywhere(app: AppUnderTest, invocationId: string) {
  const { stack } = app;
  return {
    ledger: await stack.ledger('shop-a'),
    requests: (await stack.requests('shop-a')).length,
    receipt: await receipt(stack, invocationId),
    audit: (await auditByInvocation(stack)).get(invocationId) ?? [],
    invokes: Object.values((await stack.metrics()).clients).reduce((n, c) => n + c.invokes, 0),
    journal: readJournal(app.deskDir).find((r) => r.invocation_id === invocationId)?.body ?? null,
  };
}

async function scenario4(app: AppUnderTest): Promise<void> {
  const { stack } = app;
  let page = app.page;
  await newConversation(page, { title: 'Lost acknowledgement', systems: ['Shop A'] });
  await stack.setFault('shop-a', {
    operation: 'update_product_content',
    kind: 'drop_after_commit',
    times: 'once',
  });
  await send(page, '[lost-ack] Update the description of product 13.', {
    waitForText: 'The shop did not confirm the edit.',
  });
  await expect(cardsOf(page, 'update_product_content').getByTestId('tool-card-state')).toHaveText(
    'Result needs checking',
  );
  const ledger = await stack.ledger('shop-a');
  expect(ledger).toHaveLength(1);
  const id = ledger[0]?.idempotency_key ?? '';
  expect((await receipt(stack, id))?.state).toBe('unknown');
  const invokesBefore = (await snapshotEverywhere(app, id)).invokes;

  await app.reopen();
  page = app.page; // a new window in Electron
  await goTo(page, 'Needs attention');
  const row = idleRow(page, id);
  await expect(row).toContainText('Result needs checking');
  await expect(row).toContainText('update_product_content');

  const before = await snapshotEverywhere(app, id);
  await row.getByRole('button', { name: 'Inspect' }).click();
  await expect(row.getByRole('status')).toContainText('Result needs checking');
  const after = await snapshotEverywhere(app, id);
  expect(after).toEqual(before);
  await screenshot(page, '04-lost-ack-inspect');

  await row.getByRole('button', { name: 'Resume' }).click();
  // Reconciled: the call leaves the idle panel (it is resolved) and its card says Completed.
  await expect(idleRow(page, id)).toHaveCount(0);
  expect((await receipt(stack, id))?.state).toBe('succeeded');
  expect(await stack.ledger('shop-a')).toHaveLength(1);
  expect(await dispatchCount(stack, id)).toBe(1);
  const final = await snapshotEverywhere(app, id);
  expect(final.invokes).toBe(invokesBefore); // no replacement invoke, before or after the reopen
  expect(final.audit.some((e) => e.kind === 'invocation.reconciled' && e.to_state === 'succeeded')).toBe(
    true,
  );

  await openConversation(page, 'Lost acknowledgement');
  await expect(cardsOf(page, 'update_product_content').getByTestId('tool-card-state')).toHaveText(
    'Completed',
  );
  await screenshot(page, '04-lost-ack-resumed');
}

async function scenario7(app: AppUnderTest): Promise<void> {
  const { stack } = app;
  let page = app.page;
  await newConversation(page, { title: 'Crash before the Hub', systems: ['Shop A'] });
  stack.proxy.holdWhen((method, path) => method === 'POST' && path === '/agent/v1/invocations');
  const invokesForwardedBefore = stack.proxy
    .forwarded()
    .filter((r) => r.method === 'POST' && r.path === '/agent/v1/invocations').length;
  await page.locator('#composer-input').fill('[fence] Update the description of product 7.');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect.poll(() => stack.proxy.held().length, { timeout: 30_000 }).toBe(1);
  const held = JSON.parse(stack.proxy.held()[0]?.body ?? '{}') as { invocation_id?: string };
  const id = held.invocation_id ?? '';
  expect(id).not.toBe('');
  // The dispatch fence is on disk before the request left the host.
  expect(readJournal(app.deskDir).some((r) => r.invocation_id === id)).toBe(true);

  await app.kill();
  stack.proxy.holdWhen(null);
  await app.start();
  page = app.page;
  expect(await receipt(stack, id)).toBeNull();

  await goTo(page, 'Needs attention');
  const row = idleRow(page, id);
  // The saved fence is worded, never the raw journal code.
  await expect(row.getByTestId('idle-journal-entry')).toHaveText(en['idle.fenceSaved']);
  await expect(row).not.toContainText('pending_dispatch');
  // docs/design.md#resume: an explicit resume of the saved fence is how the operator gets the authoritative answer.
  const resume = row.getByRole('button', { name: 'Resume' });
  await expect(
    resume,
    'the idle panel must offer an explicit Resume for a saved dispatch fence',
  ).toBeVisible();
  await resume.click();
  const result = row.getByRole('status');
  await expect(result.getByTestId('feedback')).toHaveAttribute('data-code', 'invocation_not_found');
  await expect(result).toContainText('Unverified');
  await expect(result).toContainText(/inspect(_| )(the )?original/i);
  await screenshot(page, '07-fence-not-found-unverified');

  // No automatic retry: nothing was re-sent, nothing reached the shop, the record is kept.
  await page.waitForTimeout(2000);
  const invokesForwardedAfter = stack.proxy
    .forwarded()
    .filter((r) => r.method === 'POST' && r.path === '/agent/v1/invocations').length;
  expect(invokesForwardedAfter).toBe(invokesForwardedBefore);
  expect(await dispatchCount(stack, id)).toBe(0);
  expect((await stack.ledger('shop-a')).some((e) => e.target === 'product:7')).toBe(false);
  expect(readJournal(app.deskDir).some((r) => r.invocation_id === id)).toBe(true);
}

export const recoverySuite: ScenarioSuite = {
  name: 'recovery',
  script,
  mode: 'default',
  scenarios: [
    {
      title: '4. lost acknowledgement: reopen, Inspect changes nothing, Resume reconciles, exactly one write',
      run: scenario4,
    },
    {
      title: '7. fence saved, crash before the Hub: Resume gets invocation_not_found, unverified, no retry',
      run: scenario7,
    },
  ],
};
