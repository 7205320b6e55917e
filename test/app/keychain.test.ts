// The keychain against a real Secret Service (gnome-keyring under a private D-Bus session, as
// `npm test` provides; run it alone with `node scripts/keyring-session.mjs npx vitest run test/app/keychain.test.ts`), and its honest fallback without one.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKeychain, KEYCHAIN_SERVICE, KeychainUnavailableError } from '../../src-main/keychain/index.js';

const root = resolve(import.meta.dirname, '../..');

describe('keychain with the real OS keychain (gnome-keyring over D-Bus)', () => {
  it('stores, reads and deletes a secret under the app service name', async () => {
    const service = `${KEYCHAIN_SERVICE}-test-${randomUUID()}`;
    const kc = await createKeychain({ service });
    expect(kc.status()).toEqual({ state: 'available', reason: null, reasonCode: null, sessionOnly: false });
    const secret = `sk-${randomUUID()}`;
    await kc.set('model-api-key', secret);
    expect(await kc.get('model-api-key')).toBe(secret);
    // A second, independent keychain object (as after a restart) reads it from the OS store.
    const again = await createKeychain({ service });
    expect(await again.get('model-api-key')).toBe(secret);
    expect(await again.has('model-api-key')).toBe(true);
    await again.delete('model-api-key');
    expect(await kc.get('model-api-key')).toBeNull();
  });
});

describe('keychain when no Secret Service is reachable', () => {
  it('reports unavailable with the reason when D-Bus is missing (a real child process)', () => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
    const script = `
      import { createKeychain } from './src-main/keychain/index.ts';
      const kc = await createKeychain();
      let refused = null;
      try { await kc.set('x', 'secret-value'); } catch (e) { refused = e.code; }
      kc.useSessionOnly();
      await kc.set('x', 'secret-value');
      console.log(JSON.stringify({ status: kc.status(), refused, read: await kc.get('x') }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as {
      status: { state: string; reason: string; sessionOnly: boolean };
      refused: string | null;
      read: string | null;
    };
    expect(out.status.state).toBe('unavailable');
    expect(out.status.reason).toMatch(/Secret Service|D-Bus|DBus|dbus/i);
    expect(out.status.sessionOnly).toBe(true);
    expect(out.refused).toBe('keychain_unavailable');
    expect(out.read).toBe('secret-value');
  });

  it('reports keytar missing and refuses to store until session-only use is chosen', async () => {
    const kc = await createKeychain({
      loadBackend: async () => {
        throw new Error("Cannot find module 'keytar'");
      },
    });
    expect(kc.status().state).toBe('unavailable');
    expect(kc.status().reason).toContain('keytar is not installed');
    expect(kc.status().reasonCode).toBe('keytar_missing');
    await expect(kc.set('model-api-key', 'k')).rejects.toBeInstanceOf(KeychainUnavailableError);
    expect(await kc.get('model-api-key')).toBeNull();
    kc.useSessionOnly();
    await kc.set('model-api-key', 'k');
    expect(await kc.get('model-api-key')).toBe('k');
    expect(kc.status()).toMatchObject({ state: 'unavailable', sessionOnly: true });
  });
});
