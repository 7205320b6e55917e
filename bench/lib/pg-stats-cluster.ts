/**
 * The private PostgreSQL a PostgreSQL benchmark measures: started with pg_stat_statements tracking
 * every statement, and an admin connection to it. Exits the process (printing why) where
 * PostgreSQL's binaries are missing.
 */
import pg from 'pg';
import { startPrivatePostgres, type PrivatePostgres } from '../../scripts/private-postgres.js';

export async function startStatsCluster(): Promise<{ cluster: PrivatePostgres; admin: pg.Client }> {
  const started = await startPrivatePostgres({
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' },
  });
  if (!started.ok) {
    console.log(`skipped: ${started.reason}`);
    process.exit(0);
  }
  const admin = new pg.Client({ connectionString: started.cluster.adminUrl });
  await admin.connect();
  return { cluster: started.cluster, admin };
}
