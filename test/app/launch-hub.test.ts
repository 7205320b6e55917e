// The launch-time remote Hub route (BAILING_HUB_URL + BAILING_HUB_TOKEN_FILE): headless launches
// reach a remote Hub without an OS keychain. The token file must be the owner's only; the token is
// read once into memory and is found nowhere afterwards: not in the data folder (settings, journal,
// archive), not in the keychain, not in anything sent to the renderer, not in the log.
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from '../../src-shared/ipc/contract.js';
import { composeDesk, type ComposedDesk } from '../../src-main/embedded/composition-root.js';
import { launchHubFromEnv, LaunchHubError } from '../../src-main/embedded/launch-hub.js';
import { createKeychain, KEYCHAIN_ACCOUNTS } from '../../src-main/keychain/index.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { waitFor } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'launch-hub-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tokenFile(name: string, content: string, mode = 0o600): string {
  const p = join(dir, name);
  writeFileSync(p, content, { mode });
  chmodSync(p, mode);
  return p;
}

const SECRET = 'bdc_ops.launch-token-0123456789abcdef';

describe('launchHubFromEnv', () => {
  it('is off when neither variable is set', () => {
    expect(launchHubFromEnv({})).toBeNull();
  });

  it('reads a 0600 token file once, trimmed', () => {
    const f = tokenFile('ok', `  ${SECRET}\n`);
    expect(launchHubFromEnv({ BAILING_HUB_URL: 'http://127.0.0.1:9/', BAILING_HUB_TOKEN_FILE: f })).toEqual({
      url: 'http://127.0.0.1:9',
      token: SECRET,
    });
  });

  const refused: Array<[string, () => NodeJS.ProcessEnv, RegExp]> = [
    ['URL without a token file', () => ({ BAILING_HUB_URL: 'http://127.0.0.1:9' }), /must be set together/],
    [
      'token file without a URL',
      () => ({ BAILING_HUB_TOKEN_FILE: tokenFile('lonely', SECRET) }),
      /must be set together/,
    ],
    [
      'a file others can read (0644)',
      () => ({
        BAILING_HUB_URL: 'http://127.0.0.1:9',
        BAILING_HUB_TOKEN_FILE: tokenFile('wide', SECRET, 0o644),
      }),
      /mode 0600.*0644/,
    ],
    [
      'a group-readable file (0640)',
      () => ({
        BAILING_HUB_URL: 'http://127.0.0.1:9',
        BAILING_HUB_TOKEN_FILE: tokenFile('group', SECRET, 0o640),
      }),
      /mode 0600/,
    ],
    [
      'an empty file',
      () => ({ BAILING_HUB_URL: 'http://127.0.0.1:9', BAILING_HUB_TOKEN_FILE: tokenFile('empty', ' \n') }),
      /empty/,
    ],
    [
      'two tokens',
      () => ({
        BAILING_HUB_URL: 'http://127.0.0.1:9',
        BAILING_HUB_TOKEN_FILE: tokenFile('two', `${SECRET}\n${SECRET}x`),
      }),
      /one token/,
    ],
    [
      'a file over 4 KiB',
      () => ({
        BAILING_HUB_URL: 'http://127.0.0.1:9',
        BAILING_HUB_TOKEN_FILE: tokenFile('big', 'x'.repeat(5000)),
      }),
      /larger than 4096/,
    ],
    [
      'a missing file',
      () => ({ BAILING_HUB_URL: 'http://127.0.0.1:9', BAILING_HUB_TOKEN_FILE: join(dir, 'nope') }),
      /cannot be opened \(ENOENT\)/,
    ],
    [
      'a directory',
      () => ({ BAILING_HUB_URL: 'http://127.0.0.1:9', BAILING_HUB_TOKEN_FILE: dir }),
      /not a regular file|cannot be opened/,
    ],
    [
      'a symlink to the token file',
      () => {
        const link = join(dir, `link-${Math.random().toString(36).slice(2)}`);
        symlinkSync(tokenFile('target', SECRET), link);
        return { BAILING_HUB_URL: 'http://127.0.0.1:9', BAILING_HUB_TOKEN_FILE: link };
      },
      /cannot be opened \(ELOOP\)/,
    ],
    [
      'a non-http URL',
      () => ({ BAILING_HUB_URL: 'file:///etc/passwd', BAILING_HUB_TOKEN_FILE: tokenFile('u1', SECRET) }),
      /http\(s\) URL/,
    ],
    [
      'credentials in the URL',
      () => ({
        BAILING_HUB_URL: 'http://user:pw@127.0.0.1:9',
        BAILING_HUB_TOKEN_FILE: tokenFile('u2', SECRET),
      }),
      /must not carry credentials/,
    ],
  ];
  for (const [what, env, why] of refused) {
    it(`refuses ${what}, without echoing the token`, () => {
      let err: unknown = null;
      try {
        launchHubFromEnv(env());
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(LaunchHubError);
      expect((err as Error).message).toMatch(why);
      expect((err as Error).message).not.toContain(SECRET);
    });
  }

  it('refuses a file owned by another user', () => {
    const f = tokenFile('owner', SECRET);
    const uid = statSync(f).uid;
    expect(() =>
      launchHubFromEnv(
        { BAILING_HUB_URL: 'http://127.0.0.1:9', BAILING_HUB_TOKEN_FILE: f },
        { uid: uid + 1 },
      ),
    ).toThrow(/owned by the user/);
  });
});

describe('composeDesk with the launch-time route', () => {
  let env: RuntimeTestEnv;
  let root: ComposedDesk;
  const logs: string[] = [];
  const events: unknown[] = [];
  const dataDir = join(dir, 'data');
  const ctx = { transport: 'browser' as const };
  const call = async <T>(name: string, input: unknown): Promise<T> => {
    const r = (await root.router.call(name, input, ctx)) as CallResult<never>;
    if (!r.ok) throw new Error(`${name}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(async () => {
    env = await startRuntimeTestEnv();
    const keychain = await createKeychain({
      loadBackend: async () => {
        throw new Error('no OS keychain on this launch');
      },
      sessionOnlyFallback: true,
    });
    root = await composeDesk({
      dataDir,
      version: '0.0.0-test',
      keychain,
      log: (m) => logs.push(m),
      reconnectDelayMs: 150,
      env: {
        BAILING_HUB_URL: env.proxy.url,
        BAILING_HUB_TOKEN_FILE: tokenFile('client-token', `${env.clientToken}\n`),
      },
    });
    root.bus.subscribe((name, payload) => events.push({ name, payload }));
    await waitFor(() => root.gateway.connection().state === 'connected', 10_000, 'Hub connection');
  }, 120_000);
  afterAll(async () => {
    await root?.close();
    await env?.close();
  }, 120_000);

  it('runs in remote mode against that Hub without a keychain entry, and the token is found nowhere', async () => {
    expect(root.local).toBeNull();
    const { authorizations } = await call<{ authorizations: Array<{ authorization_ref: string }> }>(
      'listAuthorizations',
      {},
    );
    expect(authorizations.map((a) => a.authorization_ref).sort()).toEqual(
      [AUTH.inventory, AUTH.shopA, AUTH.shopB].sort(),
    );
    const s = await call<{ session_id: string }>('createSession', {
      title: 'headless',
      authorization_refs: [AUTH.shopA],
      task_id: null,
    });
    const { tools } = await call<{ tools: Array<{ function_name: string; tool: string }> }>('searchTools', {
      session_id: s.session_id,
      query: 'get product',
    });
    const get = tools.find((t) => t.tool === 'get_product');
    expect(get).toBeDefined();
    const run = await call<{ item: { state: string } }>('runToolManually', {
      session_id: s.session_id,
      function_name: get!.function_name,
      arguments: { product_id: 7 },
    });
    expect(run.item.state).toBe('succeeded');

    const settings = await call<Record<string, unknown>>('getSettings', {});
    expect(JSON.stringify(settings)).not.toContain(env.clientToken);
    expect(await root.keychain.has(KEYCHAIN_ACCOUNTS.remoteHubClientToken)).toBe(false);
    expect(JSON.stringify(events)).not.toContain(env.clientToken);
    expect(logs.join('\n')).not.toContain(env.clientToken);
    expect(logs.join('\n')).toContain('Remote Hub for this launch');
    // Nothing under the data folder holds the token (settings, journal, archive, scopes).
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else files.push(join(d, e.name));
      }
    };
    walk(dataDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(f).includes(Buffer.from(env.clientToken)), f).toBe(false);
    // The saved Hub choice is unchanged by the launch-time route.
    const saved = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as {
      hub: { mode: string; remote_url: string | null };
    };
    expect(saved.hub.remote_url).toBeNull();
  }, 60_000);

  it('draws the task timeline without audit access: permits, dispatches, controls, refusals and outcomes', async () => {
    const task = await call<{ task_id: string }>('createTask', {
      title: 'Remote timeline',
      authorizations: [{ authorization_ref: AUTH.shopA, tools: ['update_product_content'] }],
      write_budget: 2,
      in_flight_limit: 1,
    });
    const s = await call<{ session_id: string }>('createSession', {
      title: 'under task',
      authorization_refs: [AUTH.shopA],
      task_id: task.task_id,
    });
    const { tools } = await call<{ tools: Array<{ function_name: string; tool: string }> }>('searchTools', {
      session_id: s.session_id,
      query: 'product content description',
    });
    const edit = tools.find((t) => t.tool === 'update_product_content');
    expect(edit).toBeDefined();
    const args = (description: string) => ({
      session_id: s.session_id,
      function_name: edit!.function_name,
      arguments: { product_id: 13, description },
    });
    await call('runToolManually', args('Remote edit'));
    await call('pauseTask', { task_id: task.task_id });
    await call('runToolManually', args('While paused'));
    // Receipts arrive on the live stream; wait until the refusal is there, then read the timeline.
    let entries: Array<{ kind: string; label: string }> = [];
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      ({ entries } = await call<{ entries: typeof entries }>('getTaskTimeline', { task_id: task.task_id }));
      if (entries.some((e) => e.kind === 'refusal')) break;
    }
    const kinds = entries.map((e) => `${e.kind}:${e.label}`);
    expect(kinds).toContain('control:Task created');
    expect(kinds).toContain('control:Task paused');
    expect(kinds).toContain('permit:Permit granted');
    expect(kinds).toContain('dispatch:Request sent');
    expect(kinds).toContain('outcome:Completed');
    expect(kinds).toContain('refusal:Not dispatched (task_paused)');
    expect(kinds.filter((k) => k.startsWith('permit:'))).toHaveLength(1); // the refused call got no permit
  }, 60_000);
});
