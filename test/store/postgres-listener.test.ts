// The LISTEN connection on PostgreSQL (src-hub/store/postgres/listener.ts), which tells an instance
// about the events its siblings append. What must hold: after its connection stops listening while
// staying open (DISCARD ALL on it, as a pooler's reset does) or is terminated by the server, a
// sibling's later events still reach the listener's subscriber, and the listener says 'some' once
// it listens again (the notifications missed meanwhile are read back from the events table).
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { listenForEvents, type EventListener } from '../../src-hub/store/postgres/listener.js';
import { clientConfig } from '../../src-hub/store/postgres/pool.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import type { HubStore } from '../../src-hub/store/types.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';

const INSERT = `INSERT INTO events (client_id, type, payload_json, at) VALUES ($1, 'test.event', '{}', '2026-01-01T00:00:00.000Z')`;

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Resolves once `check` holds, polling every 10 ms; fails after `ms`. */
const until = async (check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describeOnPostgres('the LISTEN connection on PostgreSQL', () => {
  /** A listener whose connections the test can reach, a sibling store, and a writer of events. */
  const setUp = async () => {
    const url = await createTestDatabase();
    const sibling: HubStore = await openPostgresStore({ url, sequenceIntervalMs: 600_000 });
    cleanups.push(() => sibling.close());
    const writer = new pg.Client({ connectionString: url });
    await writer.connect();
    cleanups.push(() => writer.end());
    const heard: Array<string[] | 'some'> = [];
    const errors: unknown[] = [];
    const connections: pg.Client[] = [];
    const listener: EventListener = listenForEvents(clientConfig(url), {
      onClients: (clients) => heard.push(clients),
      onError: (err) => errors.push(err),
      checkMs: 50,
      createClient: (config) => {
        const c = new pg.Client(config);
        connections.push(c);
        return c;
      },
    });
    cleanups.push(() => listener.stop());
    await until(() => heard.length > 0); // listening: 'some' once
    expect(heard).toEqual(['some']);
    /** The sibling appends an event of `client` and numbers it (its pass notifies). */
    const appendBySibling = async (client: string) => {
      await writer.query(INSERT, [client]);
      await sibling.flushEvents();
    };
    const heardClient = (client: string) => heard.some((h) => h !== 'some' && h.includes(client));
    return { heard, errors, connections, writer, appendBySibling, heardClient };
  };

  it('DISCARD ALL on its connection: it listens again on the same connection, says some, and hears later events', async () => {
    const { heard, connections, appendBySibling, heardClient } = await setUp();
    await appendBySibling('before');
    await until(() => heardClient('before'));

    const conn = connections[0]!;
    await conn.query('DISCARD ALL');
    heard.length = 0;
    // an event while it does not listen: its notification is lost; the 'some' that follows covers it
    await appendBySibling('while-deaf');
    await until(() => heard.includes('some'));
    await appendBySibling('after');
    await until(() => heardClient('after'));
    const listening = await conn.query<{ c: string }>('SELECT pg_listening_channels() AS c');
    expect(listening.rows.map((r) => r.c)).toEqual(['bailing_events']);
    expect(connections).toHaveLength(1); // the same connection, listening again
  });

  it('its connection terminated by the server: it connects again, says some, and hears later events', async () => {
    const { heard, errors, connections, writer, appendBySibling, heardClient } = await setUp();
    const first = connections[0]!;
    const pid = (first as unknown as { processID: number }).processID;
    await writer.query('SELECT pg_terminate_backend($1)', [pid]);
    heard.length = 0;
    await appendBySibling('while-gone');
    await until(() => heard.includes('some') && connections.length === 2);
    await appendBySibling('after');
    await until(() => heardClient('after'));
    expect(errors.length).toBeGreaterThan(0); // the lost connection was reported
  });
});
