// Browser mode's access link in real Chromium: the printed link opens the app once; opening it
// again in another tab (after the first exchanged it) shows a worded page and connects nothing; a
// reload of the first tab keeps working; the session is an HttpOnly, SameSite=Strict cookie of the
// host only, and the address bar keeps nothing of the link.
import { expect, test } from '@playwright/test';
import { startStack, type Stack } from '../harness/stack.js';
import { openApp, waitAppReady } from './support/ui.js';

let stack: Stack;
test.beforeAll(async () => {
  stack = await startStack({ name: 'launch-link' });
});
test.afterAll(async () => {
  await stack?.close();
});

test('the printed link opens the app once; a second tab is told to use the open window; a reload keeps working', async ({
  browser,
}) => {
  const host = await stack.startHost();
  const context = await browser.newContext();
  try {
    const first = await context.newPage();
    await openApp(first, host.url);
    expect(first.url()).toBe(`${host.origin}/`);

    const cookies = await context.cookies(host.origin);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({
      name: 'bailing_session',
      httpOnly: true,
      sameSite: 'Strict',
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
    });
    expect(cookies[0]?.value).not.toBe(host.token);
    expect(await first.evaluate(() => document.cookie)).toBe('');

    const second = await context.newPage();
    await second.goto(host.url);
    const banner = second.getByTestId('host-banner');
    await expect(banner).toHaveAttribute('data-link', 'link_used');
    await expect(banner).toContainText('already been used');
    await expect(banner).toContainText('window that is already open');
    await expect(second.locator('.app[data-ready="true"]')).toHaveCount(0);
    expect(second.url()).toBe(`${host.origin}/`);

    await first.reload();
    await waitAppReady(first);

    // a fresh browser (no cookie) with the spent link: still refused, worded
    const other = await browser.newContext();
    try {
      const third = await other.newPage();
      await third.goto(host.url);
      await expect(third.getByTestId('host-banner')).toHaveAttribute('data-link', 'link_used');
    } finally {
      await other.close();
    }
  } finally {
    await context.close();
  }
});
