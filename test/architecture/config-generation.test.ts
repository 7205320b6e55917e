// The invoke path keeps the configuration rows (systems, operations, authorizations, grants) in
// memory against the configuration generation (src-hub/store/sql/invoke-cache.ts), and the Hub
// the client tokens it verified (src-hub/auth/verified-tokens.ts): that is exact only while every
// store write of those tables (and of clients) sets a new generation in its own transaction. This
// fails the build when a write of them appears anywhere else, or when a write operation of a
// module that writes them does not call noteConfigChange.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WRITE_OPS } from '../../src-hub/store/sql/registry.js';

const root = resolve(import.meta.dirname, '../..');
const OPS_DIR = 'src-hub/store/sql/ops';
const CONFIG_WRITE =
  /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:systems|operations|authorizations|grants|clients)\b(?!_)/;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const p = join(root, dir, name);
    if (statSync(p).isDirectory()) out.push(...files(relative(root, p)));
    else if (/\.(ts|mts|mjs|js)$/.test(name)) out.push(p);
  }
  return out;
}

describe('the configuration generation covers every configuration write', () => {
  const writers = files(OPS_DIR).filter((f) => CONFIG_WRITE.test(readFileSync(f, 'utf8')));

  it('only the store operations write systems, operations, authorizations, grants or clients', () => {
    const elsewhere = files('src-hub')
      .filter((f) => !f.startsWith(join(root, OPS_DIR)))
      .filter((f) => CONFIG_WRITE.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(elsewhere).toEqual([]);
    // the pattern finds them where they are
    expect(writers.map((f) => relative(root, f)).sort()).toEqual([
      `${OPS_DIR}/authorizations.ts`,
      `${OPS_DIR}/clients.ts`,
      `${OPS_DIR}/operations.ts`,
      `${OPS_DIR}/systems.ts`,
    ]);
  });

  it('every write operation of those modules sets a new generation', async () => {
    const writeOps = new Set<unknown>(Object.values(WRITE_OPS));
    const missing: string[] = [];
    let checked = 0;
    for (const file of writers) {
      const mod = (await import(file)) as Record<string, unknown>;
      for (const [name, fn] of Object.entries(mod)) {
        if (!writeOps.has(fn)) continue;
        checked += 1;
        if (!/\bnoteConfigChange\b/.test(String(fn))) missing.push(`${relative(root, file)}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBe(11);
  });
});
