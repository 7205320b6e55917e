/**
 *  6. pending approval across reopen: approve in the Approvals view; the call stays "Approved,
 *     not yet run" until Resume; then exactly one dispatch.
 *
 * Deciding approvals in the app is the LOCAL Hub operator's right (in remote mode the view says
 * the credential may not decide), so this scenario runs the app's embedded default as a separate
 * process with its local Hub and demo systems (e2e/harness/local-stack.ts). A SIGKILL of the app
 * ends all three; the reopen brings the Hub back on the same data and port, and the demo systems
 * on their data (ledgers kept in `<desk>/demo`) with new request logs, so "nothing was sent" is
 * read from the first instance right before the kill, and "exactly one dispatch" from the second.
 *
 * Written once against `LocalAppUnderTest`, run by approval.spec.ts (Chromium through the
 * product's browser-mode launcher) and electron.spec.ts (the Electron app).
 */
import { expect, type Page } from '@playwright/test';
import type { Script } from '../../../demo/scripted-model/script.js';
import type { LocalStack } from '../../harness/local-stack.js';
import type { ReceiptLike } from '../support/checks.js';
import { cardsOf, goTo, newConversation, openConversation, screenshot, send } from '../support/ui.js';

const PUBLISH = 'auth_shop_a__publish_listing';

export const approvalScript: Script = [
  {
    name: 'search',
    match: { userIncludes: '[approval]' },
    reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'publish a product listing' } }] },
  },
  {
    name: 'call',
    match: { afterToolResultFor: 'search_tools', turnUserIncludes: '[approval]' },
    reply: { toolCalls: [{ name: PUBLISH, arguments: { product_id: 42, channel: 'web' } }] },
  },
  { name: 'done', match: { afterToolResultFor: PUBLISH }, reply: { text: 'Publishing needs approval.' } },
];

/** The app on its embedded default, as the Chromium and the Electron drivers run it. */
export interface LocalAppUnderTest {
  stack: LocalStack;
  /** The app's current page (a new object after `start()` in Electron). */
  readonly page: Page;
  /** SIGKILL the app (and with it the local Hub and demo systems); wait for its exit. */
  kill(): Promise<void>;
  /** Start it again on the same data and wait until it is ready. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export const APPROVAL_TITLE =
  '6. pending approval across reopen: approve in the Approvals view, runs once only on Resume';

export async function pendingApprovalAcrossReopen(app: LocalAppUnderTest): Promise<void> {
  const { stack } = app;
  const receipt = (id: string) =>
    stack.admin<ReceiptLike>('GET', `/admin/v1/invocations/${encodeURIComponent(id)}`);
  const sentTimes = async (id: string) =>
    (await stack.requests('shop-a')).filter((r) => r.kind === 'operation' && r.idempotency_key === id).length;

  let page = app.page;
  await newConversation(page, { title: 'Publish with approval', systems: ['Shop A'] });
  await send(page, '[approval] Publish product 42 on the web.', {
    waitForText: 'Publishing needs approval.',
  });
  await expect(cardsOf(page, 'publish_listing').getByTestId('tool-card-state')).toHaveText(
    'Awaiting approval',
  );
  const { approvals } = await stack.admin<{
    approvals: { approval_id: string; invocation_id: string; state: string }[];
  }>('GET', '/admin/v1/approvals');
  const pending = approvals.filter((a) => a.state === 'pending');
  expect(pending).toHaveLength(1);
  const id = pending[0]?.invocation_id ?? '';
  expect((await receipt(id)).state).toBe('awaiting_approval');
  // Nothing reached the shop before the app (and its local Hub and systems) is killed.
  expect(await sentTimes(id)).toBe(0);
  expect(await stack.ledger('shop-a')).toEqual([]);

  await app.kill();
  await app.start();
  page = app.page;
  await goTo(page, 'Approvals');
  const approval = page.getByTestId('approval').filter({ hasText: id });
  await expect(approval).toContainText('Approval: pending');
  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(approval).toContainText('Approval: approved');
  await expect(approval.getByTestId('approval-execution')).toHaveText('Approved, not yet run');
  expect((await receipt(id)).state).toBe('approved');
  // Approval is not execution: nothing is sent until Resume, even after a while.
  await page.waitForTimeout(1500);
  expect(await sentTimes(id)).toBe(0);

  await goTo(page, 'Needs attention');
  const row = page.getByTestId('idle-row').filter({ hasText: id });
  await expect(row).toContainText('Approved, not yet run');
  await screenshot(page, '06-approved-not-yet-run');
  await row.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('idle-row').filter({ hasText: id })).toHaveCount(0);
  const done = await receipt(id);
  expect(done.state).toBe('succeeded');
  expect(done.approval?.state).toBe('approved');
  expect(await sentTimes(id)).toBe(1);
  expect((await stack.ledger('shop-a')).map((e) => `${e.operation} ${e.idempotency_key}`)).toEqual([
    `publish_listing ${id}`,
  ]);
  const audit = (
    await stack.admin<{ entries: { kind: string; to_state: string | null }[] }>(
      'GET',
      `/admin/v1/audit?invocation_id=${encodeURIComponent(id)}`,
    )
  ).entries;
  expect(audit.some((e) => e.to_state === 'approved')).toBe(true);
  expect(audit.filter((e) => e.to_state === 'succeeded')).toHaveLength(1);

  await openConversation(page, 'Publish with approval');
  await expect(cardsOf(page, 'publish_listing').getByTestId('tool-card-state')).toHaveText('Completed');
  await screenshot(page, '06-approval-resumed');
}
