// Fails the build when a layer reaches upward or sideways across the boundaries in
// docs/architecture.md#layers. The layers are one table (scripts/layers.mjs) that eslint.config.js
// also turns into no-restricted-imports, so an editor shows the same crossing as it is typed.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { folderOf, LAYERS, MAIN } from '../../scripts/layers.mjs';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  let abs: string;
  try {
    abs = join(root, dir);
    statSync(abs);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const p = join(abs, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(relative(root, p)));
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) out.push(p);
  }
  return out;
}

const importPattern =
  /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

export function importsOf(file: string): { spec: string; target: string | null }[] {
  const text = readFileSync(file, 'utf8');
  const found: { spec: string; target: string | null }[] = [];
  for (const m of text.matchAll(importPattern)) {
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4];
    if (!spec) continue;
    const target = spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)) : null;
    found.push({ spec, target });
  }
  return found;
}

/** Every crossing of a layer boundary in the sources, as `file imports spec`. */
function violationsOf(entry: (typeof LAYERS)[number]): string[] {
  const packages = new RegExp(entry.packages);
  const out: string[] = [];
  for (const file of sourceFiles(entry.layer)) {
    for (const { spec, target } of importsOf(file)) {
      const where = `${relative(root, file)} imports ${spec}`;
      if (target === null) {
        if (packages.test(spec)) out.push(where);
        continue;
      }
      const folder = folderOf(target);
      if (folder === null) {
        out.push(`${where} (outside every layer)`);
        continue;
      }
      if (folder !== entry.layer && !entry.may.includes(folder)) out.push(where);
    }
  }
  return out;
}

describe('import boundaries', () => {
  for (const entry of LAYERS) {
    it(`${entry.layer} imports only ${entry.may.join(', ') || 'itself'}`, () => {
      expect(violationsOf(entry)).toEqual([]);
    });
  }

  it('every src-main folder is a layer of its own (a new folder needs its rule)', () => {
    const folders = readdirSync(join(root, 'src-main'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(folders).toEqual([...MAIN].sort());
    for (const m of MAIN)
      expect(
        LAYERS.some((l) => l.layer === `src-main/${m}`),
        m,
      ).toBe(true);
  });

  it('only src-main/app imports electron among main-process code', () => {
    const offenders = sourceFiles('src-main')
      .filter((f) => !relative(root, f).startsWith('src-main/app/'))
      .filter((f) => importsOf(f).some((i) => /^electron(\/|$)/.test(i.spec)));
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });

  it('the checker itself sees a forbidden import (guards against a rule that cannot fail)', () => {
    const here = importsOf(join(root, 'test/architecture/import-boundaries.test.ts'));
    expect(here.some((i) => i.spec === 'vitest')).toBe(true);
    expect(folderOf('src-main/settings/service.ts')).toBe('src-main/settings');
    expect(folderOf('src-main/handlers/table.ts')).toBe('src-main/handlers');
  });

  it('ESLint reports the same crossings (no-restricted-imports), and passes an allowed import', async () => {
    const eslint = new ESLint({ cwd: root });
    const lint = async (file: string, code: string) => {
      const [r] = await eslint.lintText(code, { filePath: join(root, file) });
      return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').length;
    };
    const crossings: Array<[string, string]> = [
      ['src-main/settings/planted.ts', "import { createHandlerTable } from '../handlers/table.js';\n"],
      ['src-main/runtime/sessions/planted.ts', "import { x } from '../../keychain/index.js';\n"],
      ['src-main/handlers/planted.ts', "import { composeDesk } from '../embedded/composition-root.js';\n"],
      ['src-main/embedded/planted.ts', "import { registerIpc } from '../app/ipc.js';\n"],
      ['src-main/browser-host/planted.ts', "import { app } from 'electron';\n"],
      ['src-hub/planted.ts', "import { x } from '../src-main/runtime/ids.js';\n"],
      ['src-renderer/src/planted.ts', "import { readFileSync } from 'node:fs';\n"],
      ['src-shared/planted.ts', "import { x } from '../src-main/hub-client/index.js';\n"],
    ];
    for (const [file, code] of crossings)
      expect(await lint(file, `${code}void x;\n`), file).toBeGreaterThan(0);
    expect(
      await lint('src-main/settings/planted.ts', "import { x } from '../runtime/ids.js';\nvoid x;\n"),
    ).toBe(0);
  }, 60_000);
});
