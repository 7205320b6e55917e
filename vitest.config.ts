import { defineConfig } from 'vitest/config';
import { HeaviestFirstSequencer } from './test/setup/sequencer.js';

// The Hub's tests run twice: on SQLite (project "node") and on PostgreSQL (project "hub-postgres",
// a private cluster started by test/setup/postgres.ts; test/hub/store-mode.ts picks the store).
//
// Most test files spend their time waiting on servers, child processes and disks rather than on
// the CPU, so more files run at once than the machine has cores (BAILING_TEST_WORKERS, default 3).
// Afterwards, one file at a time with no other test file beside them (sequence.groupOrder 1, one
// worker): the files that assert the Hub stays responsive under load (a /health probe's p99
// against an idle control server's; projects "node alone" and "hub-postgres alone"), and the
// renderer's jsdom files, whose waitFor waits (1 s by default) missed with CPU-heavy files beside
// them at load average 15.
const ALONE = ['test/hub/sse-replay-load.test.ts', 'test/hub/hostile-schemas.test.ts'];
const WORKERS = Number(process.env.BAILING_TEST_WORKERS) || 3;

const NODE_INCLUDE = ['test/**/*.test.ts'];
const NODE_EXCLUDE = ['test/renderer/**'];
const HUB_INCLUDE = ['test/hub/**/*.test.ts'];
// 3,000 raw HTTP cases against the HTTP layer, with a SQLite snapshot per case; on PostgreSQL,
// http-hardening.test.ts checks that rejected input leaves the store unchanged
const HUB_EXCLUDE = ['test/hub/fuzz-routes.property.test.ts'];
const HUB_POSTGRES_ENV = {
  BAILING_TEST_STORE: 'postgres',
  // the Hubs on PostgreSQL need their secret key (test/hub/store-mode.ts TEST_SECRET_KEY)
  BAILING_HUB_SECRET_KEY: 'dGVzdC1vbmx5LWh1Yi1zZWNyZXQta2V5LTAxMjM0NTY',
};
const together = { maxWorkers: WORKERS, sequence: { groupOrder: 0 } };
const alone = { maxWorkers: 1, sequence: { groupOrder: 1 } };

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/setup/postgres.ts', 'test/setup/hub-bundle.ts'],
    sequence: { sequencer: HeaviestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: NODE_INCLUDE,
          exclude: [...NODE_EXCLUDE, ...ALONE],
          ...together,
        },
      },
      {
        extends: true,
        test: {
          name: 'hub-postgres',
          environment: 'node',
          include: HUB_INCLUDE,
          exclude: [...HUB_EXCLUDE, ...ALONE],
          env: HUB_POSTGRES_ENV,
          ...together,
        },
      },
      {
        extends: true,
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
          ...alone,
        },
      },
      {
        extends: true,
        test: { name: 'node alone', environment: 'node', include: ALONE, ...alone },
      },
      {
        extends: true,
        test: {
          name: 'hub-postgres alone',
          environment: 'node',
          include: ALONE.filter((f) => f.startsWith('test/hub/')),
          env: HUB_POSTGRES_ENV,
          ...alone,
        },
      },
    ],
  },
});
