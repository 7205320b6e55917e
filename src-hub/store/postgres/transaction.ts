/**
 * One READ COMMITTED (or the given) transaction on a pooled connection, retried whole on a
 * serialization failure or deadlock (PostgreSQL rolled it back); a lost connection is
 * `store_unavailable` and the connection is dropped, never returned to the pool.
 */
import type { Pool, PoolClient } from 'pg';
import { fromDriver, isRetryable, isUnavailable, lostPreparedStatements, toStoreError } from './errors.js';
import { createPgSession, type PgSession } from './session.js';

const MAX_ATTEMPTS = 5;

/** A connection of the pool; failing to get one is the store's failure (`store_unavailable`). */
export async function connected(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (err) {
    throw toStoreError(fromDriver(err));
  }
}

export async function inTransaction<T>(
  pool: Pool,
  begin: string,
  work: (session: PgSession) => Promise<T>,
): Promise<{ value: T; session: PgSession }> {
  for (let attempt = 1; ; attempt++) {
    const client = await connected(pool);
    const session = createPgSession(client);
    let broken: Error | undefined;
    try {
      // BEGIN, the statements, the held-back writes and COMMIT go out one behind the other, each as
      // soon as the one before it is answered; a failure of any of them is seen before the COMMIT's
      // answer is trusted
      const began = session.statement(begin);
      began.catch(() => undefined);
      const value = await work(session);
      await began;
      const flushed = session.flush();
      flushed.catch(() => undefined);
      const committed = session.statement('COMMIT');
      committed.catch(() => undefined);
      await flushed; // a held-back write that failed made that COMMIT a rollback
      await committed;
      return { value, session };
    } catch (err) {
      const lost = lostPreparedStatements(err);
      if (isUnavailable(err) || lost) broken = err as Error;
      else await session.statement('ROLLBACK').catch((e: unknown) => (broken = e as Error));
      if ((isRetryable(err) || lost) && attempt < MAX_ATTEMPTS) continue;
      throw toStoreError(err);
    } finally {
      client.release(broken);
    }
  }
}

/**
 * Runs `work` on one pooled connection, outside a transaction: its statements are pipelined (each
 * its own implicit transaction), so the ones it sends without waiting leave in one socket write and
 * are answered in one round trip. The connection goes back to the pool only once everything sent
 * on it is answered; a lost one is dropped.
 */
export async function onOneConnection<T>(pool: Pool, work: (session: PgSession) => Promise<T>): Promise<T> {
  const client = await connected(pool);
  const session = createPgSession(client);
  let broken: Error | undefined;
  try {
    return await work(session);
  } catch (err) {
    if (isUnavailable(err) || lostPreparedStatements(err)) broken = err as Error;
    throw toStoreError(err);
  } finally {
    // statements whose answers the work no longer needed are still answered before the release
    await session.flush().catch((err: unknown) => {
      if (isUnavailable(err)) broken ??= err as Error;
    });
    client.release(broken);
  }
}
