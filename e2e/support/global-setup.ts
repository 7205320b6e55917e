// Builds the renderer once before the suites (the browser host serves out/renderer).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function globalSetup(): void {
  const root = resolve(import.meta.dirname, '../..');
  const r = spawnSync(
    resolve(root, 'node_modules/.bin/vite'),
    ['build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) throw new Error('renderer build failed');
}
