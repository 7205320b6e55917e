// The Hub's config file: validated (unknown keys refused), applied idempotently at every start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoSystems } from '../../demo/index.js';
import { loadConfigFile } from '../../src-hub/config.js';
import { createHub } from '../../src-hub/index.js';
import { demoConfig, http, token } from './helpers.js';
import { rawExchange } from './raw-http.js';
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

  it('sets the request and header timeouts: a stalled client gets 408 at the configured time, not the default', async () => {
    const p = join(tmp(), 'timeouts.json');
    const admin = 'admin-token-0123456789';
    writeFileSync(
      p,
      JSON.stringify({ admin_token: admin, request_timeout_ms: 2_000, headers_timeout_ms: 1_000 }),
    );
    const config = loadConfigFile(p);
    writeFileSync(p, JSON.stringify({ request_timeout_ms: 10 }));
    expect(() => loadConfigFile(p)).toThrow(/request_timeout_ms/);
    const hub = await createHub({ ...(await storeFor(tmp())), config });
    try {
      // well before the defaults (20 s headers, 30 s request) could answer
      const headers = await rawExchange(hub.url, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', '', 8_000);
      expect([headers.status, JSON.parse(headers.body).error]).toEqual([408, 'request_timeout']);
      const body = await rawExchange(
        hub.url,
        `POST /admin/v1/clients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${admin}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n`,
        '{"a',
        8_000,
      );
      expect([body.status, JSON.parse(body.body).error]).toEqual([408, 'request_timeout']);
    } finally {
      await hub.close();
    }
  });
});
