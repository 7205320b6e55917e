// Settings' model form against the real main-process handlers and the provider emulator: a preset
// fills the base URL, Test connection answers next to the button (worded from codes, in English and
// Chinese), the model picker is filled from the provider's list, and a save to another origin
// without a key says the key must be entered again.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderEmulator, type ProviderEmulator } from '../../demo/provider-emulator/index.js';
import { App } from '../../src-renderer/src/components/App.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import type { TestDesk } from '../app/support.js';
import { startWiredDesk, type WiredDesk } from './support/wired-desk.js';

const KEY = 'sk-form-key-0123456789abcdef';
let desk: TestDesk;
let a: ProviderEmulator;
let b: ProviderEmulator;
let wired: WiredDesk | undefined;

beforeAll(async () => {
  a = await startProviderEmulator({ apiKey: KEY, models: ['alpha-large', 'alpha-small'] });
  b = await startProviderEmulator({ apiKey: null, models: ['beta'] });
  wired = await startWiredDesk();
  desk = wired.desk;
}, 120_000);
afterAll(async () => {
  cleanup();
  await wired?.close();
  await a?.close();
  await b?.close();
}, 120_000);

async function openSettings() {
  const user = userEvent.setup();
  render(<App />);
  await user.click(
    within(await screen.findByRole('navigation', { name: 'Main navigation' }, { timeout: 10_000 })).getByRole(
      'button',
      { name: 'Settings' },
    ),
  );
  return { user, form: await screen.findByRole('form', { name: 'Model' }) };
}

