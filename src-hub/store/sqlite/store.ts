/**
 * The default HubStore: one SQLite file in the data directory. Writes go to the writer thread
 * (writer/), which group-commits them; reads run on the calling thread over a second, query-only
 * connection (WAL readers see only committed — hence fsynced — transactions, and never wait for
 * the writer).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { buildHubStore } from '../sql/build-store.js';
import type { OpEnv } from '../sql/env.js';
import { createInvokeReadsCache } from '../sql/invoke-cache.js';
import { ensureIdentity } from '../sql/ops/meta.js';
import { GROUPED_READS, READ_OPS, SNAPSHOT_READS, type OpRunner } from '../sql/registry.js';
import { runSync, type Step } from '../sql/session.js';
import type { HubStore } from '../types.js';
import { STORE_RULES } from '../../store-rules.js';
import { sqliteReadError } from './errors.js';
import { openDatabase, SQLITE_DURABILITY } from './open.js';
import { createSqliteSession } from './session.js';
import { startSqliteWriter, type SqliteWriterOptions } from './writer/client.js';

export interface SqliteStoreOptions extends SqliteWriterOptions {
  dataDir: string;
}

type AnyRead = (env: OpEnv, ...args: unknown[]) => Step<unknown>;

export function createSqliteStore(options: SqliteStoreOptions): HubStore {
  const db = openDatabase(options.dataDir);
  // the invoke's configuration rows, kept against the configuration generation (sql/invoke-cache.ts)
  const env: OpEnv = {
    sql: createSqliteSession(db),
    rules: STORE_RULES,
    invokeCache: createInvokeReadsCache(),
  };
  let identity: { hub_id: string; token_salt: string };
  try {
    identity = db
      .transaction(() =>
        runSync(
          ensureIdentity(env, { hub_id: `hub_${randomUUID()}`, token_salt: randomBytes(32).toString('hex') }),
        ),
      )
      .immediate();
    db.pragma('query_only = ON');
  } catch (err) {
    db.close();
    throw err;
  }
  const snapshot = db.transaction((op: AnyRead, args: unknown[]) => runSync(op(env, ...args)));
  const writer = startSqliteWriter(options.dataDir, options);
  const runner: OpRunner = {
    read(name, ...args) {
      const op = READ_OPS[name] as AnyRead;
      try {
        const together = SNAPSHOT_READS.has(name) || GROUPED_READS.has(name);
        const value = together ? snapshot(op, args) : runSync(op(env, ...args));
        return Promise.resolve(value) as never;
      } catch (err) {
        return Promise.reject(sqliteReadError(err));
      }
    },
    write: (name, ...args) => writer.write(name, args) as never,
  };
  let closed: Promise<void> | null = null;
  return buildHubStore(runner, {
    kind: 'sqlite',
    shared: false,
    durability: SQLITE_DURABILITY,
    hubId: () => identity.hub_id,
    tokenSalt: () => identity.token_salt,
    // an event has its seq when its transaction commits; task views follow their change's commit
    flushEvents: () => writer.flush(),
    onEvents: (listener) => writer.onEvents(listener),
    commitStats: () => writer.stats(),
    close() {
      closed ??= writer.close().finally(() => {
        if (db.open) db.close();
      });
      return closed;
    },
  });
}
