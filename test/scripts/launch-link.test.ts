// The browser-mode link opens the app once, so it must be shown once and never end up where other
// local users can read it: the browser host prints it on standard output only (never in its log on
// standard error), `npm start` shows it in exactly one message, and BAILING_OPEN_BROWSER=1 starts
// Chromium on an owner-only file that forwards to it, never with the link on the command line.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLinkRelay } from '../../scripts/launch-link.mjs';

const root = resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'bailing-link-'));
  dirs.push(d);
  return d;
};

const LINK = 'http://127.0.0.1:4321/#launch=0123456789abcdef0123456789abcdef';
const CODE = '0123456789abcdef0123456789abcdef';

describe('the browser-mode link', () => {
  it('npm start shows it in one message and passes every other line through', () => {
    const shown: string[] = [];
    const relay = createLinkRelay({
      log: (t) => shown.push(t),
      open: false,
      browser: null,
      spawnBrowser: () => {},
    });
    for (const line of ['[bailing] starting', `BAILING_URL=${LINK}`, '[bailing] ready']) relay(line);
    expect(shown[0]).toBe('[bailing] starting');
    expect(shown[2]).toBe('[bailing] ready');
    expect(shown.filter((t) => t.includes(CODE))).toHaveLength(1);
    expect(shown.join('\n').split(CODE)).toHaveLength(2);
  });

  it('with BAILING_OPEN_BROWSER=1 Chromium gets an owner-only forwarding file, never the link', () => {
    const launched: Array<{ browser: string; args: string[] }> = [];
    const shown: string[] = [];
    const relay = createLinkRelay({
      log: (t) => shown.push(t),
      open: true,
      browser: '/usr/bin/chromium',
      spawnBrowser: (browser, args) => launched.push({ browser, args }),
    });
    relay(`BAILING_URL=${LINK}`);
    expect(launched).toHaveLength(1);
    const args = launched[0]?.args ?? [];
    expect(args.join(' ')).not.toContain(CODE);
    const file = args[0] ?? '';
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toContain(`url=${LINK}`);
    // without a browser it says so and opens nothing
    const noBrowser: string[] = [];
    createLinkRelay({ log: (t) => noBrowser.push(t), open: true, browser: null, spawnBrowser: () => {} })(
      `BAILING_URL=${LINK}`,
    );
    expect(noBrowser).toHaveLength(2);
  });

  it('the browser host prints it once, on standard output only', async () => {
    const staticDir = tempDir();
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>t</title>');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'src-main/browser-host/cli.ts'),
        '--data',
        tempDir(),
        '--static',
        staticDir,
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BAILING_PORT: '0' } },
    );
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      await new Promise<void>((resolveUp, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          // serving: its line on standard error follows the link
          if (/BAILING_URL=.+\n/.test(out)) resolveUp();
        });
        child.once('exit', (code) => reject(new Error(`the host exited (${code}): ${err}`)));
      });
      await new Promise<void>((r) => {
        const wait = () => (err.includes('Serving on') ? r() : setTimeout(wait, 50));
        wait();
      });
      const link = /BAILING_URL=(.+)\n/.exec(out)?.[1] ?? '';
      const code = /#token=([^&#\s]+)$/.exec(link)?.[1] ?? '';
      expect(code.length).toBeGreaterThan(8);
      expect(out.split(code)).toHaveLength(2);
      expect(err).not.toContain(code);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
