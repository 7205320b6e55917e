// The operator CLI registers an MCP server (register-system --file) on the store directly: it
// connects once, compiles the tools, stores them, and stops the server it started.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AuthorizationListSchema, SystemSchema } from '../../../src-shared/hub-api.js';
import { openStoreFor, storeArgsFor } from '../store-mode.js';
import { readLedger, testServer } from './helpers.js';
import { hubCliArgv } from '../../support/hub-cli.js';

const root = resolve(import.meta.dirname, '../../..');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const cli = async (dataDir: string, args: string[]) =>
  spawnSync(process.execPath, [...hubCliArgv(), ...args, ...(await storeArgsFor(dataDir))], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('npm run hub -- register-system (MCP)', () => {
  it('registers an MCP server with its tools; a bad one is refused with its code', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mcp-cli-'));
    dirs.push(dataDir);
    const ledger = join(dataDir, 'ledger.jsonl');
    const file = join(dataDir, 'req.json');
    writeFileSync(
      file,
      JSON.stringify({ kind: 'mcp', system_id: 'notes', name: 'Notes', server: testServer(ledger) }),
    );
    const r = await cli(dataDir, ['register-system', '--file', file]);
    expect(r.status, r.stderr).toBe(0);
    const sys = SystemSchema.parse(JSON.parse(r.stdout));
    expect(sys).toMatchObject({ system_id: 'notes', kind: 'mcp' });
    expect(sys.tool_count).toBeGreaterThanOrEqual(6);
    // the CLI's one-off connection ended: the server it started is gone
    const started = readLedger(ledger).filter((e) => e.event === 'started');
    expect(started).toHaveLength(1);
    expect(() => process.kill(started[0]!.pid, 0)).toThrow();

    writeFileSync(
      file,
      JSON.stringify({
        kind: 'mcp',
        system_id: 'bad',
        name: 'Bad',
        server: testServer(ledger, { MODE: 'duplicate_name' }),
      }),
    );
    const bad = await cli(dataDir, ['register-system', '--file', file]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^mcp_tools_invalid: /);
  });

  it('retire-system retires it (idempotent, printed view with retired_at); an unknown id is system_not_found; list-systems and list-authorizations keep it, marked retired', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mcp-cli-'));
    dirs.push(dataDir);
    const file = join(dataDir, 'req.json');
    writeFileSync(
      file,
      JSON.stringify({
        kind: 'mcp',
        system_id: 'notes',
        name: 'Notes',
        server: testServer(join(dataDir, 'ledger.jsonl')),
      }),
    );
    expect((await cli(dataDir, ['register-system', '--file', file])).status).toBe(0);
    const store = await openStoreFor(dataDir);
    try {
      const at = new Date().toISOString();
      await store.createAuthorization(
        {
          authorization_ref: 'auth-notes',
          system_id: 'notes',
          account: 'notes',
          on_behalf_of: 'ops@example.com',
          state: 'active',
          revision: 1,
          created_at: at,
          updated_at: at,
        },
        { actor: 'test', kind: 'authorization.created', detail: {} },
      );
    } finally {
      await store.close();
    }
    const r = await cli(dataDir, ['retire-system', 'notes']);
    expect(r.status, r.stderr).toBe(0);
    const sys = SystemSchema.parse(JSON.parse(r.stdout));
    expect(sys.retired_at).not.toBeNull();
    const again = await cli(dataDir, ['retire-system', 'notes']);
    expect(SystemSchema.parse(JSON.parse(again.stdout)).retired_at).toBe(sys.retired_at);
    const missing = await cli(dataDir, ['retire-system', 'nope']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^system_not_found: /);
    // the operator's listings keep it, marked retired
    const listed = await cli(dataDir, ['list-systems']);
    expect(listed.status, listed.stderr).toBe(0);
    const systems = z.object({ systems: z.array(SystemSchema) }).parse(JSON.parse(listed.stdout)).systems;
    expect(systems.find((s) => s.system_id === 'notes')?.retired_at).toBe(sys.retired_at);
    const auths = await cli(dataDir, ['list-authorizations']);
    expect(auths.status, auths.stderr).toBe(0);
    const [auth] = AuthorizationListSchema.parse(JSON.parse(auths.stdout)).authorizations;
    expect(auth?.authorization_ref).toBe('auth-notes');
    expect(auth?.system_retired_at).toBe(sys.retired_at);
  });
});
