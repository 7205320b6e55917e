/**
 * Secrets at rest in the Hub: business systems' signing secrets are sealed in the store under a key
 * that is never in it; every file the Hub makes is owner-only and an older, wider data directory is
 * tightened with a logged notice; a wrong key refuses to start; the operator rotates the key (also
 * across a crash in the middle); values an older Hub stored in clear are sealed at start.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createHub } from '../../src-hub/index.js';
import {
  parseSecretKey,
  prepareStoreSecrets,
  resolveSecretKey,
  SECRET_CONTEXTS,
  SecretKeyMismatchError,
  SecretKeyMissingError,
} from '../../src-hub/secrets/index.js';
import { writeKeyFile } from '../../src-hub/secrets/key-file.js';
import {
  generateSecretKey,
  openSecret,
  sealSecret,
  secretBox,
  secretKeyText,
} from '../../src-hub/secrets/sealed.js';
import { resealUnderNewKey } from '../../src-hub/secrets/store-secrets.js';
import { openStore } from '../../src-hub/store/open-store.js';
import { secretsInFiles, wideModes } from '../support/data-scan.js';
import { startEnv, type HubEnv } from './helpers.js';
import { storeFor, storeMode } from './store-mode.js';
import { hubCliArgv } from '../support/hub-cli.js';

const root = resolve(import.meta.dirname, '../..');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function logSink() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n'))
        if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function env(extra: Parameters<typeof startEnv>[0] = {}): Promise<HubEnv> {
  const e = await startEnv(extra);
  cleanups.push(() => e.close());
  return e;
}

const demoSecrets = (e: HubEnv) => ({
  shopA: e.demo.shopA.secret,
  shopB: e.demo.shopB.secret,
  inventory: e.demo.inventory.secret,
});

/** The test's store itself (SQLite file or PostgreSQL database), as an older Hub or a crash left it. */
async function storeOf(dataDir: string) {
  const s = await storeFor(dataDir);
  return openStore(s.storeUrl ? { url: s.storeUrl } : { dataDir });
}

async function readProduct(e: HubEnv): Promise<string> {
  const r = await e.invoke({ authRef: 'auth-shop-a', tool: 'get_product', args: { product_id: 42 } });
  return String(r.body.state);
}

/**
 * Tests of a SQLite data directory (its files' modes, the key file beside the store) exist only in
 * the SQLite project: a PostgreSQL Hub has no data directory, so there is nothing to run, not
 * something skipped.
 */
function itOnSqlite(name: string, fn: () => Promise<void>): void {
  if (storeMode === 'sqlite') it(name, fn);
}

describe('sealed values', () => {
  it('a box remembers what it opened, and a value it cannot open is refused every time', () => {
    const key = generateSecretKey();
    const box = secretBox(key);
    const where = SECRET_CONTEXTS.systemSigningSecret('shop-a');
    const first = box.seal(where, 'secret-one-0001');
    const second = box.seal(where, 'secret-two-0002');
    for (let round = 0; round < 2; round++) {
      expect(box.open(where, first)).toBe('secret-one-0001');
      expect(box.open(where, second)).toBe('secret-two-0002');
      // the same sealed value kept elsewhere does not open (its context is authenticated)
      expect(() => box.open(SECRET_CONTEXTS.systemSigningSecret('shop-b'), first)).toThrow(
        expect.objectContaining({ reason: 'damaged' }),
      );
      expect(() => secretBox(generateSecretKey()).open(where, first)).toThrow(
        expect.objectContaining({ reason: 'other_key' }),
      );
    }
  });

  it('open only with their key and only where they were sealed', () => {
    const key = generateSecretKey();
    const sealed = sealSecret(key, SECRET_CONTEXTS.systemSigningSecret('shop-a'), 'the-signing-secret-0001');
    expect(sealed).not.toContain('the-signing-secret');
    expect(openSecret(key, SECRET_CONTEXTS.systemSigningSecret('shop-a'), sealed)).toBe(
      'the-signing-secret-0001',
    );
    expect(() => openSecret(key, SECRET_CONTEXTS.systemSigningSecret('shop-b'), sealed)).toThrow(/damaged/);
    expect(() =>
      openSecret(generateSecretKey(), SECRET_CONTEXTS.systemSigningSecret('shop-a'), sealed),
    ).toThrow(/another secret key/);
    const parts = sealed.split(':');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => openSecret(key, SECRET_CONTEXTS.systemSigningSecret('shop-a'), parts.join(':'))).toThrow(
      /damaged/,
    );
    expect(parseSecretKey(secretKeyText(key), 'k').id).toBe(key.id);
    expect(() => parseSecretKey('short', 'BAILING_HUB_SECRET_KEY')).toThrow(
      /BAILING_HUB_SECRET_KEY must hold/,
    );
  });

  it('a Hub on PostgreSQL has no default key: it says where to put one', () => {
    expect(() => resolveSecretKey({ env: {} })).toThrow(SecretKeyMissingError);
    expect(() => resolveSecretKey({ env: {} })).toThrow(/BAILING_HUB_SECRET_KEY/);
  });

  it('a key file readable by others is refused, naming the file and never its content', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-key-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'key');
    const key = generateSecretKey();
    writeFileSync(file, secretKeyText(key), { mode: 0o644 });
    chmodSync(file, 0o644);
    const err = (() => {
      try {
        resolveSecretKey({ file, env: {} });
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(err?.message).toMatch(/owner only.*0644/);
    expect(err?.message).not.toContain(secretKeyText(key));
  });
});

