/** Runs the Hub as a real child process (its CLI, test/support/hub-cli.ts) so tests can SIGKILL it. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HubConfig } from '../../src-hub/index.js';
import { storeArgsFor } from './store-mode.js';
import { hubCliArgv } from '../support/hub-cli.js';

const root = resolve(import.meta.dirname, '../..');

export interface HubChild {
  url: string;
  proc: ChildProcess;
  output(): string;
  kill(signal: NodeJS.Signals): Promise<number | null>;
}

export async function spawnHub(
  dataDir: string,
  config: HubConfig,
  extraArgs: string[] = [],
): Promise<HubChild> {
  const configPath = join(dataDir, 'hub-config.json');
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  const proc = spawn(
    process.execPath,
    [...hubCliArgv(), '--port', '0', ...(await storeArgsFor(dataDir)), '--config', configPath, ...extraArgs],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HUB_LOG_LEVEL: 'info' },
    },
  );
  let out = '';
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`hub did not start:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      for (const line of out.split('\n')) {
        if (!line.includes('hub listening')) continue;
        try {
          const j = JSON.parse(line) as { url?: string };
          if (j.url) {
            clearTimeout(timer);
            res(j.url);
          }
        } catch {
          /* partial line */
        }
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((code) => rej(new Error(`hub exited (${code}) before listening:\n${out}`)));
  });
  return {
    url,
    proc,
    output: () => out,
    kill(signal) {
      proc.kill(signal);
      return exited;
    },
  };
}
