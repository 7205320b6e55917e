/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
/** MCP servers for the Hub's MCP tests: the reference servers from npm and our own test server, over stdio. */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import type { HubEnv } from '../helpers.js';

const require = createRequire(import.meta.url);
const root = resolve(import.meta.dirname, '../../..');

/** `@modelcontextprotocol/server-memory` over stdio, its graph in `file`. */
export function memoryServer(file: string) {
  return {
    transport: 'stdio' as const,
    command: process.execPath,
    args: [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')],
    env: { MEMORY_FILE_PATH: file },
  };
}

/** `@modelcontextprotocol/server-everything` over stdio. */
export function everythingServer() {
  return {
    transport: 'stdio' as const,
    command: process.execPath,
    args: [join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  };
}

/** Our own test server (fixtures/test-server.mjs); every call and effect goes to `ledger`. */
export function testServer(ledger: string, env: Record<string, string> = {}) {
  return {
    transport: 'stdio' as const,
    command: process.execPath,
    args: [join(import.meta.dirname, 'fixtures/test-server.mjs')],
    env: { LEDGER: ledger, ...env },
    cwd: root,
  };
}

export interface LedgerEntry {
  pid: number;
  event: 'started' | 'call' | 'effect' | 'cancelled' | 'tools_changed';
  tool?: string;
  key?: string | null;
  note?: string;
  active?: number;
}

export function readLedger(file: string): LedgerEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LedgerEntry);
}

/** Registers an MCP server through the admin API and grants it to the client `desk` as `auth-<id>`. */
export async function registerMcp(
  env: HubEnv,
  systemId: string,
  server: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<any> {
  const r = await env.admin('POST', '/admin/v1/systems', {
    kind: 'mcp',
    system_id: systemId,
    name: `MCP ${systemId}`,
    server,
    ...extra,
  });
  if (r.status !== 201) throw new Error(`register ${systemId}: ${r.status} ${r.text}`);
  const a = await env.admin('POST', '/admin/v1/authorizations', {
    system_id: systemId,
    account: `${systemId}-account`,
    on_behalf_of: 'operator@demo.local',
    authorization_ref: `auth-${systemId}`,
  });
  if (a.status !== 201) throw new Error(`authorization ${systemId}: ${a.status} ${a.text}`);
  const g = await env.admin('POST', `/admin/v1/authorizations/auth-${systemId}/grants`, {
    client_id: 'desk',
  });
  if (g.status !== 200) throw new Error(`grant ${systemId}: ${g.status} ${g.text}`);
  return r.body;
}

/** Waits until `check` holds (event-driven callers are better; this polls a file or a route). */
export async function until<T>(check: () => Promise<T | null> | T | null, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== null && v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
