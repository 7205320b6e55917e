// The renderer against the real main-process handlers (in process): the demo conversation, a task
// created, paused and continued from the task panel, and the Hub going away and coming back.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { join } from 'node:path';
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHub, type Hub } from '../../src-hub/index.js';
import { KEYCHAIN_ACCOUNTS } from '../../src-main/keychain/index.js';
import { App } from '../../src-renderer/src/components/App.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useTasks } from '../../src-renderer/src/store/tasks.js';
import type { TestDesk } from '../app/support.js';
import { startWiredDesk, type WiredDesk } from './support/wired-desk.js';

let desk: TestDesk;
let wired: WiredDesk | undefined;
let revived: Hub | null = null;

beforeAll(async () => {
  wired = await startWiredDesk();
  desk = wired.desk;
}, 120_000);
afterAll(async () => {
  cleanup();
  await wired?.close();
  await revived?.close();
}, 120_000);

describe('renderer over the real handlers', () => {
  it('shows the demo conversation with journal and archive state side by side', async () => {
    render(<App />);
    expect(await screen.findByTestId('conversation-title', {}, { timeout: 10_000 })).toHaveProperty(
      'textContent',
      'Demo: shops and inventory',
    );
    await waitFor(() =>
      expect(screen.getByTestId('journal-state').textContent).toContain(en['journalState.ready']),
    );
    expect(screen.getByTestId('archive-state').textContent).toContain(en['archiveState.ready']);
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true);
  });

  it('pauses and continues a task from the panel, with the exact sentence', async () => {
    const user = userEvent.setup();
    await act(async () => {
      await useTasks.getState().create({
        title: 'Three products',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
        write_budget: 6,
        in_flight_limit: 2,
      });
    });
    await user.click(
      within(screen.getByRole('navigation', { name: 'Main navigation' })).getByRole('button', {
        name: 'Tasks',
      }),
    );
    await waitFor(() =>
      expect(screen.getByTestId('task-sentence').textContent).toBe(
        'Dispatch is allowed: 6 of 6 writes left.',
      ),
    );
    await user.click(screen.getByRole('button', { name: 'Pause' }));
    await waitFor(() =>
      expect(screen.getByTestId('task-sentence').textContent).toBe(
        'Further dispatch is paused. Nothing is waiting.',
      ),
    );
    expect(screen.getByTestId('task-state').textContent).toBe('Paused');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(screen.getByTestId('task-state').textContent).toBe('Active'));
  });

  it('says the Hub is gone, disables Hub controls, and recovers by itself', async () => {
    const local = desk.root.local;
    if (!local) throw new Error('no local hub');
    const port = local.hub.port;
    await local.hub.close();
    await waitFor(() => expect(screen.getByTestId('hub-banner').textContent).toContain('cannot be reached'), {
      timeout: 10_000,
    });
    expect(screen.getByRole('button', { name: 'Pause' })).toHaveProperty('disabled', true);
    expect(useApp.getState().hub?.state).toBe('disconnected');
    // the same Hub again: its store opens only with the secret key the desk keeps in its keychain
    const secretKey = await desk.keychain.get(`${KEYCHAIN_ACCOUNTS.hubSecretKey}:${local.clientId}`);
    revived = await createHub({
      dataDir: join(desk.dir, 'data', 'hub'),
      port,
      adminToken: local.adminToken,
      ...(secretKey ? { secretKey } : {}),
    });
    await waitFor(() => expect(screen.queryByTestId('hub-banner')).toBeNull(), { timeout: 15_000 });
    expect(screen.getByRole('button', { name: 'Pause' })).toHaveProperty('disabled', false);
  });
});
