/**
 * Which links the app may hand to the operating system's browser (`shell.openExternal`): only
 * `https:` addresses, without a user name or password, on a host of the allow-list (the model
 * providers' sites, exactly or as a subdomain). Anything else — `file:`, `smb:`, a custom scheme
 * that starts another program, plain http, an unknown host — is refused and never opened.
 */
import { MODEL_PROVIDER_PRESETS } from '../../src-shared/model-providers.js';

const providerSites = Object.values(MODEL_PROVIDER_PRESETS)
  .map((p) => (p.baseUrl?.startsWith('https://') ? new URL(p.baseUrl).hostname : null))
  .filter((h): h is string => h !== null)
  // api.openai.com → openai.com: a provider's documentation and console live beside its API
  .map((h) => h.split('.').slice(-2).join('.'));

export const EXTERNAL_LINK_HOSTS: readonly string[] = [...new Set(providerSites)].sort();

export function isExternalLinkAllowed(raw: string, allow: readonly string[] = EXTERNAL_LINK_HOSTS): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.port !== '')
    return false;
  const host = url.hostname.toLowerCase();
  return allow.some((h) => host === h || host.endsWith(`.${h}`));
}
