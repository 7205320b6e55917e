/**
 * The PostgreSQL HubStore: several Hub instances serve the same clients from one database. Writes
 * run in READ COMMITTED transactions whose gates lock what they read (sql/ops/
 * invocation-change.ts); the changes of one task that arrive together share one transaction
 * (group commit: group-commit.ts, batch.ts), which also renders the task's view at its end.
 * Serialization failures and deadlocks are retried, a lost connection is `store_unavailable`
 * (HTTP 503). Events get their seqs in a pass just after commit (event-sequencer.ts), and every
 * instance hears about them (listener.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { STORE_RULES } from '../../store-rules.js';
import { buildHubStore } from '../sql/build-store.js';
import type { OpEnv } from '../sql/env.js';
import { ensureIdentity } from '../sql/ops/meta.js';
import { GROUPED_READS, READ_OPS, SNAPSHOT_READS, WRITE_OPS, type OpRunner } from '../sql/registry.js';
import { runAsync, type Step } from '../sql/session.js';
import type { HubStore } from '../types.js';
import { toStoreError } from './errors.js';
import { createEventSequencer } from './event-sequencer.js';
import { createGroupCommitter } from './group-commit.js';
import { listenForEvents } from './listener.js';
import { migratePostgres } from './migrate.js';
import { clientConfig, createPool, redactUrl } from './pool.js';
import { createPgSession } from './session.js';
import { readTogether } from './read-together.js';
import { createInvokeReadsCache } from '../sql/invoke-cache.js';
import { inTransaction } from './transaction.js';

export interface PostgresStoreOptions {
  url: string;
  /** Connections of this instance (default 10). */
  poolSize?: number;
  /** How often unsequenced events (of an instance that died before sequencing them) are looked for. */
  sequenceIntervalMs?: number;
  /** Reports background failures (idle connections, sequencing, LISTEN); never thrown. */
  onBackgroundError?(what: string, err: unknown): void;
}

type AnyOp = (env: OpEnv, ...args: unknown[]) => Step<unknown>;
export async function openPostgresStore(options: PostgresStoreOptions): Promise<HubStore> {
  const report = options.onBackgroundError ?? (() => undefined);
  const pool = createPool({
    url: options.url,
    max: options.poolSize,
    onIdleError: (err) => report('idle PostgreSQL connection', err),
  });
  const listeners = new Set<(clients: string[] | 'some') => void>();
  const tell = (clients: string[] | 'some') => {
    for (const l of listeners) l(clients);
  };
  let identity: { hub_id: string; token_salt: string };
  let settings: { synchronous_commit: string; fsync: string };
  try {
    await migratePostgres(pool);
    const show = async (name: string) =>
      String(
        (await pool.query<{ setting: string }>('SELECT current_setting($1) AS setting', [name])).rows[0]
          ?.setting,
      );
    settings = { synchronous_commit: await show('synchronous_commit'), fsync: await show('fsync') };
    identity = (
      await inTransaction(pool, 'BEGIN', (s) =>
        runAsync(
          ensureIdentity(
            { sql: s, rules: STORE_RULES },
            { hub_id: `hub_${randomUUID()}`, token_salt: randomBytes(32).toString('hex') },
          ),
        ),
      )
    ).value;
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw toStoreError(err);
  }
  const sequencer = createEventSequencer(pool, {
    onSequenced: tell,
    onError: (err) => report('event sequencing', err),
    intervalMs: options.sequenceIntervalMs ?? 1_000,
  });
  const listener = listenForEvents(clientConfig(options.url), {
    onClients: tell,
    onError: (err) => report('LISTEN connection', err),
  });

  const readSession = createPgSession(pool);
  const groupedReads = readTogether(readSession);
  // the invoke's configuration rows, kept against the configuration generation read in the same
  // statement, so in the same snapshot (sql/invoke-cache.ts); every instance keeps its own
  const groupedEnv: OpEnv = { sql: groupedReads, rules: STORE_RULES, invokeCache: createInvokeReadsCache() };
  // writes run in group-commit batches (group-commit.ts, batch.ts); events they appended get their
  // seqs in the pass after commit, which nobody waits for (flushEvents does)
  const writer = createGroupCommitter(pool, STORE_RULES, (batch) => {
    if (batch.appendedEvents || batch.marked > 0) void sequencer.sequenceNow();
  });
  const runner: OpRunner = {
    async read(name, ...args) {
      const op = READ_OPS[name] as AnyOp;
      try {
        // reads started together leave as one statement (read-together.ts)
        if (GROUPED_READS.has(name)) return (await runAsync(op(groupedEnv, ...args))) as never;
        if (!SNAPSHOT_READS.has(name))
          return (await runAsync(op({ sql: readSession, rules: STORE_RULES }, ...args))) as never;
        const { value } = await inTransaction(pool, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', (s) =>
          runAsync(op({ sql: s, rules: STORE_RULES }, ...args)),
        );
        return value as never;
      } catch (err) {
        throw toStoreError(err);
      }
    },
    async write(name, ...args) {
      return (await writer.write(name, WRITE_OPS[name] as AnyOp, args)) as never;
    },
  };

  let closed: Promise<void> | null = null;
  const store = buildHubStore(runner, {
    kind: 'postgres',
    shared: true,
    durability: `PostgreSQL ${redactUrl(options.url)}, synchronous_commit=${settings.synchronous_commit}, fsync=${settings.fsync} (READ COMMITTED with row and key locks; every state change is committed before the Hub acts on it${settings.synchronous_commit === 'on' && settings.fsync === 'on' ? '' : ' — but this server does not flush commits to disk before answering'})`,
    hubId: () => identity.hub_id,
    tokenSalt: () => identity.token_salt,
    close() {
      closed ??= (async () => {
        await sequencer.stop();
        await listener.stop();
        await pool.end();
      })();
      return closed;
    },
    flushEvents: () => sequencer.sequenceNow(),
    commitStats: async () => writer.stats(),
    onEvents(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  });
  return store;
}
