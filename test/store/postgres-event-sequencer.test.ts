// The event sequencer on PostgreSQL (src-hub/store/postgres/event-sequencer.ts): events are
// inserted with no seq and numbered after commit, in commit order across instances. What must
// hold: events committed by writers on two connections, interleaved, against two store instances
// sharing the database, all get seqs 1..N with no gap and none twice, and an event committed after
// a pass is numbered after every event of that pass even when its id is smaller; and the pass's
// statement, with the pass's plan settings, reads the pending events through the partial index
// `events_unsequenced` by an index scan and reaches each event by its primary key — never a
// sequential or bitmap scan of `events`, which would visit every event numbered since the last
// VACUUM — even when the statistics make `events` look small. A pass is one statement (a function of
// its connection's own, pg_temp), or, for a database role that may not create one, four; a
// connection that lost the function (DISCARD TEMP) or its prepared statements (DISCARD ALL) still
// numbers the events in the pass a caller waits for, and reports no failure.
import pg from 'pg';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  createEventSequencer,
  PASS_FUNCTION,
  SEQUENCE,
  SEQUENCE_PLAN,
} from '../../src-hub/store/postgres/event-sequencer.js';
import { createPool } from '../../src-hub/store/postgres/pool.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import type { HubStore } from '../../src-hub/store/types.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { countingPool } from './pg-counting.js';

const INSERT = `INSERT INTO events (client_id, type, payload_json, at) VALUES ($1, 'test.event', $2, '2026-01-01T00:00:00.000Z') RETURNING id`;

