// Settings' "Demo data" against the real main-process handlers and the embedded default, started on
// a data folder whose Shop B file is damaged: the app opens, the section says where the data lives
// and names the damaged system with its state worded from its code (en and zh); "Reset demo data"
// says what it does and asks first (Keep changes nothing); the confirmed reset answers next to the
// button, names the file kept aside, and the problem is gone.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeDesk, type ComposedDesk } from '../../src-main/embedded/composition-root.js';
import { createKeychain } from '../../src-main/keychain/index.js';
import { bootstrap } from '../../src-renderer/src/bootstrap.js';
import { App } from '../../src-renderer/src/components/App.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { inProcessApi } from './support/in-process-api.js';

const dir = mkdtempSync(join(tmpdir(), 'demo-data-settings-'));
const dataDir = join(dir, 'data');
const demoDir = join(dataDir, 'demo');
let desk: ComposedDesk;
let unwire: () => void = () => {};
const fill = (text: string, params: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (m, k: string) => params[k] ?? m);

beforeAll(async () => {
  mkdirSync(demoDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(demoDir, 'shop-b.sqlite'), 'not a database'.repeat(300), { mode: 0o600 });
  const keychain = await createKeychain({
    loadBackend: async () => {
      throw new Error('keytar not used in this test');
    },
    sessionOnlyFallback: true,
  });
  desk = await composeDesk({ dataDir, version: '0.0.0-test', keychain, env: {}, reconnectDelayMs: 150 });
  unwire = await bootstrap(inProcessApi(desk.router, desk.bus));
}, 120_000);
afterAll(async () => {
  cleanup();
  unwire();
  await desk?.close();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe('Settings: Demo data', () => {
  it('names a damaged file, asks before resetting, answers next to the button, and the problem is gone', async () => {
    const user = userEvent.setup();
    render(<App />);
    const nav = await screen.findByRole('navigation', { name: en['nav.main'] }, { timeout: 10_000 });
    await user.click(within(nav).getByRole('button', { name: new RegExp(`^${en['nav.settings']}`) }));
    const section = within(await screen.findByTestId('demo-data'));
    expect(section.getByText(fill(en['demoData.where'], { dir: demoDir }))).toBeTruthy();
    const problem = await section.findByTestId('demo-data-problem');
    expect(problem.textContent).toContain(
      fill(en['demoData.problem'], { system: 'Shop B (coffee gear)', state: en['demoData.state.corrupt'] }),
    );
    expect(problem.textContent).toContain('SQLITE_NOTADB');
    act(() => useApp.setState({ lang: 'zh' }));
    expect(section.getByTestId('demo-data-problem').textContent).toContain(
      fill(zh['demoData.problem'], { system: 'Shop B (coffee gear)', state: zh['demoData.state.corrupt'] }),
    );
    expect(section.getByRole('button', { name: zh['demoData.reset'] })).toBeTruthy();
    act(() => useApp.setState({ lang: 'en' }));

    // Asked first; keeping the data changes nothing.
    const reset = section.getByRole('button', { name: en['demoData.reset'] });
    await user.click(reset);
    const dialog = within(section.getByRole('alertdialog', { name: en['demoData.reset'] }));
    expect(dialog.getByText(en['demoData.confirmText'])).toBeTruthy();
    await user.click(dialog.getByRole('button', { name: en['demoData.cancel'] }));
    expect(section.queryByRole('alertdialog')).toBeNull();
    expect(desk.local?.demo.shopB.dataStatus().state).toBe('corrupt');

    await user.click(reset);
    await user.click(
      within(section.getByRole('alertdialog')).getByRole('button', { name: en['demoData.confirm'] }),
    );
    const answer = await section.findByTestId('demo-data-answer');
    // Next to the button: in the same row.
    expect(reset.parentElement?.contains(answer)).toBe(true);
    const aside = readdirSync(demoDir).find((f) => f.startsWith('shop-b.sqlite.set-aside-')) ?? '';
    expect(aside).not.toBe('');
    expect(answer.textContent).toBe(
      [
        fill(en['demoData.done'], { systems: 'Shop A (homeware), Shop B (coffee gear), Inventory' }),
        fill(en['demoData.setAside'], { system: 'Shop B (coffee gear)', file: aside }),
      ].join(' '),
    );
    await waitFor(() => expect(section.queryByTestId('demo-data-problem')).toBeNull());
    expect(desk.local?.demo.shopB.dataStatus().state).toBe('ok');
  });
});