describe('the model settings form', () => {
  it('preset, Test connection worded next to the button, model picker, save; another origin asks for the key again', async () => {
    const { user, form } = await openSettings();
    const f = within(form);
    await user.selectOptions(f.getByLabelText('Provider'), 'deepseek');
    expect(f.getByLabelText('Base URL')).toHaveProperty('value', 'https://api.deepseek.com');
    expect(f.getByLabelText('Send the model’s reasoning back')).toHaveProperty('value', 'tool_call_turns');
    await user.clear(f.getByLabelText('Base URL'));
    await user.type(f.getByLabelText('Base URL'), a.url);
    await user.type(f.getByLabelText('Model'), 'alpha-small');
    await user.type(f.getByLabelText('API key'), 'sk-typed-wrong-key-000000');
    await user.click(f.getByRole('button', { name: 'Test connection' }));
    await waitFor(() =>
      expect(f.getByTestId('connection-result').textContent).toContain(
        'The model list failed: the provider refused the key (HTTP 401).',
      ),
    );
    expect(f.getByTestId('connection-result').textContent).toContain('Sent with the key you typed.');

    await user.clear(f.getByLabelText('API key'));
    await user.type(f.getByLabelText('API key'), KEY);
    await user.click(f.getByRole('button', { name: 'Test connection' }));
    await waitFor(() =>
      expect(f.getByTestId('connection-result').textContent).toBe(
        'Connected: alpha-small answered a one-token request. 2 models listed. Sent with the key you typed.',
      ),
    );
    await user.selectOptions(f.getByLabelText('Models the provider lists'), 'alpha-large');
    expect(f.getByLabelText('Model')).toHaveProperty('value', 'alpha-large');

    // The keychain is unavailable here: keep the key for this session only, then save.
    await user.click(screen.getByLabelText('Keep secrets for this session only (until the app exits)'));
    await user.click(f.getByRole('button', { name: 'Save model' }));
    await waitFor(() => expect(f.getByText('A key is stored.')).toBeTruthy());
    // The save's answer is in the model form, in the row of the button that caused it.
    const saved = f.getByTestId('model-save-status');
    expect(saved.textContent).toBe('Saved.');
    expect(saved.parentElement).toBe(f.getByRole('button', { name: 'Save model' }).parentElement);
    expect((await desk.root.settings.modelProvider.get()).apiKey).toBe(KEY);

    // Another origin, no key typed: the stored key is removed and the form says so.
    await user.selectOptions(f.getByLabelText('Provider'), 'custom');
    await user.clear(f.getByLabelText('Base URL'));
    await user.type(f.getByLabelText('Base URL'), b.url);
    await user.clear(f.getByLabelText('Model'));
    await user.type(f.getByLabelText('Model'), 'beta');
    await user.click(f.getByRole('button', { name: 'Save model' }));
    await waitFor(() =>
      expect(f.getByTestId('key-cleared').textContent).toBe(
        'The base URL now points to another server, so the stored key was removed. Enter the key again.',
      ),
    );
    expect((await desk.root.settings.modelProvider.get()).apiKey).toBeNull();
    const listings = b.listings().length;
    await user.click(f.getByRole('button', { name: 'Test connection' }));
    await waitFor(() =>
      expect(f.getByTestId('connection-result').textContent).toContain('Sent without a key.'),
    );
    expect(
      b
        .listings()
        .slice(listings)
        .map((l) => l.key),
    ).toEqual(['none']);
    cleanup();
  });

  it('in Chinese: a model the provider does not have, worded from its code', async () => {
    act(() => useApp.setState({ lang: 'zh' }));
    const user = userEvent.setup();
    render(<App />);
    await user.click(
      within(await screen.findByRole('navigation', {}, { timeout: 10_000 }))
        .getAllByRole('button')
        .at(-1) as HTMLElement,
    );
    const form = await screen.findByRole('form', { name: '模型' });
    const f = within(form);
    // the preset list is in the operator's language too (brand names stay as they are)
    expect(within(f.getByLabelText('服务商')).getByRole('option', { name: /自定义/ })).toHaveProperty(
      'value',
      'custom',
    );
    await user.clear(f.getByLabelText('接口地址'));
    await user.type(f.getByLabelText('接口地址'), a.url);
    await user.clear(f.getByLabelText('模型'));
    await user.type(f.getByLabelText('模型'), 'gamma');
    await user.type(f.getByLabelText('API 密钥'), KEY);
    await user.click(f.getByRole('button', { name: '测试连接' }));
    await waitFor(() =>
      expect(f.getByTestId('connection-result').textContent).toContain(
        '测试请求失败：服务商没有该模型或接口（HTTP 404）。',
      ),
    );
    expect(f.getByTestId('connection-result').textContent).toContain('gamma 不在服务商的模型列表中。');
    act(() => useApp.setState({ lang: 'en' }));
  });

  it("the Hub form: Test connection and the save answer next to their buttons, in the Hub's own form", async () => {
    cleanup();
    const { user } = await openSettings();
    const hubForm = await screen.findByRole('form', { name: 'Hub' });
    const h = within(hubForm);
    await user.click(h.getByLabelText('Remote Hub'));
    // Port 1 on the loopback: nothing listens there.
    await user.type(h.getByLabelText('Hub URL'), 'http://127.0.0.1:1');
    await user.click(h.getByRole('button', { name: 'Test connection' }));
    await waitFor(() =>
      expect(h.getByTestId('hub-test-result').textContent).toBe(
        'Nothing answered at this address. (no token sent)',
      ),
    );
    // Directly under the row with the button that caused it, inside the Hub form.
    expect(h.getByTestId('hub-test-result').previousElementSibling).toBe(
      h.getByRole('button', { name: 'Test connection' }).parentElement,
    );
    await user.click(h.getByRole('button', { name: 'Save Hub choice' }));
    await waitFor(() => expect(h.getByTestId('hub-save-status').textContent).toBe('Saved.'));
    expect(h.getByTestId('hub-save-status').parentElement).toBe(
      h.getByRole('button', { name: 'Save Hub choice' }).parentElement,
    );
    expect(screen.queryByTestId('model-save-status')).toBeNull();
    cleanup();
  });
});
