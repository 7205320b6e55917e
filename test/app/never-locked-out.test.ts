// Never locked out: whatever the settings, the app opens. A remote Hub chosen with a token kept
// for one session only (gone after a restart) and a remote Hub that does not answer at start both
// open offline, with the problem as a code the UI words and nothing asked of any Hub; Settings'
// Test connection for a Hub answers with what the address and the token turned out to be.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from '../../src-shared/ipc/contract.js';
import { composeDesk, type ComposedDesk } from '../../src-main/embedded/composition-root.js';
import { createKeychain, type Keychain } from '../../src-main/keychain/index.js';
import { hubConnected, startTestDesk, type TestDesk } from './support.js';

const ctx = { transport: 'browser' as const };
let desk: TestDesk;

const sessionOnlyKeychain = (): Promise<Keychain> =>
  createKeychain({
    loadBackend: async () => {
      throw new Error('keytar not used in this test');
    },
    sessionOnlyFallback: true,
  });

async function reopen(dataDir: string, keychain: Keychain): Promise<ComposedDesk> {
  return composeDesk({ dataDir, version: '0.0.0-test', keychain, env: {}, reconnectDelayMs: 150 });
}

beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

describe('the app opens whatever the Hub settings', () => {
  it('tests a Hub address and token from Settings without saving anything', async () => {
    const url = desk.root.local?.url ?? '';
    const token = desk.root.local?.clientToken ?? '';
    const test = async (input: { url: string; token?: string }) => {
      const r = (await desk.root.router.call(
        'testHubConnection',
        input,
        ctx,
      )) as CallResult<'testHubConnection'>;
      if (!r.ok) throw new Error(r.error.code);
      return r.value;
    };
    expect(await test({ url, token })).toMatchObject({ state: 'ok', token_used: 'entered' });
    expect((await test({ url, token })).authorizations).toBeGreaterThan(0);
    expect(await test({ url, token: 'bdc_nobody.wrong-token-0000' })).toMatchObject({
      state: 'unauthorized',
    });
    expect(await test({ url })).toMatchObject({ state: 'no_token', token_used: 'none' });
    expect(await test({ url: 'http://127.0.0.1:1/', token })).toMatchObject({ state: 'unreachable' });
  });

  it('a session-only token gone after a restart: opens offline, saying why; nothing is asked', async () => {
    const keychain = await sessionOnlyKeychain();
    const url = desk.root.local?.url ?? '';
    // Choose the (working) Hub as a remote one, its token kept for this session only.
    const first = await reopen(join(desk.dir, 'remote-a'), keychain);
    const saved = (await first.router.call(
      'setHubSettings',
      { mode: 'remote', url, client_token: desk.root.local?.clientToken ?? '', session_only: true },
      ctx,
    )) as CallResult<'setHubSettings'>;
    expect(saved.ok).toBe(true);
    await first.close();

    // A restart: a new keychain, so the session-only token is gone.
    const again = await reopen(join(desk.dir, 'remote-a'), await sessionOnlyKeychain());
    try {
      expect(again.gateway.connection()).toMatchObject({
        state: 'disconnected',
        mode: 'remote',
        problem: 'remote_not_configured',
      });
      const info = (await again.router.call('getAppInfo', {}, ctx)) as CallResult<'getAppInfo'>;
      expect(info.ok && info.value.hub.problem).toBe('remote_not_configured');
      // Settings are reachable: the operator can fix it from the app.
      const settings = (await again.router.call('getSettings', {}, ctx)) as CallResult<'getSettings'>;
      expect(settings.ok && settings.value.hub).toMatchObject({ mode: 'remote', remote_url: url });
      const tasks = (await again.router.call('listTasks', {}, ctx)) as CallResult<'listTasks'>;
      expect(tasks.ok ? 'ok' : tasks.error.code).toBe('hub_unavailable');
    } finally {
      await again.close();
    }
  });

  it('a remote Hub that does not answer at start (never met before): opens offline', async () => {
    const keychain = await sessionOnlyKeychain();
    const dir = join(desk.dir, 'remote-b');
    const first = await reopen(dir, keychain);
    const saved = (await first.router.call(
      'setHubSettings',
      {
        mode: 'remote',
        url: 'http://127.0.0.1:1/',
        client_token: 'bdc_x.some-token-0000',
        session_only: true,
      },
      ctx,
    )) as CallResult<'setHubSettings'>;
    expect(saved.ok).toBe(true);
    await first.close();
    const again = await reopen(dir, keychain);
    try {
      expect(again.gateway.connection()).toMatchObject({
        state: 'disconnected',
        problem: 'remote_unreachable',
      });
      const sessions = (await again.router.call('listSessions', {}, ctx)) as CallResult<'listSessions'>;
      expect(sessions.ok).toBe(true);
    } finally {
      await again.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
