// The Hub's config file: validated (unknown keys refused), applied idempotently at every start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoSystems } from '../../demo/index.js';
import { loadConfigFile } from '../../src-hub/config.js';
import { createHub } from '../../src-hub/index.js';
import { demoConfig, http, token } from './helpers.js';
import { storeFor } from './store-mode.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'hub-config-'));
  dirs.push(d);
  return d;
};

describe('config file', () => {
  it('the example in docs/hub-api.md is a valid config (every key it shows exists)', () => {
    const docs = readFileSync(join(import.meta.dirname, '../../docs/hub-api.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Config file'));
    const example = /```json\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(example).toBeDefined();
    const d = tmp();
    const p = join(d, 'example.json');
    // the example names the token's secret by a placeholder; a real one stands in for it
    writeFileSync(p, example!.replace('<16+ url-safe chars>', 'a'.repeat(24)));
    const config = loadConfigFile(p);
    expect(config.rate_limits?.agent).toEqual({ per_second: 100, burst: 200 });
    expect(config.sse_max_streams_per_client).toBe(16);
  });

  it('refuses unknown keys, malformed JSON and tokens that do not name their client', () => {
    const d = tmp();
    const write = (name: string, text: string) => {
      const p = join(d, name);
      writeFileSync(p, text);
      return p;
    };
    expect(() => loadConfigFile(write('a.json', '{"systemz": []}'))).toThrow(/invalid Hub config .*systemz/);
    expect(() => loadConfigFile(write('b.json', '{'))).toThrow(/cannot read Hub config/);
    expect(() =>
      loadConfigFile(
        write(
          'c.json',
          JSON.stringify({ clients: [{ client_id: 'desk', name: 'd', token: token('other') }] }),
        ),
      ),
    ).toThrow(/token must be/);
    expect(() => loadConfigFile(write('d.json', JSON.stringify({ admin_token: 'short' })))).toThrow(
      /admin_token/,
    );
    expect(loadConfigFile(write('e.json', '{}'))).toEqual({ systems: [], clients: [], authorizations: [] });
  });

  it('applies idempotently across restarts and makes a fresh Hub ready to use', async () => {
    const demo = await startDemoSystems();
    try {
      const dataDir = tmp();
      const desk = token('desk');
      const config = {
        ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
        admin_token: 'admin-token-0123456789',
      };
      for (let i = 0; i < 2; i++) {
        const hub = await createHub({ ...(await storeFor(dataDir)), config });
        const auths = await http(hub.url, 'GET', '/agent/v1/authorizations', { token: desk });
        expect(
          auths.body.authorizations.map((a: { authorization_ref: string }) => a.authorization_ref),
        ).toEqual(['auth-inventory', 'auth-shop-a', 'auth-shop-b']);
        const systems = await http(hub.url, 'GET', '/admin/v1/systems', { token: config.admin_token });
        expect(systems.body.systems.map((s: { tool_count: number }) => s.tool_count)).toEqual([3, 5, 5]);
        const clients = await http(hub.url, 'GET', '/admin/v1/clients', { token: config.admin_token });
        expect(clients.body.clients).toHaveLength(1);
        await hub.close();
      }
    } finally {
      await demo.close();
    }
  });
});
