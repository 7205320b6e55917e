import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const tsx = join(root, 'node_modules/.bin/tsx');

function startCli(args: string[]): {
  child: ChildProcess;
  output: () => string;
  ready: Promise<void>;
  exited: Promise<number | null>;
} {
  const child = spawn(tsx, [join(root, 'demo/cli.ts'), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise<void>((res, rej) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('demo systems ready')) res();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', () => rej(new Error(`cli exited early: ${out}`)));
  });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, output: () => out, ready, exited };
}

describe('npm run demo:systems (demo/cli.ts)', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('prints the three URLs without secrets, serves them, and exits 0 on SIGTERM', async () => {
    const cli = startCli([]);
    children.push(cli.child);
    await cli.ready;
    const urls = [...cli.output().matchAll(/http:\/\/127\.0\.0\.1:\d+/g)].map((m) => m[0]);
    expect(urls).toHaveLength(3);
    expect(cli.output()).not.toMatch(/secret=/);
    for (const url of urls) {
      const r = await fetch(`${url}/.well-known/bailing/tools.json`);
      expect(r.status).toBe(200);
    }
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('prints secrets only with --print-secrets and writes a 0600 config with --config-out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-cli-'));
    dirs.push(dir);
    const file = join(dir, 'systems.json');
    const cli = startCli(['--print-secrets', '--config-out', file]);
    children.push(cli.child);
    await cli.ready;
    expect(cli.output()).toMatch(/secret=[0-9a-f]{48}/);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      systems: { system_id: string; base_url: string; signing_secret: string }[];
    };
    expect(doc.systems.map((s) => s.system_id)).toEqual(['shop-a', 'shop-b', 'inventory']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
  });

  it('rejects a bad port flag with exit code 2', async () => {
    const child = spawn(tsx, [join(root, 'demo/cli.ts'), '--shop-a-port', 'abc'], {
      cwd: root,
      stdio: 'ignore',
    });
    children.push(child);
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    expect(code).toBe(2);
  });
});
