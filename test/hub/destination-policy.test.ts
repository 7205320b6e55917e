/**
 * Where the Hub may send (docs/business-systems.md, "Where the Hub may send"): other schemes, plain
 * http off loopback without the admin's flag, link-local and metadata addresses are refused at
 * registration with worded codes (and nothing is registered or fetched); a host name is checked
 * on every address it resolves to; connection failures are worded without the port or address.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBaseUrl, guardedLookup } from '../../src-hub/dispatch/destination.js';
import { HUB_ERROR_CODES, SystemSchema } from '../../src-shared/hub-api.js';
import { enCodes } from '../../src-renderer/src/i18n/codes-en.js';
import { closedPort } from './dispatch/servers.js';
import { startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
beforeAll(async () => {
  env = await startEnv();
});
afterAll(() => env.close());

type ConfigSystem = HubEnv['config']['systems'][number];
const httpSystems = () =>
  env.config.systems.filter((s): s is Extract<ConfigSystem, { base_url: string }> => 'base_url' in s);

const register = (base_url: string, extra: Record<string, unknown> = {}) =>
  env.admin('POST', '/admin/v1/systems', {
    system_id: 'probe',
    name: 'Probe',
    base_url,
    signing_secret: 'probe-signing-secret-0001',
    ...extra,
  });

/** A non-loopback address of this machine (nothing of the test listens there), if it has one. */
const lanAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('registration refuses destinations with worded codes; nothing is registered or fetched', () => {
  const cases: Array<[string, string]> = [
    ['file:///etc/passwd', 'url_scheme_refused'],
    ['gopher://127.0.0.1:70/_x', 'url_scheme_refused'],
    ['javascript:alert(1)', 'url_scheme_refused'],
    ['ftp://127.0.0.1/', 'url_scheme_refused'],
    ['https://user:pass@erp.example.com/', 'url_scheme_refused'],
    ['http://erp.example.com/', 'insecure_http_refused'],
    ['http://192.0.2.10:8080/', 'insecure_http_refused'],
    ['http://169.254.169.254/', 'destination_refused'],
    ['https://169.254.169.254/latest/meta-data/', 'destination_refused'],
    ['http://[fe80::1]/', 'destination_refused'],
    ['http://[::ffff:169.254.169.254]/', 'destination_refused'],
    ['https://metadata.google.internal/', 'destination_refused'],
    ['http://0.0.0.0:8080/', 'destination_refused'],
  ];
  for (const [url, code] of cases)
    it(`${url} → 400 ${code}`, async () => {
      const r = await register(url, url.startsWith('http://192.0.2') ? {} : { allow_insecure_http: false });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: code, message: expect.stringContaining('nothing was registered') });
      expect((await env.admin('GET', '/admin/v1/systems/probe')).status).toBe(404);
    });

  it('an MCP server at a URL follows the same policy (its bearer token would travel)', async () => {
    for (const [url, code] of [
      ['http://169.254.169.254/mcp', 'destination_refused'],
      ['http://mcp.example.com/mcp', 'insecure_http_refused'],
      ['file:///tmp/mcp.sock', 'url_scheme_refused'],
    ] as const) {
      const r = await env.admin('POST', '/admin/v1/systems', {
        kind: 'mcp',
        system_id: 'probe-mcp',
        name: 'Probe MCP',
        server: { transport: 'streamable_http', url, bearer_token: 'probe-bearer-token-0001' },
      });
      expect({ url, status: r.status, error: r.body.error }).toEqual({ url, status: 400, error: code });
    }
    expect((await env.admin('GET', '/admin/v1/systems/probe-mcp')).status).toBe(404);
  });

  it('allow_insecure_http does not open link-local or metadata addresses', async () => {
    const r = await register('http://169.254.169.254/', { allow_insecure_http: true });
    expect(r.body.error).toBe('destination_refused');
  });

  it('every code is a Hub error code with words in the UI', () => {
    for (const code of ['url_scheme_refused', 'insecure_http_refused', 'destination_refused']) {
      expect(HUB_ERROR_CODES).toContain(code);
      expect(enCodes).toHaveProperty(`code.${code}`);
    }
  });

  it('a config file naming a refused destination stops the start, naming the entry', async () => {
    await expect(
      env.restart({
        config: {
          ...env.config,
          systems: [{ ...httpSystems()[0]!, base_url: 'http://169.254.169.254/' }],
        },
      }),
    ).rejects.toMatchObject({ code: 'destination_refused' });
    await env.restart();
  });
});