describe('secrets at rest in the store', () => {
  it('no file of the data directory holds a signing secret or token in clear; every file 0600, every directory 0700; calls still sign', async () => {
    const e = await env();
    expect(await readProduct(e)).toBe('succeeded');
    const rows = e.sql<{ system_id: string; signing_secret: string }>(
      'SELECT system_id, signing_secret FROM systems',
    );
    expect(rows.length).toBe(3);
    for (const r of rows) expect(r.signing_secret).toMatch(/^bsk1:[0-9a-f]{16}:/);
    if (storeMode === 'sqlite') {
      expect(existsSync(join(e.dataDir, 'hub-secret.key'))).toBe(true);
      expect(existsSync(join(e.dataDir, 'hub.sqlite-wal'))).toBe(true);
      expect(
        secretsInFiles([e.dataDir], { ...demoSecrets(e), desk: e.desk, other: e.other, admin: e.adminToken }),
      ).toEqual([]);
      expect(wideModes([e.dataDir])).toEqual([]);
    }
  });

  itOnSqlite(
    'an existing data directory with wider modes is tightened, and each change is logged',
    async () => {
      const first = await env();
      const dataDir = first.dataDir;
      await first.hub.close();
      chmodSync(dataDir, 0o755);
      chmodSync(join(dataDir, 'hub.sqlite'), 0o644);
      mkdirSync(join(dataDir, 'notes'), { mode: 0o755 });
      writeFileSync(join(dataDir, 'notes', 'readme.txt'), 'x');
      chmodSync(join(dataDir, 'notes', 'readme.txt'), 0o664);
      chmodSync(join(dataDir, 'notes'), 0o755);
      const { logger, lines } = logSink();
      await first.restart({ logger });
      const tightened = lines
        .filter((l) => l.msg === 'tightened to owner-only (0700 directories, 0600 files)')
        .map((l) => [String(l.path).slice(dataDir.length), l.mode]);
      expect(tightened).toEqual(
        expect.arrayContaining([
          ['', '0755'],
          ['/hub.sqlite', '0644'],
          ['/notes', '0755'],
          ['/notes/readme.txt', '0664'],
        ]),
      );
      expect(wideModes([dataDir])).toEqual([]);
      expect(await readProduct(first)).toBe('succeeded');
    },
  );

  it('a wrong key refuses to start and names where the key comes from, never a key', async () => {
    const e = await env();
    await e.hub.close();
    const wrong = secretKeyText(generateSecretKey());
    const err = await e.restart({ secretKey: wrong }).then(
      () => null,
      (x: unknown) => x as Error,
    );
    expect(err).toBeInstanceOf(SecretKeyMismatchError);
    expect(err?.message).toMatch(/does not open this store's secrets.*BAILING_HUB_SECRET_KEY/);
    expect(err?.message).not.toContain(wrong);
    // the right key still opens it
    await e.restart();
    expect(await readProduct(e)).toBe('succeeded');
  });

  it("the desk's local Hub may drop what a lost key sealed: calls to that system are not sent, with their code, until it is registered again", async () => {
    const e = await env();
    await e.hub.close();
    const { logger, lines } = logSink();
    // no config: nothing registers the systems again at this start
    e.hub = await createHub({
      ...(await storeFor(e.dataDir)),
      adminToken: e.adminToken,
      config: { ...e.config, systems: [] },
      secretKey: secretKeyText(generateSecretKey()),
      onSecretKeyMismatch: 'drop_unreadable',
      logger,
    });
    expect(lines.some((l) => String(l.msg).includes('were dropped'))).toBe(true);
    const before = e.demo.shopA.requests().length;
    const r = await e.invoke({ authRef: 'auth-shop-a', tool: 'get_product', args: { product_id: 42 } });
    expect(r.body).toMatchObject({
      state: 'not_dispatched',
      reason_code: 'not_sent_credentials_unavailable',
    });
    expect(e.demo.shopA.requests().length).toBe(before);
    const refresh = await e.admin('POST', '/admin/v1/systems/shop-a/refresh');
    expect(refresh.body).toMatchObject({ error: 'system_unreachable' });
    const again = await e.admin('POST', '/admin/v1/systems', e.config.systems[0]);
    expect(again.status).toBe(201);
    expect(await readProduct(e)).toBe('succeeded');
  });

  it('signing secrets an older Hub stored in clear are sealed at start, with a notice', async () => {
    const e = await env();
    await e.hub.close();
    const store = await storeOf(e.dataDir);
    await store.resealSecrets(
      [{ system_id: 'shop-a', signing_secret: e.demo.shopA.secret }],
      {},
      { actor: 'test', kind: 'test.clear_secret', detail: {} },
    );
    await store.close();
    const { logger, lines } = logSink();
    await e.restart({ logger, config: { ...e.config, systems: [] } });
    expect(lines.some((l) => l.sealed === 1)).toBe(true);
    const row = e.sql<{ signing_secret: string }>(
      "SELECT signing_secret FROM systems WHERE system_id = 'shop-a'",
    );
    expect(row[0]?.signing_secret).toMatch(/^bsk1:/);
    expect(await readProduct(e)).toBe('succeeded');
  });
});

describe('rotating the secret key', () => {
  itOnSqlite(
    'the operator command re-seals every secret under a new key file; refused while the Hub runs',
    async () => {
      const e = await env();
      const keyFile = join(e.dataDir, 'hub-secret.key');
      const oldKey = readFileSync(keyFile, 'utf8');
      const cli = (args: string[]) =>
        spawnSync(process.execPath, [...hubCliArgv(), ...args], {
          cwd: root,
          encoding: 'utf8',
          env: { ...process.env, BAILING_HUB_SECRET_KEY: '' },
        });
      const running = cli(['rotate-secret-key', '--data', e.dataDir]);
      expect(running.status).not.toBe(0);
      expect(running.stderr).toMatch(/another Hub .* serves/);
      await e.hub.close();
      const done = cli(['rotate-secret-key', '--data', e.dataDir]);
      expect(done.status, done.stderr).toBe(0);
      const out = JSON.parse(done.stdout) as { resealed: number; old_key_id: string; new_key_id: string };
      expect(out.resealed).toBe(3);
      expect(out.new_key_id).not.toBe(out.old_key_id);
      const newKey = readFileSync(keyFile, 'utf8');
      expect(newKey).not.toBe(oldKey);
      expect(done.stdout + done.stderr).not.toContain(newKey.trim());
      expect(existsSync(`${keyFile}.next`)).toBe(false);
      expect(wideModes([e.dataDir])).toEqual([]);
      await e.restart({ config: { ...e.config, systems: [] } });
      expect(await readProduct(e)).toBe('succeeded');
      // the old key no longer opens the store
      await e.hub.close();
      await expect(e.restart({ secretKey: oldKey.trim() })).rejects.toBeInstanceOf(SecretKeyMismatchError);
    },
  );

  itOnSqlite(
    'a rotation that stopped after changing the store is finished at the next start (the new key file takes over)',
    async () => {
      const e = await env();
      await e.hub.close();
      const keyFile = join(e.dataDir, 'hub-secret.key');
      const current = resolveSecretKey({ dataDir: e.dataDir, env: {} });
      const next = generateSecretKey();
      writeKeyFile(`${keyFile}.next`, next);
      const store = await storeOf(e.dataDir);
      await resealUnderNewKey(store, current.key, next, 'test');
      await store.close();
      // the crash: the key file still holds the old key
      const { logger, lines } = logSink();
      await e.restart({ logger, config: { ...e.config, systems: [] } });
      expect(lines.some((l) => String(l.msg).includes('the new key file is now in place'))).toBe(true);
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(secretKeyText(next));
      expect(existsSync(`${keyFile}.next`)).toBe(false);
      expect(await readProduct(e)).toBe('succeeded');
    },
  );

  it('a key from the environment rotates into a new key file (every instance then needs it)', async () => {
    const e = await env();
    await e.hub.close();
    const dir = mkdtempSync(join(tmpdir(), 'hub-newkey-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { rotateSecretKey } = await import('../../src-hub/secrets/rotate.js');
    const store = await storeOf(e.dataDir);
    const current = resolveSecretKey({
      dataDir: storeMode === 'sqlite' ? e.dataDir : undefined,
    });
    const result = await rotateSecretKey({
      store,
      current,
      newKeyFile: join(dir, 'new.key'),
      actor: 'test',
    });
    await store.close();
    expect(result.resealed).toBe(3);
    expect(wideModes([dir])).toEqual([]);
    await e.restart({
      secretKeyFile: join(dir, 'new.key'),
      secretKey: undefined,
      config: { ...e.config, systems: [] },
    });
    expect(await readProduct(e)).toBe('succeeded');
    // prepareStoreSecrets with the old key refuses
    const again = await storeOf(e.dataDir);
    cleanups.push(() => again.close());
    await expect(
      prepareStoreSecrets(again, current, { onMismatch: 'refuse', logger: pino({ level: 'silent' }) }),
    ).rejects.toBeInstanceOf(SecretKeyMismatchError);
  });
});
