// What `npm start` (browser mode) does with the browser host's standard output: every line passes
// through, except the one `BAILING_URL=<link>` line, whose link is shown once, in one message. With
// BAILING_OPEN_BROWSER=1 Chromium is opened on a private file that forwards to the link, never on
// the link itself: a command line is readable by every local user, and the link's code opens the
// app once (docs/desktop-app.md, browser mode).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * @param {{ log: (text: string) => void, open: boolean, browser: string | null,
 *   spawnBrowser: (browser: string, args: string[]) => void }} deps
 * @returns {(line: string) => void}
 */
export function createLinkRelay(deps) {
  return (line) => {
    const m = /^BAILING_URL=(.+)$/.exec(line);
    if (!m) {
      deps.log(line);
      return;
    }
    const link = m[1] ?? '';
    deps.log(
      `\nBailing Desk is running. Open this address in a browser (it opens the app once; reloading that tab is fine):\n\n  ${link}\n\nPress Ctrl+C to stop.`,
    );
    if (!deps.open) return;
    if (deps.browser) deps.spawnBrowser(deps.browser, [privateRedirect(link)]);
    else deps.log('BAILING_OPEN_BROWSER=1 was set, but no Chromium was found; open the address yourself.');
  };
}

/** An owner-only HTML file that forwards to `url`; removed after 30 s and at exit. */
export function privateRedirect(url) {
  const dir = mkdtempSync(join(tmpdir(), 'bailing-open-'));
  const file = join(dir, 'open.html');
  const safe = url.replace(/[^A-Za-z0-9:/.#=_%?&-]/g, '');
  writeFileSync(file, `<!doctype html><meta http-equiv="refresh" content="0;url=${safe}">`, { mode: 0o600 });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  setTimeout(remove, 30_000).unref();
  process.once('exit', remove);
  return file;
}
