// Starts the browser host as a child process on a temp data folder (the embedded default) and
// stops it with SIGTERM (orderly shutdown). Returns the URL with this launch's token.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export interface DeskProcess {
  url: string;
  dataDir: string;
  child: ChildProcess;
  log(): string;
  stop(): Promise<number | null>;
}

export async function startDeskProcess(
  opts: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<DeskProcess> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'bailing-e2e-'));
  const ownDir = opts.dataDir === undefined;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src-main/browser-host/cli.ts'), '--data', dataDir],
    {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser host did not start in time:\n${out}`)), 60_000);
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /BAILING_URL=(\S+)/.exec(buf);
      if (m?.[1]) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser host exited (${code}):\n${out}`));
    });
  });
  return {
    url,
    dataDir,
    child,
    log: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      const code = await exited;
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
