/**
 * The model as configured: the saved choice, else the environment's (e.g. tests pointing at a
 * model server). The key used is the stored one when it was saved for this base URL's origin,
 * else the environment's when that was given for this origin (./secret-origin.ts).
 */
import {
  MODEL_PROVIDER_PRESETS,
  originOf,
  providerQuirks,
  type ModelProviderId,
} from '../../src-shared/model-providers.js';
import { KEYCHAIN_ACCOUNTS, type Keychain } from '../keychain/index.js';
import type { SettingsView } from '../../src-shared/ipc/views.js';
import type { SettingsFile } from './file.js';
import type { SecretKeeper } from './secret-keeper.js';
import { secretFits } from './secret-origin.js';

export interface EnvModel {
  baseUrl: string | null;
  model: string | null;
  apiKey: string | null;
  /** A provider preset id (BAILING_MODEL_PROVIDER); unknown ids are ignored. */
  provider?: string | null;
}

const isProvider = (p: string | null | undefined): p is ModelProviderId =>
  typeof p === 'string' && p in MODEL_PROVIDER_PRESETS;

export function createModelChoice(deps: {
  saved: () => SettingsFile['model'];
  env: EnvModel;
  keychain: Keychain;
  keeper: SecretKeeper;
}) {
  const { saved, env, keychain: kc, keeper } = deps;
  const baseUrl = () => saved().base_url ?? env.baseUrl;
  const provider = (): ModelProviderId =>
    saved().base_url ? (saved().provider ?? 'custom') : isProvider(env.provider) ? env.provider : 'custom';
  const quirks = () =>
    providerQuirks(provider(), { stream: saved().stream, reasoningSendBack: saved().send_reasoning });
  /** The origin the stored key belongs to (older files: the base URL it was saved with). */
  const keyOrigin = () => saved().key_origin ?? originOf(saved().base_url);
  const storedKey = async (url: string | null): Promise<string | null> => {
    if (!secretFits(keyOrigin(), url)) return null;
    return keeper.remember(await kc.get(KEYCHAIN_ACCOUNTS.modelApiKey));
  };
  const envKey = (url: string | null) =>
    env.apiKey && secretFits(originOf(env.baseUrl), url) ? env.apiKey : null;
  const model = () => saved().model ?? env.model;
  return {
    baseUrl,
    provider,
    quirks,
    keyOrigin,
    storedKey,
    envKey,
    model,
    /** The key for a base URL: the stored one for its origin, else the environment's. */
    key: async (url: string | null) => (await storedKey(url)) ?? envKey(url),
    /** Settings' model section: never the key, only whether one is configured for this base URL. */
    async view(): Promise<SettingsView['model']> {
      const url = baseUrl();
      const q = quirks();
      return {
        provider: provider(),
        base_url: url,
        model: model(),
        key_configured:
          (secretFits(keyOrigin(), url) && (await kc.has(KEYCHAIN_ACCOUNTS.modelApiKey))) ||
          envKey(url) !== null,
        key_cleared: saved().key_cleared ?? null,
        stream: q.stream,
        send_reasoning: q.reasoningSendBack,
      };
    },
  };
}
export type ModelChoice = ReturnType<typeof createModelChoice>;
