/**
 * `npm run bench:ui`: in Debian's Chromium,
 *  1. host start -> interactive window in browser mode: from spawning the browser host (embedded
 *     default on a fresh data folder) to the demo conversation shown and the Hub connected;
 *  2. the idle panel rendering 10,000 unresolved invocations (the real virtualised component):
 *     first render, and scrolling to the end.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import react from '@vitejs/plugin-react';
import { readStatic } from '../src-main/browser-host/static-files.js';
import { startDeskProcess } from '../e2e/support/desk-process.js';
import { CHROMIUM_ARGS } from '../playwright.config.js';

const root = resolve(import.meta.dirname, '..');
const N = Number(process.env.BENCH_IDLE_N ?? 10_000);

async function main(): Promise<void> {
  const r = spawnSync(
    join(root, 'node_modules/.bin/vite'),
    ['build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error('renderer build failed');
  const browser = await chromium.launch({
    executablePath: process.env.BAILING_CHROMIUM ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
  const results: Record<string, number | string> = {};
  try {
    // 1. host start -> interactive window
    const t0 = performance.now();
    const desk = await startDeskProcess();
    const tUrl = performance.now();
    const page = await browser.newPage();
    await page.goto(desk.url);
    await page.getByTestId('conversation-title').waitFor();
    await page.getByText('Hub connected').waitFor();
    const tReady = performance.now();
    results['host_start_to_url_ms'] = Math.round(tUrl - t0);
    results['host_start_to_interactive_ms'] = Math.round(tReady - t0);
    results['page_load_to_interactive_ms'] = Math.round(tReady - tUrl);
    await page.close();
    await desk.stop();

    // 2. idle panel with N unresolved invocations
    const outDir = mkdtempSync(join(tmpdir(), 'bailing-bench-ui-'));
    await build({
      root: join(root, 'bench/ui-idle'),
      base: './',
      logLevel: 'warn',
      plugins: [react()],
      build: { outDir, emptyOutDir: true },
    });
    const server = createServer((req, res) => {
      void readStatic(outDir, req.url ?? '/').then((f) => {
        if (!f) return res.writeHead(404).end();
        res.writeHead(200, { 'content-type': f.type }).end(f.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    const idle = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const tNav = performance.now();
    await idle.goto(`http://127.0.0.1:${port}/?n=${N}`);
    await idle.waitForFunction(() => window.__bench !== undefined);
    const tShown = performance.now();
    const bench = await idle.evaluate(() => window.__bench);
    const scrollMs = await idle.evaluate(async () => {
      const el = document.querySelector('[data-testid="idle-list"]');
      if (!el) return -1;
      const t = performance.now();
      el.scrollTop = el.scrollHeight;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const last = [...document.querySelectorAll('[data-testid="idle-row"] code')].map(
        (c) => c.textContent ?? '',
      );
      return last.some((x) =>
        x.endsWith(String(Number(new URLSearchParams(location.search).get('n')) - 1).padStart(8, '0')),
      )
        ? performance.now() - t
        : -2;
    });
    results['idle_items'] = N;
    results['idle_first_render_ms'] = Math.round(bench?.renderMs ?? -1);
    results['idle_rows_in_dom'] = bench?.rows ?? -1;
    results['idle_navigation_to_rows_ms'] = Math.round(tShown - tNav);
    results['idle_scroll_to_end_ms'] = Math.round(scrollMs);
    await idle.close();
    server.close();
    rmSync(outDir, { recursive: true, force: true });
  } finally {
    await browser.close();
  }
  console.log('\nbench:ui');
  for (const [k, v] of Object.entries(results)) console.log(`  ${k.padEnd(32)} ${v}`);
  console.log(JSON.stringify({ bench: 'ui', ...results }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
