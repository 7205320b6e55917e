/**
 * Starts the app in browser mode: the embedded default (or the configured remote Hub), the handler
 * table, and the browser host serving the renderer build. Prints one line `BAILING_URL=<url>` for
 * tools, and a plain sentence for people. SIGINT/SIGTERM shut down in order (journal and archive
 * flushed, Hub stopped).
 *
 *   tsx src-main/browser-host/cli.ts --data DIR [--port N] [--static out/renderer]
 *
 * Remote Hub without an OS keychain (headless launches: CI, scripts): set BAILING_HUB_URL and
 * BAILING_HUB_TOKEN_FILE (a 0600 file holding the client token). composeDesk reads the file once into
 * memory for this launch; the token is never written anywhere nor sent to the renderer
 * (src-main/embedded/launch-hub.ts). An incomplete or unsafe route stops the launch.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { composeDesk } from '../embedded/composition-root.js';
import { startBrowserHost } from './index.js';

const root = resolve(import.meta.dirname, '../..');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  // Everything this process creates is its owner's only (files 0600, directories 0700).
  process.umask(0o077);
  const dataDir = resolve(arg('data') ?? process.env.BAILING_DATA_DIR ?? resolve(root, '.data'));
  const staticDir = resolve(arg('static') ?? resolve(root, 'out/renderer'));
  const port = Number(arg('port') ?? process.env.BAILING_PORT ?? 0);
  if (!existsSync(resolve(staticDir, 'index.html'))) {
    console.error(
      `The renderer is not built (${staticDir}/index.html is missing); run npm run build:renderer first.`,
    );
    process.exit(2);
  }
  const version = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string })
    .version;
  const desk = await composeDesk({ dataDir, version, log: (m) => console.error(`[bailing] ${m}`) });
  const host = await startBrowserHost({
    router: desk.router,
    bus: desk.bus,
    staticDir,
    port,
    log: (m) => console.error(`[bailing] ${m}`),
  });
  // The link is printed once, on stdout (scripts/start.mjs shows it); it opens the app once.
  console.log(`BAILING_URL=${host.url}`);
  console.error(
    `[bailing] Serving on ${host.origin}; open the link printed on standard output (it works once). Data: ${dataDir}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.error(`[bailing] ${signal}: shutting down (flushing journal and archive).`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    host
      .close()
      .then(() => desk.close())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          console.error(`[bailing] shutdown failed: ${(err as Error).message}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(`[bailing] could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
