// The test command prints why Playwright skipped what it skipped (its list reporter does not):
// scripts/playwright-skips.mjs reads the reasons from the JSON report, in the shape Playwright
// 1.65 writes (suites nested in suites, a test's skip annotation on the test and on its result).
import { describe, expect, it } from 'vitest';
import { skipLines, skipReasons } from '../../scripts/playwright-skips.mjs';

const NO_BINARY = 'Electron binary not installed on this machine';
const skipped = (reason?: string) => ({
  annotations: [{ type: 'serial' }, ...(reason ? [{ type: 'skip', description: reason }] : [])],
  expectedStatus: 'skipped',
  status: 'skipped',
  results: [{ status: 'skipped', annotations: reason ? [{ type: 'skip', description: reason }] : [] }],
});
const passed = { annotations: [], status: 'expected', results: [{ status: 'passed', annotations: [] }] };

const report = {
  suites: [
    {
      title: 'acceptance/electron.spec.ts',
      specs: [],
      suites: [
        {
          title: 'Electron: conversation',
          specs: [{ tests: [skipped(NO_BINARY)] }, { tests: [skipped(NO_BINARY)] }],
        },
        { title: 'Electron: approval', specs: [{ tests: [skipped(NO_BINARY)] }] },
      ],
    },
    { title: 'acceptance/other.spec.ts', specs: [{ tests: [passed] }, { tests: [skipped()] }] },
  ],
  stats: { expected: 1, skipped: 4, unexpected: 0 },
};

describe('why Playwright skipped', () => {
  it('groups the skipped tests by their reason, each counted once, at any depth', () => {
    expect([...skipReasons(report)]).toEqual([
      [NO_BINARY, 3],
      ['no reason given', 1],
    ]);
  });

  it('prints one line per reason, and nothing when nothing was skipped', () => {
    expect(skipLines(report)).toEqual([
      `Playwright skipped 3 tests: ${NO_BINARY}`,
      'Playwright skipped 1 test: no reason given',
    ]);
    expect(skipLines({ suites: [{ specs: [{ tests: [passed] }] }] })).toEqual([]);
    expect(skipLines({})).toEqual([]);
  });
});
