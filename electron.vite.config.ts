// electron-vite: main, preload and renderer. `npx electron-vite build` works without the Electron binary.
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'src-main/app/main.ts') },
        output: {
          // The embedded Hub's SQLite writer thread loads its own chunk (src-hub/store/sqlite/
          // writer/thread.ts, a dynamic import): the code it shares with the main process goes to
          // a chunk of its own, so the thread never loads the Electron entry.
          manualChunks: (id) =>
            /\/src-(hub|shared)\//.test(id) && !id.includes('/store/sqlite/writer/thread.')
              ? 'hub'
              : undefined,
        },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin({ exclude: ['zod'] })],
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'src-preload/index.ts') },
        // A sandboxed preload cannot load ES modules: emit one CommonJS file.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'src-renderer'),
    base: './',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: { index: resolve(import.meta.dirname, 'src-renderer/index.html') } },
    },
  },
});
