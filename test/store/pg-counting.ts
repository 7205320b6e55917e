/** Counting the statements the PostgreSQL store's connections are given (its tests of statement counts). */
import type pg from 'pg';

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
