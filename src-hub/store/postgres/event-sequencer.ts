/**
 * Event seqs in commit order across Hub instances. A transaction inserts its events with no seq;
 * after it commits, the sequencer gives every committed, unsequenced event the next seqs (in insert
 * order) in a transaction that holds one advisory lock, so sequencing runs one pass at a time
 * across all instances and a seq becomes visible only together with every smaller one. A reader
 * that resumed after seq N can therefore never miss an event that later appears with a seq at or
 * below N — which a sequence alone (BIGSERIAL) cannot promise, since transactions commit out of
 * nextval order.
 *
 * A write that appended events asks for a pass right after its commit without waiting for it
 * (the feed follows within a pass; `HubStore.flushEvents` waits for one). Concurrent writers share
 * passes. A pass notifies `bailing_events` with the clients concerned (every
 * instance LISTENs, listener.ts). A timer also runs passes, for events committed by an instance
 * that died before sequencing them.
 */
import type { Pool } from 'pg';

export const EVENTS_CHANNEL = 'bailing_events';
/** Advisory lock key of the sequencer (an arbitrary constant shared by every instance). */
const SEQUENCER_LOCK = 7_531_021_905;
const BATCH = 1000;

/** One pass in one round trip: lock, number the pending events, notify, commit. */
const PASS = `BEGIN;
SELECT pg_advisory_xact_lock(${SEQUENCER_LOCK});
WITH pending AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM events WHERE seq IS NULL ORDER BY id LIMIT ${BATCH}
  ), counter AS (
    UPDATE event_counter SET last_seq = last_seq + (SELECT COUNT(*) FROM pending) WHERE id = 1
    RETURNING last_seq - (SELECT COUNT(*) FROM pending) AS base
  ), sequenced AS (
    UPDATE events e SET seq = counter.base + pending.n FROM pending, counter
    WHERE e.id = pending.id RETURNING e.client_id
  ), clients AS (
    SELECT string_agg(DISTINCT client_id, ',') AS list, COUNT(*) AS n FROM sequenced
  )
SELECT list, n, CASE WHEN list IS NULL THEN NULL
  ELSE pg_notify('${EVENTS_CHANNEL}', CASE WHEN octet_length(list) > 7000 THEN '*' ELSE list END) END AS notified
FROM clients;
COMMIT;`;

export interface EventSequencer {
  /** Resolves after a pass that started after this call (it never rejects: failures are reported). */
  sequenceNow(): Promise<void>;
  stop(): Promise<void>;
}

export function createEventSequencer(
  pool: Pool,
  opts: { onSequenced(clients: string[] | 'some'): void; onError(err: unknown): void; intervalMs: number },
): EventSequencer {
  let running: Promise<void> | null = null;
  let waiting: Array<() => void> = [];
  let stopped = false;

  const pass = async (): Promise<void> => {
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      for (;;) {
        const results = (await client.query(PASS)) as unknown as Array<{
          rows: Array<{ list: string | null; n: number }>;
        }>;
        const row = results[2]?.rows[0];
        if (row?.list) opts.onSequenced(row.list.split(','));
        if (Number(row?.n ?? 0) < BATCH) return;
      }
    } catch (err) {
      failed = err as Error; // the connection may be left inside the failed transaction: drop it
      throw err;
    } finally {
      client.release(failed);
    }
  };

  const kick = () => {
    if (running || waiting.length === 0) return;
    const served = waiting;
    waiting = [];
    running = pass()
      .catch((err: unknown) => opts.onError(err))
      .finally(() => {
        running = null;
        for (const done of served) done();
        kick();
      });
  };

  // after stop()'s last pass the pool is being ended: a write that commits during shutdown leaves
  // its events to the next pass of any instance (the timer of a sibling, or this one's next start)
  let ended = false;
  const sequenceNow = () =>
    ended
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiting.push(resolve);
          kick();
        });

  const timer = setInterval(() => {
    if (!stopped) void sequenceNow();
  }, opts.intervalMs);
  timer.unref();

  return {
    sequenceNow,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await sequenceNow();
      ended = true;
    },
  };
}
