/**
 * Settings as the handler table sees them: the view (never a secret, only "configured: yes/no"),
 * Hub choice (remote URL + client token into the keychain), model (provider preset, base URL,
 * model, key into the keychain, streaming and reasoning choices), Test connection, and the model
 * settings the runtime reads per request. A key or token is used only for the origin it was
 * entered for (./secret-origin.ts). Every secret this service stores or reads is reported through
 * `secrets()`, so the runtime masks it from the moment it is known.
 */
import type { CallInput } from '../../src-shared/ipc/contract.js';
import type { ConnectionTestView, HubTestView, SettingsView } from '../../src-shared/ipc/views.js';
import { originOf, providerQuirks } from '../../src-shared/model-providers.js';
import type { SettingsService } from './port.js';
import { KEYCHAIN_ACCOUNTS, type Keychain } from '../keychain/index.js';
import type { ModelSettings, ModelSettingsProvider } from '../runtime/desk-runtime.js';
import { testModelConnection } from '../runtime/model/connection-test.js';
import type { SettingsFile, SettingsFileStore } from './file.js';
import { createModelChoice, type EnvModel } from './model-choice.js';
import { createSecretKeeper } from './secret-keeper.js';
import { secretFits } from './secret-origin.js';

export type { EnvModel } from './model-choice.js';

export interface SettingsServiceDeps {
  store: SettingsFileStore;
  keychain: Keychain;
  dataDir: string;
  /** The Hub mode this run actually uses (a saved change applies at the next start). */
  runningMode: 'local' | 'remote';
  initial: SettingsFile;
  /** Settings' Test connection for a Hub (src-main/hub-client/connection-test.ts, injected: settings reach no Hub themselves). */
  testHubConnection: (input: {
    url: string;
    token: string | null;
    tokenUsed: HubTestView['token_used'];
  }) => Promise<HubTestView>;
  /** Model defaults from the environment (e.g. tests pointing at a model server); the key stays in memory. */
  envModel?: EnvModel;
}

export interface DeskSettings extends SettingsService {
  current(): SettingsFile;
  update(fn: (s: SettingsFile) => SettingsFile): void;
  modelProvider: ModelSettingsProvider;
  modelConfigured(): boolean;
  /** The stored remote Hub client token, only when it was entered for the saved remote URL's origin. */
  remoteHubToken(): Promise<string | null>;
  /** Every key and token this service has stored or read (masked by the runtime from then on). */
  secrets(): string[];
  /** Reads the stored secrets once (at start), so they are masked before the first message. */
  loadSecrets(): Promise<void>;
}

export function createSettingsService(deps: SettingsServiceDeps): DeskSettings {
  let current = deps.initial;
  const kc = deps.keychain;
  const env = deps.envModel ?? { baseUrl: null, model: null, apiKey: null };
  const keeper = createSecretKeeper(kc, [env.apiKey]);
  const { remember } = keeper;
  const model = createModelChoice({ saved: () => current.model, env, keychain: kc, keeper });

  const tokenOrigin = () => current.hub.token_origin ?? originOf(current.hub.remote_url);

  const view = async (): Promise<SettingsView> => {
    const ks = kc.status();
    return {
      hub: {
        mode: current.hub.mode,
        remote_url: current.hub.remote_url,
        token_configured:
          secretFits(tokenOrigin(), current.hub.remote_url) &&
          (await kc.has(KEYCHAIN_ACCOUNTS.remoteHubClientToken)),
        restart_required: current.hub.mode !== deps.runningMode,
        token_cleared: current.hub.token_cleared ?? null,
      },
      model: await model.view(),
      keychain: {
        state: ks.state,
        reason: ks.reason,
        reason_code: ks.reasonCode,
        session_only: ks.sessionOnly,
      },
      data_dir: deps.dataDir,
      preferences: current.ui ?? null,
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
        const secret = await keeper.followOrigin(
          KEYCHAIN_ACCOUNTS.remoteHubClientToken,
          tokenOrigin(),
          input.url,
          input.client_token,
          input.session_only,
        );
        update((s) => ({
          ...s,
          hub: {
            mode: 'remote',
            remote_url: input.url,
            remote_hub_id: s.hub.remote_url === input.url ? s.hub.remote_hub_id : null,
            token_origin: secret.origin,
            token_cleared: secret.cleared(s.hub.token_cleared ?? null),
          },
        }));
      } else {
        update((s) => ({ ...s, hub: { ...s.hub, mode: 'local' } }));
      }
      return view();
    },
    async setModel(input: CallInput<'setModelSettings'>) {
      const secret = await keeper.followOrigin(
        KEYCHAIN_ACCOUNTS.modelApiKey,
        model.keyOrigin(),
        input.base_url,
        input.api_key,
        input.session_only,
      );
      update((s) => ({
        ...s,
        model: {
          base_url: input.base_url,
          model: input.model,
          provider: input.provider ?? 'custom',
          stream: input.stream ?? null,
          send_reasoning: input.send_reasoning ?? null,
          key_origin: secret.origin,
          key_cleared: secret.cleared(s.model.key_cleared ?? null),
        },
      }));
      return view();
    },
    async clearModelKey() {
      await kc.delete(KEYCHAIN_ACCOUNTS.modelApiKey);
      update((s) => ({ ...s, model: { ...s.model, key_origin: null, key_cleared: null } }));
      return view();
    },
    async testModel(input: CallInput<'testModelConnection'>): Promise<ConnectionTestView> {
      if (input.api_key) remember(input.api_key);
      const stored = input.api_key ? null : await model.key(input.base_url);
      const apiKey = input.api_key ?? stored;
      const result = await testModelConnection({
        baseUrl: input.base_url,
        model: input.model.trim() || null,
        apiKey,
        quirks: providerQuirks(input.provider),
        secrets: keeper.secrets(),
      });
      return {
        models: result.models,
        completion: result.completion,
        model_listed: result.modelListed,
        key_used: input.api_key ? 'entered' : stored ? 'stored' : 'none',
      };
    },
    async setPreferences(input) {
      update((s) => ({ ...s, ui: { lang: input.lang, theme: input.theme } }));
      return view();
    },
    async testHub(input) {
      if (input.token) remember(input.token);
      const stored =
        input.token || !secretFits(tokenOrigin(), input.url)
          ? null
          : remember(await kc.get(KEYCHAIN_ACCOUNTS.remoteHubClientToken).catch(() => null));
      const token = input.token ?? stored;
      return deps.testHubConnection({
        url: input.url,
        token,
        tokenUsed: input.token ? 'entered' : stored ? 'stored' : 'none',
      });
    },
    modelConfigured: () => Boolean(model.baseUrl() && model.model()),
    async remoteHubToken() {
      if (!secretFits(tokenOrigin(), current.hub.remote_url)) return null;
      return remember(await kc.get(KEYCHAIN_ACCOUNTS.remoteHubClientToken));
    },
    secrets: () => keeper.secrets(),
    async loadSecrets() {
      // Both are masked from the start, before any text or attachment is checked — the remote Hub
      // token also while the desk runs on its local Hub (the operator may paste it anywhere).
      await model.storedKey(model.baseUrl()).catch(() => null);
      remember(await kc.get(KEYCHAIN_ACCOUNTS.remoteHubClientToken).catch(() => null));
    },
    modelProvider: {
      async get(): Promise<ModelSettings> {
        const url = model.baseUrl();
        return {
          baseUrl: url ?? '',
          model: model.model() ?? '',
          apiKey: await model.key(url),
          provider: model.provider(),
          quirks: model.quirks(),
        };
      },
    },
  };
}
