// A fresh Debian machine without libsecret: `npm ci` skips keytar (an optional native dependency)
// without a word. The typecheck, the renderer suites and the app must not depend on it: here they
// run in a temporary copy of the repository whose node_modules has no keytar, and the app's
// keychain reports itself unavailable, saying why (docs/operations.md#build-and-test-machines).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyWithModuleHidden, type HiddenModuleCopy } from './hidden-module-copy.js';

const root = resolve(import.meta.dirname, '../..');
let copy: HiddenModuleCopy;

/** The environment of a run of its own (not this vitest worker's). */
const ownEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'TEST'));

const run = (args: string[], timeoutMs: number) =>
  spawnSync(process.execPath, args, { cwd: copy.dir, env: ownEnv(), encoding: 'utf8', timeout: timeoutMs });

beforeAll(() => {
  copy = copyWithModuleHidden(root, 'keytar');
}, 120_000);
afterAll(() => copy?.remove());

describe('without keytar installed', () => {
  it('the copy really has no keytar (while this checkout has one or not)', () => {
    expect(existsSync(join(copy.dir, 'node_modules/keytar'))).toBe(false);
    const r = run(['-e', "require.resolve('keytar')"], 30_000);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("Cannot find module 'keytar'");
  });

  it('the typecheck passes', () => {
    const r = run(
      [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noEmit'],
      300_000,
    );
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  }, 320_000);

  it('the renderer suites pass', () => {
    const report = join(copy.dir, 'renderer-report.json');
    const r = run(
      [
        join('node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--project',
        'renderer',
        '--reporter=json',
        `--outputFile.json=${report}`,
      ],
      600_000,
    );
    const result = JSON.parse(readFileSync(report, 'utf8')) as {
      numTotalTestSuites: number;
      numPassedTests: number;
      numFailedTests: number;
      numFailedTestSuites: number;
    };
    expect(result.numFailedTests, r.stderr.slice(-4000)).toBe(0);
    expect(result.numFailedTestSuites, r.stderr.slice(-4000)).toBe(0);
    expect(result.numPassedTests).toBeGreaterThan(50);
    expect(r.status).toBe(0);
  }, 620_000);

  it('the app’s keychain is unavailable and says keytar is not installed', () => {
    writeFileSync(
      join(copy.dir, 'keychain-probe.ts'),
      "import { createKeychain } from './src-main/keychain/index.js';\n" +
        'console.log(JSON.stringify((await createKeychain()).status()));\n',
    );
    const r = run([join('node_modules', 'tsx', 'dist', 'cli.mjs'), 'keychain-probe.ts'], 60_000);
    expect(r.status, r.stderr).toBe(0);
    const status = JSON.parse(r.stdout.trim()) as { state: string; reason: string };
    expect(status.state).toBe('unavailable');
    expect(status.reason).toContain('keytar is not installed');
  }, 70_000);
});
