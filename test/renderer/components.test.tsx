// Components fed through their stores: the idle panel virtualises 10,000 rows and keeps unsaved
// records red; the storage bar stays red until a ready state arrives; the Hub banner; Chinese UI.
// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import React from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StorageView, UnresolvedItem } from '../../src-shared/ipc/views.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { SettingsView } from '../../src-renderer/src/components/SettingsView.js';
import { useSettings } from '../../src-renderer/src/store/settings.js';
import { HubBanner } from '../../src-renderer/src/components/Banners.js';
import { IdlePanel } from '../../src-renderer/src/components/IdlePanel.js';
import { StorageBar } from '../../src-renderer/src/components/StorageBar.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useSessions } from '../../src-renderer/src/store/sessions.js';
import { useUnresolved } from '../../src-renderer/src/store/unresolved.js';

// jsdom has no layout: give the idle list's scroll box a size, as a browser would (900 x 640 px).
const realRect = HTMLElement.prototype.getBoundingClientRect;
beforeAll(() => {
  HTMLElement.prototype.getBoundingClientRect = function (this: HTMLElement) {
    if (this.dataset.testid === 'idle-list')
      return {
        x: 0,
        y: 0,
        top: 0,
        left: 0,
        right: 900,
        bottom: 640,
        width: 900,
        height: 640,
        toJSON: () => ({}),
      } as DOMRect;
    return realRect.call(this);
  };
  for (const prop of ['offsetHeight', 'clientHeight'] as const) {
    Object.defineProperty(HTMLElement.prototype, prop, {
      configurable: true,
      get(this: HTMLElement) {
        return this.dataset.testid === 'idle-list' ? 640 : 0;
      },
    });
  }
  for (const prop of ['offsetWidth', 'clientWidth'] as const) {
    Object.defineProperty(HTMLElement.prototype, prop, {
      configurable: true,
      get(this: HTMLElement) {
        return this.dataset.testid === 'idle-list' ? 900 : 0;
      },
    });
  }
});
afterAll(() => {
  HTMLElement.prototype.getBoundingClientRect = realRect;
});

afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
});

