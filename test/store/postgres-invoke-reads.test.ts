// An invoke's reads on PostgreSQL (sql/ops/invoke-reads.ts, run by postgres/store.ts on one
// connection): its reads are started together (the declaration and the system found through the
// authorization) and leave in one socket write, answered in one round trip. What must hold: the
// same answers as the reads one by one, one round trip whatever the call, and the connection's
// statements all answered before it goes back to the pool.
import { expect, it } from 'vitest';
import { STORE_RULES } from '../../src-hub/store-rules.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { onOneConnection } from '../../src-hub/store/postgres/transaction.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { invokeReads } from '../../src-hub/store/sql/ops/invoke-reads.js';
import { runAsync } from '../../src-hub/store/sql/session.js';
import type { HubStore, InvokeReadsQuery } from '../../src-hub/store/types.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countRoundTrips, countSocketWrites } from './pg-counting.js';
import { dispatchChange, invocation, seedInvoke } from './fixtures.js';

describeOnPostgres(`an invoke's reads on PostgreSQL`, () => {
  /** A seeded database, and the query of a granted call with a task. */
  const seeded = async (): Promise<{ url: string; store: HubStore; q: InvokeReadsQuery }> => {
    const url = await createTestDatabase();
    const store = await openPostgresStore({ url, sequenceIntervalMs: 600_000 });
    const q = await seedInvoke(store);
    return { url, store, q };
  };

  /** Runs invokeReads on one pooled connection, counting its round trips and socket writes. */
  const counted = async (url: string, q: InvokeReadsQuery) => {
    const pool = createPool({ url, max: 1, onIdleError: () => undefined });
    try {
      const client = await pool.connect();
      const trips = countRoundTrips(client);
      const socket = countSocketWrites(client);
      client.release();
      const reads = await onOneConnection(pool, (s) =>
        runAsync(invokeReads({ sql: s, rules: STORE_RULES }, q)),
      );
      // every statement it sent was answered before the connection went back
      expect(trips.inFlight).toBe(0);
      return { reads, roundTrips: trips.roundTrips, writes: socket.writes };
    } finally {
      await pool.end();
    }
  };

  it('a granted call: one round trip, one socket write, with the answers of the single reads', async () => {
    const { url, store, q } = await seeded();
    try {
      const { reads, roundTrips, writes } = await counted(url, q);
      expect(reads).toEqual({
        existing: null,
        run: await store.getRun('run_1'),
        authorization: await store.getAuthorization('auth-a'),
        granted: true,
        operation: await store.currentOperation('sys-a', 'update_thing'),
        task: await store.getTask(q.task_id!),
        system: await store.getSystem('sys-a'),
      });
      // one by one: invocation, run, authorization, grant, declaration, system, task — seven of each
      expect([roundTrips, writes]).toEqual([1, 1]);
      // the store answers the same
      expect(await store.invokeReads(q)).toEqual(reads);
    } finally {
      await store.close();
    }
  });

  it('a taken id: one round trip, nothing else answered; a call not granted: one round trip', async () => {
    const { url, store, q } = await seeded();
    try {
      await store.applyInvocationChange(dispatchChange(invocation({ invocation_id: 'inv_taken' })));
      const taken = await counted(url, { ...q, invocation_id: 'inv_taken' });
      expect(taken.reads.existing?.state).toBe('dispatching');
      expect(taken.reads).toMatchObject({ run: null, authorization: null, operation: null, task: null });
      expect([taken.roundTrips, taken.writes]).toEqual([1, 1]);
      const other = await counted(url, { ...q, client_id: 'someone-else' });
      expect(other.reads).toMatchObject({ granted: false, operation: null, system: null });
      expect([other.roundTrips, other.writes]).toEqual([1, 1]);
    } finally {
      await store.close();
    }
  });
});
