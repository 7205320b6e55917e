#!/usr/bin/env node
// The whole test suite: typecheck, lint, vitest (unit, integration, fault injection), Playwright (e2e).
// Runs under a private D-Bus session with an unlocked gnome-keyring when those are installed,
// so the keychain tests talk to a real Secret Service. Ends with one summary line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { keyringSessionAvailable, runInKeyringSession } from './keyring-session.mjs';
import { ensureSystemDeps } from './system-deps.mjs';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);

if (!process.env.BAILING_TEST_INNER) {
  const problem = ensureSystemDeps(root);
  if (problem) {
    console.error(problem);
    console.log('\ntotal: 0 passed, 1 failed, 0 skipped');
    process.exit(1);
  }
}

if (!process.env.BAILING_TEST_INNER && keyringSessionAvailable()) {
  process.exit(
    runInKeyringSession([process.execPath, join(root, 'scripts/test.mjs'), ...args], {
      cwd: root,
      env: { BAILING_TEST_INNER: '1' },
    }),
  );
}

const out = join(root, '.tmp');
mkdirSync(out, { recursive: true });
const run = (label, cmd, cmdArgs) => {
  console.log(`\n=== ${label}: ${cmd} ${cmdArgs.join(' ')}`);
  return spawnSync(cmd, cmdArgs, { stdio: 'inherit', cwd: root, env: process.env }).status ?? 1;
};
const npx = (bin) => join(root, 'node_modules/.bin', bin);

const totals = { passed: 0, failed: 0, skipped: 0 };
let failedStep = false;

if (!args.includes('--no-static')) {
  if (run('typecheck', npx('tsc'), ['-p', 'tsconfig.json', '--noEmit']) !== 0) {
    failedStep = true;
    totals.failed += 1;
  }
  if (run('lint', npx('eslint'), ['.', '--max-warnings=0']) !== 0) {
    failedStep = true;
    totals.failed += 1;
  }
  if (run('format', npx('prettier'), ['--check', '--log-level=warn', '.']) !== 0) {
    failedStep = true;
    totals.failed += 1;
  }
}

const vitestJson = join(out, 'vitest.json');
rmSync(vitestJson, { force: true });
const vitestStatus = run('vitest', npx('vitest'), [
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestJson}`,
]);
if (existsSync(vitestJson)) {
  const r = JSON.parse(readFileSync(vitestJson, 'utf8'));
  totals.passed += r.numPassedTests ?? 0;
  totals.failed += r.numFailedTests ?? 0;
  totals.skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  if (vitestStatus !== 0 && (r.numFailedTests ?? 0) === 0) totals.failed += 1; // e.g. a suite failed to load
} else if (vitestStatus !== 0) {
  totals.failed += 1;
}

if (!args.includes('--no-e2e') && existsSync(join(root, 'playwright.config.ts'))) {
  const pwJson = join(out, 'playwright.json');
  rmSync(pwJson, { force: true });
  const status = spawnSync(npx('playwright'), ['test', '--reporter=list,json'], {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson },
  }).status;
  if (existsSync(pwJson)) {
    const s = JSON.parse(readFileSync(pwJson, 'utf8')).stats ?? {};
    totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
    totals.failed += s.unexpected ?? 0;
    totals.skipped += s.skipped ?? 0;
    if (status !== 0 && (s.unexpected ?? 0) === 0) totals.failed += 1;
  } else if (status !== 0) {
    totals.failed += 1;
  }
}

if (failedStep) console.log('\nA static check (typecheck, lint or format) failed: see above.');
console.log(`\ntotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
