// Shared set-up for the app tests: a real desk (embedded local Hub, demo systems, runtime on SQLite
// files) in a temp data folder, with a session-only keychain so the OS keyring is not touched.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { composeDesk, type ComposedDesk } from '../../src-main/embedded/composition-root.js';
import { createKeychain, type Keychain } from '../../src-main/keychain/index.js';

export interface TestDesk {
  root: ComposedDesk;
  /** The desk's (session-only) keychain: its tokens and its Hub's secret key. */
  keychain: Keychain;
  dir: string;
  staticDir: string;
  cleanup(): Promise<void>;
}

async function composeTestDesk(dir: string, env: NodeJS.ProcessEnv) {
  const keychain = await createKeychain({
    loadBackend: async () => {
      throw new Error('keytar not used in this test');
    },
    sessionOnlyFallback: true,
  });
  const root = await composeDesk({
    dataDir: join(dir, 'data'),
    version: '0.0.0-test',
    keychain,
    env,
    reconnectDelayMs: 150,
  });
  return { root, keychain };
}

export async function startTestDesk(opts: { env?: NodeJS.ProcessEnv } = {}): Promise<TestDesk> {
  const dir = mkdtempSync(join(tmpdir(), 'bailing-app-'));
  const { root, keychain } = await composeTestDesk(dir, opts.env ?? {});
  const staticDir = join(dir, 'static');
  mkdirSync(staticDir, { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>test</title>');
  return {
    root,
    keychain,
    dir,
    staticDir,
    async cleanup() {
      await root.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function waitFor<T>(
  fn: () => T | undefined | null | false,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Starts a desk before the file's tests (its Hub connected) and closes it after them. */
export function withTestDesk(): { readonly desk: TestDesk } {
  const held = {} as { desk: TestDesk };
  beforeAll(async () => {
    held.desk = await startTestDesk();
    await hubConnected(held.desk);
  }, 120_000);
  afterAll(async () => {
    await held.desk?.cleanup();
  }, 120_000);
  return held;
}

/** Closes the desk and starts it again on the same data folder (its cleanup closes the new one). */
export async function restartTestDesk(desk: TestDesk, opts: { env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  await desk.root.close();
  const { root, keychain } = await composeTestDesk(desk.dir, opts.env ?? {});
  desk.root = root;
  desk.keychain = keychain;
}

/** Resolves once the desk's Hub event stream is connected (calls to the Hub then answer). */
export function hubConnected(desk: TestDesk): Promise<true> {
  return waitFor(() => desk.root.gateway.connection().state === 'connected', 10_000, 'Hub connection');
}
