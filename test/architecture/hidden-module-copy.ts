/**
 * A temporary copy of the repository in which one installed module is hidden: the sources are
 * copied, and node_modules is a folder of links to every installed package but that one (so the
 * copy costs seconds and the real install is never touched).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NOT_COPIED = new Set([
  'node_modules',
  '.git',
  'out',
  'dist',
  '.tmp',
  'test-results',
  'playwright-report',
]);

export interface HiddenModuleCopy {
  dir: string;
  remove(): void;
}

export function copyWithModuleHidden(root: string, hidden: string): HiddenModuleCopy {
  const dir = mkdtempSync(join(tmpdir(), `bailing-without-${hidden}-`));
  for (const entry of readdirSync(root)) {
    if (NOT_COPIED.has(entry)) continue;
    cpSync(join(root, entry), join(dir, entry), { recursive: true });
  }
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry === hidden || entry === '.vite' || entry === '.vitest') continue;
    symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
