/**
 * Counting what a pg client sends, for the PostgreSQL store's tests of round trips, socket writes
 * and statements: the counters wrap the client's own query and its socket's write functions.
 */
import type pg from 'pg';

/** Round trips: one starts with each statement sent while none is on its way or being answered. */
export function countRoundTrips(client: pg.PoolClient): {
  readonly roundTrips: number;
  readonly inFlight: number;
} {
  const counts = { roundTrips: 0, inFlight: 0 };
  const original = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
  (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
    if (counts.inFlight === 0) counts.roundTrips += 1;
    counts.inFlight += 1;
    return original(...args).finally(() => (counts.inFlight -= 1));
  };
  return counts;
}

/** The client socket's write calls (one per socket write, however many statements it carries). */
export function countSocketWrites(client: pg.PoolClient): { readonly writes: number } {
  const counts = { writes: 0 };
  const stream = (client as unknown as { connection: { stream: Record<string, unknown> } }).connection.stream;
  for (const name of ['_write', '_writev'] as const) {
    const original = (stream[name] as (...a: unknown[]) => unknown).bind(stream);
    stream[name] = (...args: unknown[]) => {
      counts.writes += 1;
      return original(...args);
    };
  }
  return counts;
}

/**
 * A pool whose connections report every statement they are given (`seen` with the statement's
 * text, or its query config), each connection wrapped once.
 */
export function countingPool(pool: pg.Pool, seen: (text: string) => void): pg.Pool {
  const wrapped = new WeakSet<object>();
  return {
    connect: async () => {
      const client = await pool.connect();
      if (wrapped.has(client)) return client;
      wrapped.add(client);
      const original = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        const q = args[0] as string | { text?: string };
        seen(typeof q === 'string' ? q : String(q.text));
        return original(...args);
      };
      return client;
    },
  } as unknown as pg.Pool;
}

/**
 * A pool whose connections number their round trips (as countRoundTrips counts them) and report
 * every statement with the round trip it went out in (`seen`).
 */
export function roundTripPool(pool: pg.Pool, seen: (text: string, roundTrip: number) => void): pg.Pool {
  const wrapped = new WeakSet<object>();
  return {
    connect: async () => {
      const client = await pool.connect();
      if (wrapped.has(client)) return client;
      wrapped.add(client);
      const counts = { roundTrips: 0, inFlight: 0 };
      const original = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        if (counts.inFlight === 0) counts.roundTrips += 1;
        counts.inFlight += 1;
        const q = args[0] as string | { text?: string };
        seen(typeof q === 'string' ? q : String(q.text), counts.roundTrips);
        const answered = original(...args) as Promise<unknown> | undefined;
        // a query given a callback (pool.query) answers through it, not a promise
        if (!answered) return void (counts.inFlight -= 1);
        return answered.finally(() => (counts.inFlight -= 1));
      };
      return client;
    },
  } as unknown as pg.Pool;
}
