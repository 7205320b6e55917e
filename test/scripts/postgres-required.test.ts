// Under `npm test` a private PostgreSQL that does not start fails the run; only a bare vitest run
// without PostgreSQL's binaries lets the PostgreSQL suites skip, with the reason.
import { describe, expect, it } from 'vitest';
import type { PrivatePostgres } from '../../scripts/private-postgres.js';
import { providedPostgres } from '../setup/postgres.js';

const down = { ok: false as const, reason: 'initdb failed: disk full' };

describe('the PostgreSQL the tests are given', () => {
  it('where it is required, a cluster that did not start throws with its reason', () => {
    expect(() => providedPostgres(down, true)).toThrow(
      /BAILING_TEST_REQUIRE_POSTGRES=1.*initdb failed: disk full/,
    );
  });
  it('where it is not, the suites get no URL and the reason to skip with', () => {
    expect(providedPostgres(down, false)).toEqual({
      url: null,
      binDir: null,
      reason: 'initdb failed: disk full',
    });
  });
  it('a started cluster is given by its admin URL either way', () => {
    const cluster = { adminUrl: 'postgres://127.0.0.1:1/postgres', binDir: '/pg/bin' } as PrivatePostgres;
    for (const required of [true, false])
      expect(providedPostgres({ ok: true, cluster }, required)).toEqual({
        url: 'postgres://127.0.0.1:1/postgres',
        binDir: '/pg/bin',
        reason: null,
      });
  });
});
