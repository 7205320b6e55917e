/**
 * vitest globalSetup: the Hub's CLI bundled once for the whole run (esbuild: the same sources,
 * dependencies inlined except native ones, the SQLite writer thread as its own chunk — as a
 * packaged build loads it), removed at the end. The tests that start Hub processes or run the
 * operator CLI (test/support/hub-cli.ts) run this bundle: a Node process starts it in a fraction
 * of the CPU time `node --import tsx src-hub/cli.ts` takes to compile the sources on every start.
 * Like test/setup/postgres.ts, only the root project builds it; the projects read what it provides.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { runNeedsServers } from './run-needs.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the bundled Hub CLI (cli.js). */
    hubBundle: string;
  }
}

const root = resolve(import.meta.dirname, '../..');

export default async function setup(project: TestProject) {
  if (!project.isRootProject() || !runNeedsServers(project)) return;
  const outdir = join(root, '.tmp', `hub-bundle-${process.pid}`);
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [join(root, 'src-hub/cli.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    splitting: true,
    outdir,
    external: ['better-sqlite3', 're2', 'pg-native'],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'error',
  });
  project.provide('hubBundle', join(outdir, 'cli.js'));
  return () => rmSync(outdir, { recursive: true, force: true });
}
