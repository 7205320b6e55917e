/**
 * Prepares an installation of the app's embedded default the way the app itself would find one
 * from an earlier start: `settings.json` in the data folder with the installation's client id, and
 * the local Hub's client and admin tokens in the OS keychain under that client id (service
 * `bailing-desk`, accounts `hub-client-token:<id>` and `hub-admin-token:<id>`; see
 * src-main/embedded/local-hub.ts). The app then starts its local Hub with those tokens through its
 * ordinary code path (its own keychain, no test hook), and the harness, knowing the admin token,
 * can read the local Hub's approvals, receipts and audit.
 *
 * Needs a real Secret Service (npm test runs everything under a private D-Bus session with an
 * unlocked gnome-keyring). Without one the app would fall back to session-only tokens the harness
 * cannot know, so this refuses to start with that reason instead.
 */
import { randomBytes } from 'node:crypto';
import { createKeychain, KEYCHAIN_ACCOUNTS } from '../../src-main/keychain/index.js';
import { createSettingsFileStore, defaultSettings } from '../../src-main/settings/index.js';

export interface LocalInstall {
  clientId: string;
  clientToken: string;
  adminToken: string;
  /** The local Hub's secret key the app made in the keychain (null before its first start). */
  hubSecretKey(): Promise<string | null>;
  /** Removes the keychain entries (the data folder is the caller's). */
  forget(): Promise<void>;
}

export async function seedLocalInstall(deskDir: string, name: string): Promise<LocalInstall> {
  const keychain = await createKeychain();
  const status = keychain.status();
  if (status.state !== 'available') {
    throw new Error(
      `the OS keychain is unavailable (${status.reason ?? 'unknown'}): the app's local Hub would make session-only tokens this harness cannot know. ` +
        'Run the suite through `npm test`, which starts a private D-Bus session with an unlocked gnome-keyring.',
    );
  }
  const clientId = `desk-e2e-${name}-${randomBytes(4).toString('hex')}`;
  const clientToken = `bdc_${clientId}.${randomBytes(24).toString('base64url')}`;
  const adminToken = `bda_${randomBytes(24).toString('base64url')}`;
  const store = createSettingsFileStore(deskDir);
  if (store.load() !== null) throw new Error(`${deskDir} already holds an installation`);
  store.save({
    ...defaultSettings(),
    embedded: { client_id: clientId, hub_port: null, default_session_id: null },
  });
  const accounts = [
    `${KEYCHAIN_ACCOUNTS.hubClientToken}:${clientId}`,
    `${KEYCHAIN_ACCOUNTS.hubAdminToken}:${clientId}`,
  ] as const;
  await keychain.set(accounts[0], clientToken);
  await keychain.set(accounts[1], adminToken);
  return {
    clientId,
    clientToken,
    adminToken,
    hubSecretKey: () => keychain.get(`${KEYCHAIN_ACCOUNTS.hubSecretKey}:${clientId}`),
    async forget() {
      for (const a of [...accounts, `${KEYCHAIN_ACCOUNTS.hubSecretKey}:${clientId}`])
        await keychain.delete(a).catch(() => undefined);
    },
  };
}
