/**
 * The browser host as the acceptance harness starts it: the app's own composition root
 * (`composeDesk`) and browser host (`startBrowserHost`), in REMOTE mode against an external Hub, so
 * that the Hub and the business systems survive a SIGKILL of this process. (Scenarios on the
 * app's embedded default use the product's own launcher instead: e2e/harness/local-stack.ts.)
 *
 *   node --import tsx e2e/harness/host-main.ts --data DIR [--port N] [--static DIR]
 *   env: BAILING_E2E_HUB_URL     the Hub URL (written into settings.json on first start)
 *        BAILING_E2E_HUB_TOKEN   the client token (held in this process's memory only)
 *        BAILING_E2E_KEYCHAIN    memory (default): a keychain in process memory holding the token;
 *                                session-only: no keychain module (as on a desktop without one),
 *                                the token kept for this session only; session-only-empty: the
 *                                same without the token (a restart after a session-only choice)
 *        BAILING_MODEL_BASE_URL, BAILING_MODEL, BAILING_MODEL_API_KEY  (read by composeDesk)
 *
 * Why not `src-main/browser-host/cli.ts`: that CLI takes the remote client token only from the OS
 * keychain, and the build machines have no Secret Service outside `npm test`'s private D-Bus
 * session. `composeDesk` accepts an injected keychain, so this launcher hands it one whose backend is
 * process memory, pre-filled from the environment. Everything else is the app's real wiring.
 * Prints `BAILING_URL=<url>` once serving, like the CLI.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { composeDesk } from '../../src-main/embedded/composition-root.js';
import { startBrowserHost } from '../../src-main/browser-host/index.js';
import { createKeychain, KEYCHAIN_ACCOUNTS, type KeytarLike } from '../../src-main/keychain/index.js';
import { createSettingsFileStore, defaultSettings } from '../../src-main/settings/index.js';

const root = resolve(import.meta.dirname, '../..');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function memoryBackend(initial: Record<string, string>): KeytarLike {
  const m = new Map(Object.entries(initial));
  return {
    getPassword: async (_s, account) => m.get(account) ?? null,
    setPassword: async (_s, account, password) => void m.set(account, password),
    deletePassword: async (_s, account) => m.delete(account),
    findCredentials: async () => [...m].map(([account, password]) => ({ account, password })),
  };
}

async function main(): Promise<void> {
  const dataDir = resolve(arg('data') ?? '');
  if (!arg('data')) throw new Error('--data DIR is required');
  const staticDir = resolve(arg('static') ?? resolve(root, 'out/renderer'));
  const port = Number(arg('port') ?? 0);
  const hubUrl = process.env.BAILING_E2E_HUB_URL;
  const token = process.env.BAILING_E2E_HUB_TOKEN;
  if (!token || !hubUrl) throw new Error('BAILING_E2E_HUB_TOKEN and BAILING_E2E_HUB_URL are required');
  delete process.env.BAILING_E2E_HUB_TOKEN;
  if (!existsSync(resolve(staticDir, 'index.html')))
    throw new Error(`the renderer is not built (${staticDir}/index.html missing)`);

  const store = createSettingsFileStore(dataDir);
  if (store.load() === null)
    store.save({ ...defaultSettings(), hub: { mode: 'remote', remote_url: hubUrl, remote_hub_id: null } });
  const mode = process.env.BAILING_E2E_KEYCHAIN ?? 'memory';
  const keychain =
    mode === 'memory'
      ? await createKeychain({
          loadBackend: async () => memoryBackend({ [KEYCHAIN_ACCOUNTS.remoteHubClientToken]: token }),
        })
      : await createKeychain({
          // What a build without keytar meets: the module loader's words, with a developer path.
          loadBackend: async () => {
            throw new Error(`Cannot find package 'keytar' imported from ${root}/src-main/keychain/index.ts`);
          },
          sessionOnlyFallback: true,
        });
  if (mode === 'session-only') await keychain.set(KEYCHAIN_ACCOUNTS.remoteHubClientToken, token);
  const version = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  const log = (m: string) => console.error(`[host] ${m}`);
  const desk = await composeDesk({ dataDir, version, keychain, log, reconnectDelayMs: 300 });
  const host = await startBrowserHost({ router: desk.router, bus: desk.bus, staticDir, port, log });
  console.log(`BAILING_URL=${host.url}`);
  const stop = () => {
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    void host
      .close()
      .then(() => desk.close())
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(`[host] could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
