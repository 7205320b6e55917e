// Fails the build when a layer reaches upward or sideways across the boundaries in
// docs/architecture.md#layers.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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

interface Rule {
  layer: string;
  forbidPackages?: RegExp;
  allowDirs?: string[]; // relative imports must stay inside these top-level dirs
  forbidDirs?: string[];
}

const rules: Rule[] = [
  {
    layer: 'src-main/runtime',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main/app', 'src-renderer', 'src-preload', 'src-hub'],
  },
  {
    layer: 'src-main/journal',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main/app', 'src-main/runtime', 'src-renderer', 'src-preload', 'src-hub'],
  },
  {
    layer: 'src-main/archive',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main/app', 'src-main/runtime', 'src-renderer', 'src-preload', 'src-hub'],
  },
  {
    layer: 'src-main/hub-client',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: [
      'src-main/app',
      'src-main/runtime',
      'src-main/journal',
      'src-renderer',
      'src-preload',
      'src-hub',
    ],
  },
  {
    layer: 'src-main/keychain',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main/app', 'src-renderer', 'src-preload', 'src-hub'],
  },
  {
    layer: 'src-main/browser-host',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main/app', 'src-renderer', 'src-preload', 'src-hub'],
  },
  {
    layer: 'src-renderer',
    forbidPackages: /^(electron|node:|fs$|path$|better-sqlite3|keytar|ws$)/,
    allowDirs: ['src-renderer', 'src-shared'],
  },
  { layer: 'src-preload', allowDirs: ['src-preload', 'src-shared'] },
  {
    layer: 'src-shared',
    forbidPackages: /^(electron|better-sqlite3|keytar|react)/,
    allowDirs: ['src-shared'],
  },
  {
    layer: 'src-hub',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main', 'src-renderer', 'src-preload'],
  },
  {
    layer: 'demo',
    forbidPackages: /^electron(\/|$)/,
    forbidDirs: ['src-main', 'src-renderer', 'src-preload'],
  },
];

const under = (path: string, dir: string) => path === dir || path.startsWith(dir + '/');

describe('import boundaries', () => {
  for (const rule of rules) {
    it(`${rule.layer} respects its boundary`, () => {
      const violations: string[] = [];
      for (const file of sourceFiles(rule.layer)) {
        for (const { spec, target } of importsOf(file)) {
          const where = `${relative(root, file)} imports ${spec}`;
          if (target === null) {
            if (rule.forbidPackages?.test(spec)) violations.push(where);
            continue;
          }
          if (rule.allowDirs && !rule.allowDirs.some((d) => under(target, d))) violations.push(where);
          if (rule.forbidDirs?.some((d) => under(target, d))) violations.push(where);
        }
      }
      expect(violations).toEqual([]);
    });
  }

  it('only src-main/app imports electron among main-process code', () => {
    const offenders = sourceFiles('src-main')
      .filter((f) => !under(relative(root, f), 'src-main/app'))
      .filter((f) => importsOf(f).some((i) => /^electron(\/|$)/.test(i.spec)));
    expect(offenders.map((f) => relative(root, f))).toEqual([]);
  });

  it('the checker itself sees a forbidden import (guards against a rule that cannot fail)', () => {
    const here = importsOf(join(root, 'test/architecture/import-boundaries.test.ts'));
    expect(here.some((i) => i.spec === 'vitest')).toBe(true);
  });
});
