/**
 * What the Hub's busy connections to one database wait on: pg_stat_activity sampled every 5 ms on
 * `client` (wait events by type, or the state where there is none: "active" = running), counted
 * in connection-samples until `stop`.
 */
import type pg from 'pg';

export interface WaitSamples {
  waits: Map<string, number>;
  samples: number;
}

export function sampleWaits(client: pg.Client, db: string): { stop(): Promise<WaitSamples> } {
  const waits = new Map<string, number>();
  let samples = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await client.query<{ w: string; n: number }>(
        `SELECT COALESCE(wait_event_type || ':' || wait_event, state) AS w, COUNT(*)::int AS n
         FROM pg_stat_activity WHERE application_name = 'bailing-hub' AND datname = $1
         AND state <> 'idle' GROUP BY 1`,
        [db],
      );
      samples++;
      for (const r of rows) waits.set(r.w, (waits.get(r.w) ?? 0) + r.n);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      sampling = false;
      await sampler;
      return { waits, samples };
    },
  };
}