describeOnPostgres('event sequencer on PostgreSQL', () => {
  let url: string;
  let stores: HubStore[];
  let conns: pg.Client[];

  beforeEach(async () => {
    url = await createTestDatabase();
    // a long timer: only the passes these tests ask for run
    stores = [
      await openPostgresStore({ url, sequenceIntervalMs: 600_000 }),
      await openPostgresStore({ url, sequenceIntervalMs: 600_000 }),
    ];
    conns = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
    for (const c of conns) await c.connect();
  });
  afterEach(async () => {
    for (const c of conns) await c.end();
    for (const s of stores) await s.close();
  });

  const seqs = async (): Promise<Array<{ id: number; seq: number | null; payload_json: string }>> =>
    (
      await conns[0]!.query<{ id: string; seq: string | null; payload_json: string }>(
        'SELECT id, seq, payload_json FROM events ORDER BY id',
      )
    ).rows.map((r) => ({
      id: Number(r.id),
      seq: r.seq === null ? null : Number(r.seq),
      payload_json: r.payload_json,
    }));

  it('concurrent writers on two connections and passes of two instances: seqs 1..N, none twice, in commit order', async () => {
    const [a, b] = conns as [pg.Client, pg.Client];
    // a takes the smaller id but commits after b's event was numbered: it must be numbered after it
    await a.query('BEGIN');
    const early = (await a.query<{ id: string }>(INSERT, ['c1', '"a-early"'])).rows[0]!.id;
    const late = (await b.query<{ id: string }>(INSERT, ['c2', '"b-late"'])).rows[0]!.id;
    expect(Number(early)).toBeLessThan(Number(late));
    await stores[0]!.flushEvents();
    await a.query('COMMIT');
    await stores[1]!.flushEvents();
    let rows = await seqs();
    expect(rows.find((r) => r.payload_json === '"b-late"')?.seq).toBe(1);
    expect(rows.find((r) => r.payload_json === '"a-early"')?.seq).toBe(2);

    // then many writes on both connections in interleaved transactions, passes on both instances
    const write = async (c: pg.Client, tag: string, n: number) => {
      for (let i = 0; i < n; i++) {
        await c.query('BEGIN');
        await c.query(INSERT, [tag, JSON.stringify(`${tag}-${i}`)]);
        if (i % 3 === 0) await c.query(INSERT, [tag, JSON.stringify(`${tag}-${i}-second`)]);
        await c.query('COMMIT');
        if (i % 4 === 0) void stores[i % 2]!.flushEvents();
      }
    };
    const passes = (async () => {
      for (let i = 0; i < 20; i++) await stores[i % 2]!.flushEvents();
    })();
    await Promise.all([write(a, 'c1', 60), write(b, 'c2', 60), passes]);
    await stores[0]!.flushEvents();
    await stores[1]!.flushEvents();

    rows = await seqs();
    expect(rows.length).toBe(2 + 2 * (60 + 20));
    expect(rows.every((r) => r.seq !== null)).toBe(true);
    const numbers = rows.map((r) => r.seq!).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    // each connection commits its events in id order, so their seqs follow its ids
    for (const tag of ['c1', 'c2']) {
      const own = rows.filter((r) => r.payload_json.startsWith(`"${tag}-`));
      const bySeq = [...own].sort((x, y) => x.seq! - y.seq!).map((r) => r.id);
      expect(bySeq).toEqual(own.map((r) => r.id));
    }
    const counter = await conns[0]!.query<{ last_seq: string }>('SELECT last_seq FROM event_counter');
    expect(Number(counter.rows[0]!.last_seq)).toBe(rows.length);
    // what the stores serve by seq is the same
    const listed = await stores[1]!.listEvents('c2', 0, 10_000);
    expect(listed.map((e) => e.seq)).toEqual(
      rows
        .filter((r) => r.payload_json.startsWith('"c2-') || r.payload_json === '"b-late"')
        .map((r) => r.seq)
        .sort((x, y) => x! - y!),
    );
  });

  it('a pass is one statement, its own transaction; a role without the TEMPORARY privilege runs it as four, with the same seqs', async () => {
    const [a] = conns as [pg.Client];
    // a role of this database that may use its tables but create no temporary objects
    const role = `hub_no_temp_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const db = new URL(url).pathname.slice(1);
    await a.query(`CREATE ROLE ${role} LOGIN`);
    await a.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`);
    await a.query(`REVOKE TEMPORARY ON DATABASE ${db} FROM PUBLIC`);
    const roleUrl = new URL(url);
    roleUrl.username = role;
    const sent: string[] = [];
    const pools = [url, roleUrl.toString()].map((u) =>
      createPool({ url: u, max: 1, onIdleError: () => undefined }),
    );
    const sequencers = pools.map((pool) =>
      createEventSequencer(
        countingPool(pool, (text) => sent.push(text)),
        {
          onSequenced: () => undefined,
          onError: (err) => {
            throw err;
          },
          intervalMs: 600_000,
        },
      ),
    );
    try {
      for (let i = 0; i < 6; i++) {
        await a.query(INSERT, ['c1', JSON.stringify(`e-${i}`)]);
        sent.length = 0;
        await sequencers[i % 2]!.sequenceNow();
        if (i % 2 === 0)
          // the Hub's role: the function (created by the connection's first pass), then the call alone
          expect(sent.filter((t) => !t.startsWith('CREATE OR REPLACE FUNCTION'))).toEqual([
            `SELECT clients, numbered, marked FROM ${PASS_FUNCTION}()`,
          ]);
        // without TEMPORARY: refused once, then BEGIN, the lock, the numbering, COMMIT
        else
          expect(sent.slice(-4)).toEqual([
            'BEGIN',
            expect.stringContaining('pg_advisory_xact_lock'),
            SEQUENCE,
            'COMMIT',
          ]);
      }
      expect((await seqs()).map((r) => [r.payload_json, r.seq])).toEqual(
        Array.from({ length: 6 }, (_, i) => [`"e-${i}"`, i + 1]),
      );
    } finally {
      for (const q of sequencers) await q.stop();
      for (const pool of pools) await pool.end();
    }
  });

  for (const discard of ['DISCARD TEMP', 'DISCARD ALL'] as const)
    it(`after ${discard} on the pass's connection the next pass recreates its function and numbers the events, reporting nothing`, async () => {
      const [a] = conns as [pg.Client];
      const pool = createPool({ url, max: 1, onIdleError: () => undefined });
      const sent: string[] = [];
      const errors: unknown[] = [];
      const sequencer = createEventSequencer(
        countingPool(pool, (text) => sent.push(text)),
        { onSequenced: () => undefined, onError: (err) => errors.push(err), intervalMs: 600_000 },
      );
      try {
        await a.query(INSERT, ['c1', '"before"']);
        await sequencer.sequenceNow();
        expect(sent.filter((t) => t.startsWith('CREATE OR REPLACE FUNCTION'))).toHaveLength(1);
        // the pool's one connection (the pass's) loses its temporary objects (and with DISCARD ALL
        // its prepared statements), as a connection pooler's reset does
        const client = await pool.connect();
        await client.query(discard);
        client.release();
        for (let i = 0; i < 3; i++) {
          await a.query(INSERT, ['c1', JSON.stringify(`after-${i}`)]);
          await sequencer.sequenceNow();
          // sequenced when the pass it waited for is done (flushEvents' promise)
          expect((await seqs()).map((r) => [r.payload_json, r.seq])).toEqual([
            ['"before"', 1],
            ...Array.from({ length: i + 1 }, (_, k) => [`"after-${k}"`, k + 2]),
          ]);
        }
        expect(errors).toEqual([]);
        // recreated once, and the later passes are one statement again
        expect(sent.filter((t) => t.startsWith('CREATE OR REPLACE FUNCTION'))).toHaveLength(2);
        sent.length = 0;
        await a.query(INSERT, ['c1', '"last"']);
        await sequencer.sequenceNow();
        expect(sent).toEqual([`SELECT clients, numbered, marked FROM ${PASS_FUNCTION}()`]);
      } finally {
        await sequencer.stop();
        await pool.end();
      }
    });

  it("the pass's statement reads the pending events by an index scan of events_unsequenced and each event by its key", async () => {
    const [a, b] = conns as [pg.Client, pg.Client];
    // 2,000 numbered events (their old versions stay in the partial index until VACUUM), no
    // statistics yet: the planner's guess of a table where a few events are unsequenced
    await a.query(
      `INSERT INTO events (client_id, type, payload_json, at)
         SELECT 'c1', 'test.event', '{}', '2026-01-01T00:00:00.000Z' FROM generate_series(1, 2000)`,
    );
    await stores[0]!.flushEvents();
    await a.query(INSERT, ['c1', '"pending"']);
    await b.query('BEGIN');
    try {
      await b.query(SEQUENCE_PLAN);
      const plan = (await b.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${SEQUENCE}`)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      expect(plan).toMatch(/Index (Only )?Scan using events_unsequenced on events/);
      expect(plan).toMatch(/Index Scan using events_pkey on events e/);
      expect(plan).not.toMatch(/Seq Scan on events|Bitmap/);
      // a path the settings take away is priced at the disable cost: never JIT-compiled for it
      expect(plan).not.toMatch(/JIT:/);
    } finally {
      await b.query('ROLLBACK');
    }
    // and the settings end with the pass's transaction
    const shown = await b.query<{ enable_seqscan: string }>('SHOW enable_seqscan');
    expect(shown.rows[0]!.enable_seqscan).toBe('on');
  });
});
