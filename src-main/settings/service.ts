/**
 * Settings as the handler table sees them: the view (never a secret, only "configured: yes/no"),
 * Hub choice (remote URL + client token into the keychain), model (base URL, model, key into the
 * keychain), and the model settings the runtime reads per request.
 */
import type { CallInput } from '../../src-shared/ipc/contract.js';
import type { SettingsView } from '../../src-shared/ipc/views.js';
import { AppError } from '../../src-shared/errors.js';
import type { SettingsService } from './port.js';
import { KEYCHAIN_ACCOUNTS, KeychainUnavailableError, type Keychain } from '../keychain/index.js';
import type { ModelSettings, ModelSettingsProvider } from '../runtime/desk-runtime.js';
import type { SettingsFile, SettingsFileStore } from './file.js';

export interface SettingsServiceDeps {
  store: SettingsFileStore;
  keychain: Keychain;
  dataDir: string;
  /** The Hub mode this run actually uses (a saved change applies at the next start). */
  runningMode: 'local' | 'remote';
  initial: SettingsFile;
  /** Model defaults from the environment (e.g. tests pointing at the scripted model); the key stays in memory. */
  envModel?: { baseUrl: string | null; model: string | null; apiKey: string | null };
}

export interface DeskSettings extends SettingsService {
  current(): SettingsFile;
  update(fn: (s: SettingsFile) => SettingsFile): void;
  modelProvider: ModelSettingsProvider;
  modelConfigured(): boolean;
}

export function createSettingsService(deps: SettingsServiceDeps): DeskSettings {
  let current = deps.initial;
  const kc = deps.keychain;
  const env = deps.envModel ?? { baseUrl: null, model: null, apiKey: null };

  /** A secret the operator typed goes to the keychain; without one, only with explicit session-only consent. */
  const storeSecret = async (account: string, secret: string, sessionOnly: boolean | undefined) => {
    if (kc.status().state === 'unavailable') {
      if (!sessionOnly)
        throw new AppError(
          'keychain_unavailable',
          new KeychainUnavailableError(kc.status().reason ?? 'unknown').message,
        );
      kc.useSessionOnly();
    }
    await kc.set(account, secret);
  };

  const view = async (): Promise<SettingsView> => {
    const ks = kc.status();
    return {
      hub: {
        mode: current.hub.mode,
        remote_url: current.hub.remote_url,
        token_configured: await kc.has(KEYCHAIN_ACCOUNTS.remoteHubClientToken),
        restart_required: current.hub.mode !== deps.runningMode,
      },
      model: {
        base_url: current.model.base_url ?? env.baseUrl,
        model: current.model.model ?? env.model,
        key_configured: (await kc.has(KEYCHAIN_ACCOUNTS.modelApiKey)) || env.apiKey !== null,
      },
      keychain: { state: ks.state, reason: ks.reason, session_only: ks.sessionOnly },
      data_dir: deps.dataDir,
    };
  };

  const update = (fn: (s: SettingsFile) => SettingsFile) => {
    const next = fn(current);
    deps.store.save(next);
    current = next;
  };

  return {
    current: () => current,
    update,
    view,
    async setHub(input: CallInput<'setHubSettings'>) {
      if (input.mode === 'remote') {
        if (input.client_token)
          await storeSecret(KEYCHAIN_ACCOUNTS.remoteHubClientToken, input.client_token, input.session_only);
        update((s) => ({
          ...s,
          hub: {
            mode: 'remote',
            remote_url: input.url,
            remote_hub_id: s.hub.remote_url === input.url ? s.hub.remote_hub_id : null,
          },
        }));
      } else {
        update((s) => ({ ...s, hub: { ...s.hub, mode: 'local' } }));
      }
      return view();
    },
    async setModel(input: CallInput<'setModelSettings'>) {
      if (input.api_key) await storeSecret(KEYCHAIN_ACCOUNTS.modelApiKey, input.api_key, input.session_only);
      update((s) => ({ ...s, model: { base_url: input.base_url, model: input.model } }));
      return view();
    },
    async clearModelKey() {
      await kc.delete(KEYCHAIN_ACCOUNTS.modelApiKey);
      return view();
    },
    modelConfigured: () =>
      Boolean((current.model.base_url ?? env.baseUrl) && (current.model.model ?? env.model)),
    modelProvider: {
      async get(): Promise<ModelSettings> {
        const apiKey = (await kc.get(KEYCHAIN_ACCOUNTS.modelApiKey)) ?? env.apiKey;
        return {
          baseUrl: current.model.base_url ?? env.baseUrl ?? '',
          model: current.model.model ?? env.model ?? '',
          apiKey,
        };
      },
    },
  };
}
