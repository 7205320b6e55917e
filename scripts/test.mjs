#!/usr/bin/env node
// The whole test suite: typecheck, lint, vitest (unit, integration, fault injection), Playwright (e2e).
// Runs under a private D-Bus session with an unlocked gnome-keyring when those are installed,
// so the keychain tests talk to a real Secret Service. Ends with one summary line.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { keyringSessionAvailable, runInKeyringSession } from './keyring-session.mjs';
import { skipLines } from './playwright-skips.mjs';
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

const started = performance.now();
const out = join(root, '.tmp');
mkdirSync(out, { recursive: true });
const npx = (bin) => join(root, 'node_modules/.bin', bin);
const seconds = (since) => `${Math.round((performance.now() - since) / 1000)} s`;
/** How long each step took (printed before the summary line). */
const timings = [];
/** Runs a step with its output on ours; resolves with its exit status (asynchronously, so the static checks' output keeps flowing). */
const run = (label, cmd, cmdArgs, env = process.env) =>
  new Promise((resolve) => {
    console.log(`\n=== ${label}: ${cmd} ${cmdArgs.join(' ')}`);
    const t0 = performance.now();
    const child = spawn(cmd, cmdArgs, { stdio: 'inherit', cwd: root, env });
    child.on('error', (err) => console.error(`${label}: ${err.message}`));
    child.on('close', (code) => {
      timings.push(`${label} ${seconds(t0)}`);
      resolve(code ?? 1);
    });
  });

/**
 * The static checks run one after another in the background while vitest runs (vitest's files
 * mostly wait on servers and child processes, which leaves the CPU free for them); their output
 * is printed once vitest is done, each under its own heading.
 */
function startStaticChecks() {
  const checks = [
    ['typecheck', npx('tsc'), ['-p', 'tsconfig.json', '--noEmit']],
    ['lint', npx('eslint'), ['.', '--max-warnings=0']],
    ['format', npx('prettier'), ['--check', '--log-level=warn', '.']],
  ];
  const runOne = ([label, cmd, cmdArgs]) =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const child = spawn(cmd, cmdArgs, { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('error', (err) => (output += `${err.message}\n`));
      child.on('close', (code) =>
        resolve({ label, cmd, cmdArgs, status: code ?? 1, output, took: seconds(t0) }),
      );
    });
  return (async () => {
    const results = [];
    for (const check of checks) results.push(await runOne(check));
    return results;
  })();
}

const totals = { passed: 0, failed: 0, skipped: 0 };
let failedStep = false;

const staticChecks = args.includes('--no-static') ? null : startStaticChecks();

// ensureSystemDeps made sure PostgreSQL's binaries are here, so a cluster that does not start is a
// failure of this run, never a skip of the PostgreSQL suites (test/setup/postgres.ts)
process.env.BAILING_TEST_REQUIRE_POSTGRES ??= '1';
const vitestJson = join(out, 'vitest.json');
rmSync(vitestJson, { force: true });
const vitestStatus = await run('vitest', npx('vitest'), [
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

for (const check of (await staticChecks) ?? []) {
  console.log(
    `\n=== ${check.label} (ran beside vitest, ${check.took}): ${check.cmd} ${check.cmdArgs.join(' ')}`,
  );
  if (check.output) process.stdout.write(check.output);
  timings.push(`${check.label} ${check.took}`);
  if (check.status !== 0) {
    failedStep = true;
    totals.failed += 1;
  }
}

if (!args.includes('--no-e2e') && existsSync(join(root, 'playwright.config.ts'))) {
  const pwJson = join(out, 'playwright.json');
  rmSync(pwJson, { force: true });
  const status = await run('playwright', npx('playwright'), ['test', '--reporter=list,json'], {
    ...process.env,
    PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
  });
  if (existsSync(pwJson)) {
    const report = JSON.parse(readFileSync(pwJson, 'utf8'));
    const lines = skipLines(report);
    if (lines.length > 0) console.log(`\n${lines.join('\n')}`);
    const s = report.stats ?? {};
    totals.passed += (s.expected ?? 0) + (s.flaky ?? 0);
    totals.failed += s.unexpected ?? 0;
    totals.skipped += s.skipped ?? 0;
    if (status !== 0 && (s.unexpected ?? 0) === 0) totals.failed += 1;
  } else if (status !== 0) {
    totals.failed += 1;
  }
}

console.log(`\ntook: ${timings.join(', ')}, whole run ${seconds(started)}`);
if (failedStep) console.log('\nA static check (typecheck, lint or format) failed: see above.');
console.log(`\ntotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
