/**
 * An MCP server's secrets travel through the same credential column as an HTTP system's signing
 * secret (`systems.signing_secret`), so whatever protects that column protects them too. The
 * column holds this JSON text; nothing else reads it.
 */
import type { McpSecrets } from './types.js';

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
