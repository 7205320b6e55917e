/**
 * What a rejected request must leave untouched: every table of the Hub's store that records
 * something (systems, clients, authorizations and grants, runs, approvals, tasks and permits,
 * invocations, audit, events) and the demo systems' write ledgers.
 */
import type { HubEnv } from './helpers.js';

const TABLES = [
  'systems',
  'operations',
  'clients',
  'authorizations',
  'grants',
  'runs',
  'approvals',
  'tasks',
  'permits',
  'invocations',
  'session_enrollments',
  'audit',
  'events',
  'event_horizons',
  'operation_dispatches',
  'meta',
];

export function storeSnapshot(
  env: Pick<HubEnv, 'sql' | 'demo'>,
  query: (sql: string) => unknown[] = (sql) => env.sql(sql),
): string {
  // rows in a stable order whatever the store (SQLite has rowid, PostgreSQL does not)
  const rows = (t: string) =>
    query(`SELECT * FROM ${t}`)
      .map((r) => JSON.stringify(r))
      .sort();
  const tables = Object.fromEntries(TABLES.map((t) => [t, rows(t)]));
  const ledgers = env.demo.all().map((h) => h.ledger());
  return JSON.stringify({ tables, ledgers });
}

/**
 * The snapshot once the store has published everything its committed changes owe (task views are
 * published just after their change commits: HubStore.flushEvents waits for them), so a change an
 * earlier request made is never mistaken for one the next request made.
 */
export async function settledSnapshot(
  env: Pick<HubEnv, 'sql' | 'demo' | 'hub'>,
  query?: (sql: string) => unknown[],
): Promise<string> {
  await env.hub.store.flushEvents();
  return storeSnapshot(env, query);
}
