/**
 * Opens the store a Hub is configured with: PostgreSQL when given a `postgres://` URL (several Hub
 * instances may share it), otherwise the SQLite file in the data directory.
 */
import { createSqliteStore } from './sqlite/store.js';
import { openPostgresStore } from './postgres/store.js';
import type { HubStore } from './types.js';

export interface StoreLocation {
  /** SQLite: the data directory holding hub.sqlite. */
  dataDir?: string;
  /** PostgreSQL: postgres://user@host:port/database (the password preferably from PGPASSWORD or ~/.pgpass). */
  url?: string;
  /** PostgreSQL: connections of this instance. */
  poolSize?: number;
}

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);

export async function openStore(
  where: StoreLocation,
  onBackgroundError: (what: string, err: unknown) => void = () => undefined,
): Promise<HubStore> {
  if (where.url !== undefined) {
    if (!isPostgresUrl(where.url))
      throw new Error('the store URL must be a postgres:// or postgresql:// URL');
    return openPostgresStore({ url: where.url, poolSize: where.poolSize, onBackgroundError });
  }
  if (!where.dataDir)
    throw new Error('a data directory (--data DIR) or a store URL (--store postgres://…) is required');
  return createSqliteStore({ dataDir: where.dataDir });
}
