/**
 * npm run demo:systems -- [--shop-a-port N] [--shop-b-port N] [--inventory-port N] [--host H]
 *                         [--data DIR] [--secrets-file FILE] [--print-secrets] [--config-out FILE]
 * Starts shop-a, shop-b and inventory; prints their URLs (secrets only with --print-secrets;
 * --config-out writes system ids, URLs and secrets to FILE with mode 0600 for a Hub config).
 * --data keeps their business data in DIR (one SQLite file per system, seeded on first start);
 * --secrets-file reuses the signing secrets of an owner-only file written by --config-out, so a
 * restart on the same ports needs no new Hub config. Stops cleanly on SIGTERM/SIGINT.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { PrivateFileError, readOwnerOnlyFile } from '../src-shared/private-files.js';
import { startDemoSystems } from './index.js';

const SecretsFileSchema = z.object({
  systems: z
    .array(z.object({ system_id: z.string().max(64), signing_secret: z.string().min(16).max(512) }))
    .max(16),
});

/** The signing secrets of a file written by --config-out (owner-only, bounded, checked). */
function secretsFrom(file: string): { shopA?: string; shopB?: string; inventory?: string } {
  let doc: z.infer<typeof SecretsFileSchema>;
  try {
    doc = SecretsFileSchema.parse(
      JSON.parse(readOwnerOnlyFile(file, { label: '--secrets-file', maxBytes: 64 * 1024 })),
    );
  } catch (err) {
    const why = err instanceof PrivateFileError ? err.message : '--secrets-file is not a --config-out file.';
    console.error(why);
    process.exit(2);
  }
  const of = (id: string) => doc.systems.find((s) => s.system_id === id)?.signing_secret;
  return { shopA: of('shop-a'), shopB: of('shop-b'), inventory: of('inventory') };
}

function port(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`${flag} must be a port number (0-65535)`);
    process.exit(2);
  }
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'shop-a-port': { type: 'string' },
        'shop-b-port': { type: 'string' },
        'inventory-port': { type: 'string' },
        host: { type: 'string' },
        'print-secrets': { type: 'boolean', default: false },
        'config-out': { type: 'string' },
        data: { type: 'string' },
        'secrets-file': { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  if (values.help) {
    console.log(
      'usage: npm run demo:systems -- [--shop-a-port N] [--shop-b-port N] [--inventory-port N] [--host H] [--data DIR] [--secrets-file FILE] [--print-secrets] [--config-out FILE]',
    );
    return;
  }
  const dataDir = values.data ? resolve(values.data) : undefined;
  const systems = await startDemoSystems({
    host: values.host,
    ...(dataDir ? { dataDir } : {}),
    ...(values['secrets-file'] ? { secrets: secretsFrom(values['secrets-file']) } : {}),
    onDataProblem: (id, err) => console.error(`${id}: demo data unusable (${err.problem}): ${err.message}`),
    ports: {
      shopA: port(values['shop-a-port'], '--shop-a-port'),
      shopB: port(values['shop-b-port'], '--shop-b-port'),
      inventory: port(values['inventory-port'], '--inventory-port'),
    },
  });
  for (const s of systems.all()) {
    const secret = values['print-secrets'] ? `  secret=${s.secret}` : '';
    console.log(`${s.systemId.padEnd(10)} ${s.url}  (${s.name})${secret}`);
  }
  if (values['config-out']) {
    const doc = {
      systems: systems
        .all()
        .map((s) => ({ system_id: s.systemId, name: s.name, base_url: s.url, signing_secret: s.secret })),
    };
    writeFileSync(values['config-out'], JSON.stringify(doc, null, 2) + '\n', { mode: 0o600 });
    console.log(`wrote system config to ${values['config-out']}`);
  }
  console.log(dataDir ? `business data kept in ${dataDir}` : 'business data kept in memory (no --data)');
  console.log('demo systems ready');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping demo systems`);
    systems.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('shutdown failed:', err instanceof Error ? err.message : String(err));
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error('demo systems failed to start:', err instanceof Error ? err.message : String(err));
  process.exit(1);
});
