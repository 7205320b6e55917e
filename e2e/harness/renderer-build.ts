/** Builds the renderer once (vite) when `out/renderer/index.html` is missing; serialized by a lock file. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const RENDERER_DIR = join(ROOT, 'out/renderer');

export async function ensureRendererBuilt(): Promise<void> {
  if (existsSync(join(RENDERER_DIR, 'index.html'))) return;
  const lock = join(ROOT, '.tmp/renderer-build.lock');
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(join(RENDERER_DIR, 'index.html'))) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    if (existsSync(join(RENDERER_DIR, 'index.html'))) return;
    const r = spawnSync(
      join(ROOT, 'node_modules/.bin/vite'),
      ['build', '--config', 'vite.renderer.config.ts'],
      { cwd: ROOT, stdio: 'inherit' },
    );
    if (r.status !== 0)
      throw new Error('the renderer build (vite build --config vite.renderer.config.ts) failed');
  } finally {
    rmdirSync(lock);
  }
}
