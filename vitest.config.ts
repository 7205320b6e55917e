import { defineConfig } from 'vitest/config';

// The Hub's tests run twice: on SQLite (project "node") and on PostgreSQL (project "hub-postgres",
// a private cluster started by test/setup/postgres.ts; test/hub/store-mode.ts picks the store).
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/setup/postgres.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/renderer/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'hub-postgres',
          environment: 'node',
          include: ['test/hub/**/*.test.ts'],
          // 3,000 raw HTTP cases against the HTTP layer, with a SQLite snapshot per case; on
          // PostgreSQL, http-hardening.test.ts checks that rejected input leaves the store unchanged
          exclude: ['test/hub/fuzz-routes.property.test.ts'],
          // the Hubs on PostgreSQL need their secret key (test/hub/store-mode.ts TEST_SECRET_KEY)
          env: {
            BAILING_TEST_STORE: 'postgres',
            BAILING_HUB_SECRET_KEY: 'dGVzdC1vbmx5LWh1Yi1zZWNyZXQta2V5LTAxMjM0NTY',
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'renderer',
          environment: 'jsdom',
          include: ['test/renderer/**/*.test.{ts,tsx}'],
        },
      },
    ],
  },
});
