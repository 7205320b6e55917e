/**
 * An MCP server's secrets travel through the same credential column as an HTTP system's signing
 * secret (`systems.signing_secret`), sealed the same way under the Hub's secret key
 * (src-hub/secrets; docs/operations.md). The sealed text is this JSON; nothing else reads it.
 */
import { SECRET_CONTEXTS, type SecretBox } from '../secrets/index.js';
import type { McpSecrets } from './types.js';

/** The column's value for a server's secrets: sealed where they are kept. */
export const sealMcpSecrets = (box: SecretBox, systemId: string, secrets: McpSecrets): string =>
  box.seal(SECRET_CONTEXTS.systemSigningSecret(systemId), encodeMcpSecrets(secrets));

/** A server's secrets from the column; none when the Hub's key cannot open them (its connection then fails). */
export function openMcpSecrets(box: SecretBox, systemId: string, credential: string): McpSecrets {
  try {
    return decodeMcpSecrets(box.open(SECRET_CONTEXTS.systemSigningSecret(systemId), credential));
  } catch {
    return { env: {}, bearer_token: null };
  }
}

export function encodeMcpSecrets(secrets: McpSecrets): string {
  return JSON.stringify({ env: secrets.env, bearer_token: secrets.bearer_token });
}

export function decodeMcpSecrets(credential: string): McpSecrets {
  try {
    const v = JSON.parse(credential) as Partial<McpSecrets> | null;
    const env: Record<string, string> = {};
    for (const [k, val] of Object.entries(v?.env ?? {})) if (typeof val === 'string') env[k] = val;
    return { env, bearer_token: typeof v?.bearer_token === 'string' ? v.bearer_token : null };
  } catch {
    return { env: {}, bearer_token: null };
  }
}
