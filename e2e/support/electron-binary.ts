// Finds an installed Electron binary without triggering its download (node_modules/electron/path.txt).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './desk-process.js';

export function electronBinary(): string | null {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, 'electron');
    return existsSync(p) ? p : null;
  }
  const dir = join(ROOT, 'node_modules/electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const p = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(p) ? p : null;
}
