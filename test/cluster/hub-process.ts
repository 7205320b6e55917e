/**
 * Hub child processes for the multi-instance and crash tests: the Hub's CLI as bundled once for the
 * run (test/setup/hub-bundle.ts), so starting and SIGKILLing dozens of Hubs takes seconds, not minutes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HubConfig } from '../../src-hub/index.js';
import { TEST_SECRET_KEY } from '../hub/store-mode.js';
import { hubCliArgv } from '../support/hub-cli.js';

const root = resolve(import.meta.dirname, '../..');

export interface HubProcess {
  url: string;
  proc: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/** Starts `hub serve` with these store flags and config; resolves once it listens. */
export async function spawnHubProcess(
  workDir: string,
  name: string,
  storeArgs: string[],
  config: HubConfig & { lease_ms?: number; instance_id?: string },
): Promise<HubProcess> {
  mkdirSync(workDir, { recursive: true });
  const configPath = join(workDir, `${name}.json`);
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  const proc = spawn(
    process.execPath,
    [...hubCliArgv(), '--port', '0', ...storeArgs, '--config', configPath],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HUB_LOG_LEVEL: 'info', BAILING_HUB_SECRET_KEY: TEST_SECRET_KEY },
    },
  );
  let out = '';
  const exited = new Promise<number | null>((res) => proc.on('exit', (code) => res(code)));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`hub ${name} did not start:\n${out}`)), 60_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"hub listening"/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        res(m[1]);
      }
    });
    proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      rej(new Error(`hub ${name} exited (${code}) before listening:\n${out}`));
    });
  });
  return {
    url,
    proc,
    exited,
    output: () => out,
    kill(signal) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
