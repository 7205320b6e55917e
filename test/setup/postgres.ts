/**
 * vitest globalSetup: one private PostgreSQL cluster for the whole run (scripts/private-postgres.ts),
 * stopped at the end. Tests reach it with `inject('postgres')`; where the server binaries are
 * missing, `url` is null and `reason` says why (the PostgreSQL tests report a skip with it).
 */
import type { TestProject } from 'vitest/node';
import { startPrivatePostgres } from '../../scripts/private-postgres.js';

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
  const r = await startPrivatePostgres();
  project.provide(
    'postgres',
    r.ok
      ? { url: r.cluster.adminUrl, binDir: r.cluster.binDir, reason: null }
      : { url: null, binDir: null, reason: r.reason },
  );
  return () => {
    if (r.ok) r.cluster.stop();
  };
}
