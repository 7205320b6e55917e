/**
 * The desk's data folder is its owner's only: every file 0600 and every directory 0700 after a
 * start (SQLite files with their WAL and SHM included), an older, wider folder tightened with a
 * notice per change, and no token or signing secret in clear in any file — also across a restart
 * with a session-only keychain, whose new Hub key drops what the old one sealed and registers the
 * demo systems again.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeDesk, type ComposedDesk } from '../../src-main/embedded/composition-root.js';
import { createKeychain } from '../../src-main/keychain/index.js';
import { http } from '../hub/helpers.js';
import { secretsInFiles, wideModes } from '../support/data-scan.js';

const dir = mkdtempSync(join(tmpdir(), 'bailing-private-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function start(log: string[]): Promise<ComposedDesk> {
  const keychain = await createKeychain({
    loadBackend: async () => {
      throw new Error('keytar not used in this test');
    },
    sessionOnlyFallback: true,
  });
  return composeDesk({ dataDir, version: '0.0.0-test', keychain, env: {}, log: (m) => log.push(m) });
}

async function readProduct(desk: ComposedDesk): Promise<unknown> {
  const local = desk.local!;
  const call = (method: string, path: string, body?: unknown) =>
    http(local.url, method, path, { token: local.clientToken, body });
  const found = await call('POST', '/agent/v1/tools/search', {
    query: 'get_product',
    authorization_refs: ['auth-shop-a'],
  });
  const decl = (found.body.declarations as Array<{ tool: string; declaration_revision: string }>).find(
    (d) => d.tool === 'get_product',
  )!;
  const run = await call('POST', '/agent/v1/runs', {
    agent_session_id: 'sess-private',
    turn_id: `turn-${Date.now()}`,
    authorization_ref: 'auth-shop-a',
  });
  const r = await call('POST', '/agent/v1/invocations', {
    invocation_id: `inv_private_${Date.now()}`,
    run_id: run.body.run_id,
    authorization_ref: 'auth-shop-a',
    tool: 'get_product',
    declaration_revision: decl.declaration_revision,
    arguments: { product_id: 42 },
    host_call_id: 'call-private',
  });
  return r.body.state;
}

describe('the data folder', () => {
  it('an older, wider folder is tightened with a notice; afterwards nothing is wider than 0600/0700 and nothing secret is in clear', async () => {
    mkdirSync(join(dataDir, 'hub'), { recursive: true });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'hub'), 0o755);
    writeFileSync(join(dataDir, 'notes.txt'), 'kept');
    chmodSync(join(dataDir, 'notes.txt'), 0o644);
    const log: string[] = [];
    const desk = await start(log);
    try {
      expect(log).toEqual(
        expect.arrayContaining([
          `Tightened directory ${dataDir} from 0755 to owner-only (0700).`,
          `Tightened directory ${join(dataDir, 'hub')} from 0755 to owner-only (0700).`,
          `Tightened file ${join(dataDir, 'notes.txt')} from 0644 to owner-only (0600).`,
        ]),
      );
      expect(await readProduct(desk)).toBe('succeeded');
      const local = desk.local!;
      const secrets = {
        clientToken: local.clientToken,
        adminToken: local.adminToken,
        ...Object.fromEntries(local.demo.all().map((s) => [`signing:${s.systemId}`, s.secret])),
      };
      expect(secretsInFiles([dataDir], secrets)).toEqual([]);
      expect(wideModes([dataDir])).toEqual([]);
    } finally {
      await desk.close();
    }
  });

  it('a restart with a new session-only key drops what the old key sealed and registers the demo systems again', async () => {
    const log: string[] = [];
    const desk = await start(log);
    try {
      expect(await readProduct(desk)).toBe('succeeded');
      expect(wideModes([dataDir])).toEqual([]);
    } finally {
      await desk.close();
    }
  });
});