const item = (i: number, over: Partial<UnresolvedItem> = {}): UnresolvedItem => ({
  invocation_id: `inv_${String(i).padStart(8, '0')}`,
  session_id: 's1',
  session_title: 'Demo',
  tool: 'update_product',
  authorization_ref: 'auth-shop-a',
  hub_state: 'unknown',
  journal_entry_state: 'unknown',
  journal_state: 'ready',
  archive_state: 'ready',
  unsaved: false,
  unsaved_reason: null,
  can_inspect: true,
  can_resume: true,
  can_attest: true,
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('IdlePanel', () => {
  it('renders 10,000 unresolved invocations through a virtual window, not 10,000 rows', () => {
    useUnresolved.getState().set(Array.from({ length: 10_000 }, (_, i) => item(i)));
    render(<IdlePanel />);
    expect(screen.getByTestId('idle-count').textContent).toBe('10000 unresolved');
    const rows = screen.getAllByTestId('idle-row');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(rows[0]?.textContent).toContain('Result needs checking');
    expect(rows[0]?.textContent).toContain(`Journal: ${en['journalState.ready']}`);
    expect(rows[0]?.textContent).toContain(`Archive: ${en['archiveState.ready']}`);
    expect(rows[0]?.textContent).not.toMatch(/\bready\b/);
  });

  it('shows an unsaved record in red with its reason, and Resume only where eligible', () => {
    useUnresolved.getState().set([
      item(1, {
        unsaved: true,
        unsaved_reason: 'invocation_store_unavailable',
        journal_state: 'storage_error',
        can_resume: false,
        can_attest: false,
      }),
      item(2, { hub_state: 'awaiting_approval', can_resume: false, can_attest: false }),
    ]);
    render(<IdlePanel />);
    const [first, second] = screen.getAllByTestId('idle-row');
    expect(first?.className).toContain('state-bad');
    expect(first?.textContent).toContain(
      'Unsaved: the local invocation journal cannot be saved or read (invocation_store_unavailable)',
    );
    expect(first?.textContent).toContain(`Journal: ${en['journalState.storage_error']}`);
    expect(first?.textContent).not.toContain('storage_error');
    expect(first?.querySelectorAll('.idle-actions button').length).toBe(1); // Inspect only
    expect(second?.textContent).toContain('Awaiting approval');
    expect(second?.className).not.toContain('state-bad');
  });
});

describe('IdlePanel: a saved fence the Hub never answered', () => {
  it('leads with "Result needs checking", words the saved fence (never the raw pending_dispatch), and offers Resume', () => {
    useUnresolved.getState().set([
      item(3, {
        hub_state: null,
        journal_entry_state: 'pending_dispatch',
        can_resume: true,
        can_attest: false,
      }),
    ]);
    render(<IdlePanel />);
    const [row] = screen.getAllByTestId('idle-row');
    expect(row?.textContent).toContain('Result needs checking');
    expect(row?.textContent).not.toContain('Saving before dispatch');
    expect(row?.textContent).not.toContain('pending_dispatch');
    expect(row?.textContent).toContain(en['idle.fenceSaved']);
    expect(row?.querySelectorAll('.idle-actions button').length).toBe(2); // Inspect and Resume
  });
});

describe('StorageBar', () => {
  const bad: StorageView = {
    journal: { state: 'storage_error', unsaved_records: 2, reason: 'invocation_store_unavailable' },
    archive: { state: 'ready', unsaved_events: 0, reason: null },
  };
  const ok: StorageView = {
    journal: { state: 'ready', unsaved_records: 0, reason: null },
    archive: { state: 'ready', unsaved_events: 0, reason: null },
  };

  function Bar(): React.JSX.Element | null {
    const storage = useSessions((s) => s.conversations.s1?.storage ?? null);
    return <StorageBar sessionId="s1" storage={storage} />;
  }

  it('stays red through unrelated updates and clears only when a ready state arrives', () => {
    useSessions.setState({ conversations: {} });
    act(() => useSessions.getState().applyStorage('s1', bad));
    render(<Bar />);
    expect(screen.getByTestId('journal-state').className).toContain('state-bad');
    expect(screen.getByTestId('journal-state').textContent).toContain('2 unsaved');
    const retry = screen.queryByRole('button', { name: 'Retry saving the journal' });
    expect(retry).not.toBeNull();
    expect(retry?.hasAttribute('disabled')).toBe(false);
    act(() => {
      useSessions.getState().applyItem('s1', { kind: 'user_message', id: 'e1', at: 'x', text: 'hello' });
      useSessions.getState().applyItem('s2', { kind: 'user_message', id: 'e2', at: 'x', text: 'other' });
    });
    expect(screen.getByTestId('journal-state').className).toContain('state-bad');
    expect(screen.getByTestId('archive-state').className).toContain('state-ok');
    act(() => useSessions.getState().applyStorage('s1', ok));
    expect(screen.getByTestId('journal-state').className).toContain('state-ok');
    expect(screen.queryByRole('button', { name: 'Retry saving the journal' })).toBeNull();
  });
});

describe('HubBanner and languages', () => {
  it('says the Hub is gone in the chosen language, and disappears when connected', () => {
    act(() =>
      useApp.setState({
        hub: { state: 'disconnected', mode: 'local', url: null, reason: 'x', since: 'x', can_approve: true },
        lang: 'zh',
      }),
    );
    render(<HubBanner />);
    expect(screen.getByRole('alert').textContent).toContain('无法连接 Hub');
    act(() =>
      useApp.setState({
        hub: { state: 'connected', mode: 'local', url: null, reason: null, since: 'x', can_approve: true },
      }),
    );
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('an unusable Hub: says why in words (both languages) and offers Settings', () => {
    for (const lang of ['en', 'zh'] as const) {
      act(() =>
        useApp.setState({
          hub: {
            state: 'disconnected',
            mode: 'remote',
            url: null,
            reason: 'x',
            since: 'x',
            can_approve: false,
            problem: 'remote_not_configured',
          },
          lang,
          view: 'conversations',
        }),
      );
      render(<HubBanner />);
      const words = lang === 'en' ? en : zh;
      expect(screen.getByRole('alert').textContent).toContain(words['hub.problem.remote_not_configured']);
      act(() => screen.getByRole('button', { name: words['hub.openSettings'] }).click());
      expect(useApp.getState().view).toBe('settings');
      cleanup();
    }
  });
});

describe('Settings: the keychain status', () => {
  it('words why the keychain is unavailable from its code; the developer detail stays folded', () => {
    const detail =
      "keytar is not installed: Cannot find package 'keytar' imported from /opt/app/src-main/keychain/index.ts";
    useSettings.setState({
      settings: {
        hub: {
          mode: 'local',
          remote_url: null,
          token_configured: false,
          restart_required: false,
          token_cleared: null,
        },
        model: {
          provider: 'custom',
          base_url: null,
          model: null,
          key_configured: false,
          key_cleared: null,
          stream: true,
          send_reasoning: 'never',
        },
        keychain: { state: 'unavailable', reason: detail, reason_code: 'keytar_missing', session_only: true },
        data_dir: '/tmp/x',
        preferences: null,
      },
    });
    for (const lang of ['en', 'zh'] as const) {
      act(() => useApp.setState({ lang }));
      render(<SettingsView />);
      const status = screen.getByTestId('keychain-status');
      const words = lang === 'en' ? en : zh;
      expect(status.textContent).toContain(words['keychainReason.keytar_missing']);
      const folded = status.querySelector('details');
      expect(folded?.open).toBe(false);
      expect(folded?.textContent).toContain('Cannot find package');
      const shown = status.cloneNode(true) as HTMLElement;
      shown.querySelector('details')?.remove();
      expect(shown.textContent).not.toContain('Cannot find package');
      expect(shown.textContent).not.toContain('/opt/app');
      cleanup();
    }
  });
});
