/**
 * vitest globalSetup: one private PostgreSQL cluster for the whole run (scripts/private-postgres.ts),
 * stopped at the end. Tests reach it with `inject('postgres')`; where the server binaries are
 * missing, `url` is null and `reason` says why (the PostgreSQL tests report a skip with it).
 *
 * vitest calls a global setup once for the root project and once more for every project that
 * inherits it (`extends: true`); only the root starts the cluster, and the projects read what the
 * root provides (a project's provided context falls back to the root's).
 */
import type { TestProject } from 'vitest/node';
import { startPrivatePostgres, type PrivatePostgresResult } from '../../scripts/private-postgres.js';
import { runNeedsServers } from './run-needs.js';

export interface ProvidedPostgres {
  /** The cluster's admin URL (database `postgres`), or null when it could not start. */
  url: string | null;
  binDir: string | null;
  reason: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ProvidedPostgres;
  }
}

export default async function setup(project: TestProject) {
  if (!project.isRootProject()) return;
  if (!runNeedsServers(project)) {
    project.provide('postgres', { url: null, binDir: null, reason: 'this run has no project that uses it' });
    return;
  }
  const r = await startPrivatePostgres();
  project.provide('postgres', providedPostgres(r, process.env.BAILING_TEST_REQUIRE_POSTGRES === '1'));
  return () => {
    if (r.ok) r.cluster.stop();
  };
}

/**
 * What the tests are given. Where PostgreSQL is required (`npm test`, which made sure its binaries
 * are installed: scripts/test.mjs) a cluster that did not start fails the run instead of letting
 * the PostgreSQL suites report a skip; elsewhere (a bare `vitest` on a machine without them) they skip
 * with the reason.
 */
export function providedPostgres(r: PrivatePostgresResult, required: boolean): ProvidedPostgres {
  if (r.ok) return { url: r.cluster.adminUrl, binDir: r.cluster.binDir, reason: null };
  if (required)
    throw new Error(
      `PostgreSQL is required by this run (BAILING_TEST_REQUIRE_POSTGRES=1) and did not start: ${r.reason}`,
    );
  return { url: null, binDir: null, reason: r.reason };
}