describe('plain http beyond loopback with the admin flag', () => {
  // needs an address of this machine beyond loopback to connect to (every networked machine has one)
  it.runIf(lanAddress)(
    `passes the policy, is shown with a warning in the system view, and a failed connection does not name the port${lanAddress ? '' : ' (skipped: this machine has no IPv4 address beyond loopback)'}`,
    async () => {
      const port = new URL(await closedPort()).port;
      const r = await register(`http://${lanAddress}:${port}/`, { allow_insecure_http: true });
      // the policy let it through: only the connection failed (nothing listens there)
      expect(r.status).toBe(502);
      expect(r.body.error).toBe('system_unreachable');
      expect(r.body.message).not.toContain(`:${port}`);
      expect(r.body.message).not.toMatch(/ECONNREFUSED|EHOSTUNREACH|connect /);
    },
  );

  it('a registered system with the flag carries the warning in every view', async () => {
    const shopB = httpSystems().find((s) => s.system_id === 'shop-b')!;
    const sys = await env.hub.store.getSystem('shop-b');
    await env.hub.store.upsertSystem(
      { ...sys!, base_url: shopB.base_url.replace('127.0.0.1', 'localhost.'), allow_insecure_http: true },
      new Date().toISOString(),
      { actor: 'test', kind: 'system.moved', detail: {} },
    );
    // loopback: no warning even with the flag
    const loop = SystemSchema.parse((await env.admin('GET', '/admin/v1/systems/shop-b')).body);
    expect(loop.warnings).toEqual([]);
    await env.hub.store.upsertSystem(
      { ...sys!, base_url: 'http://192.0.2.10:8080', allow_insecure_http: true },
      new Date().toISOString(),
      { actor: 'test', kind: 'system.moved', detail: {} },
    );
    const one = SystemSchema.parse((await env.admin('GET', '/admin/v1/systems/shop-b')).body);
    expect(one.warnings).toEqual([expect.stringContaining('allow_insecure_http')]);
    const list = (await env.admin('GET', '/admin/v1/systems')).body as { systems: unknown[] };
    const inList = list.systems.map((s) => SystemSchema.parse(s)).find((s) => s.system_id === 'shop-b');
    expect(inList?.warnings).toEqual(one.warnings);
    await env.hub.store.upsertSystem({ ...sys! }, new Date().toISOString(), {
      actor: 'test',
      kind: 'system.moved',
      detail: {},
    });
  });
});

describe('connection failures are worded alike whatever the port', () => {
  it('two closed ports give the same registration message', async () => {
    const a = await register(await closedPort());
    const b = await register(await closedPort());
    expect(a.body.error).toBe('system_unreachable');
    expect(a.body.message).toBe(b.body.message);
  });
});

describe('the URL check and the resolver guard', () => {
  it('loopback names and addresses may use plain http', () => {
    for (const u of [
      'http://127.0.0.1:1/',
      'http://localhost:8080/',
      'http://[::1]:80/',
      'http://app.localhost/',
    ])
      expect(checkBaseUrl(u, false)).toBeNull();
    expect(checkBaseUrl('https://erp.example.com/openapi', false)).toBeNull();
  });

  it('the answer for a URL is remembered per allow_insecure_http, never across it', () => {
    const url = 'http://erp.example.com/openapi';
    for (let round = 0; round < 2; round++) {
      expect(checkBaseUrl(url, false)?.code).toBe('insecure_http_refused');
      expect(checkBaseUrl(url, true)).toBeNull();
      expect(checkBaseUrl('http://169.254.169.254/', true)?.code).toBe('destination_refused');
      expect(checkBaseUrl('ftp://erp.example.com/', true)?.code).toBe('url_scheme_refused');
    }
  });

  const resolve = (host: string, loopbackOnly: boolean) =>
    new Promise<{ code: string | null; address: unknown }>((res) =>
      guardedLookup({ loopbackOnly })(host, {}, (err, address) =>
        res({ code: err ? (err.code ?? 'error') : null, address }),
      ),
    );

  it('a name resolving to loopback passes for plain http; an address beyond loopback does not', async () => {
    expect((await resolve('localhost', true)).code).toBeNull();
    expect((await resolve('192.0.2.10', true)).code).toBe('EDESTINATIONREFUSED');
  });

  it('an address in a refused range is refused even when it is given literally to the resolver', async () => {
    expect((await resolve('169.254.169.254', false)).code).toBe('EDESTINATIONREFUSED');
    expect((await resolve('::ffff:169.254.169.254', false)).code).toBe('EDESTINATIONREFUSED');
  });
});
