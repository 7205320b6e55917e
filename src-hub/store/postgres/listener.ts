/**
 * LISTEN on `bailing_events` over a dedicated connection: every instance hears which clients have
 * new events (from any instance, and from the operator CLI) and wakes their streams at once. A
 * lost connection is re-established with backoff; meanwhile the SSE streams' shared store poll
 * still finds new events, so a missed notification only delays delivery, never loses it.
 *
 * A connection can also stop listening while it stays open: `DISCARD ALL` (or `UNLISTEN *`) on
 * it, or a pooler that resets the server connection behind it or hands the client another one.
 * Nothing tells the client; its notifications just stop. So the connection asks the server every
 * `checkMs` whether it still listens (`pg_listening_channels()`), and LISTENs again when it does
 * not; a check not answered within `stallMs` counts as a lost connection. Every time listening
 * (re)starts the listener says `'some'`: the notifications missed meanwhile are not known, so
 * every stream reads what it missed from the events table (their ids resume it exactly).
 */
import pg from 'pg';
import type { ClientConfig } from 'pg';
import { EVENTS_CHANNEL } from './event-sequencer.js';

export interface EventListener {
  stop(): Promise<void>;
}

export interface ListenerOptions {
  onClients(clients: string[] | 'some'): void;
  onError(err: unknown): void;
  /** How often the connection checks that it still listens (default 1 s). */
  checkMs?: number;
  /** A check unanswered this long means the connection is lost (default 10 s). */
  stallMs?: number;
  /** Makes the connection (tests keep a handle on it). */
  createClient?(config: ClientConfig): pg.Client;
}

/** Whether this connection still listens on the channel. */
const LISTENING_SQL = 'SELECT $1::text = ANY (ARRAY(SELECT pg_listening_channels())) AS listening';

export function listenForEvents(config: ClientConfig, opts: ListenerOptions): EventListener {
  const checkMs = opts.checkMs ?? 1_000;
  const stallMs = opts.stallMs ?? 10_000;
  const createClient = opts.createClient ?? ((c: ClientConfig) => new pg.Client(c));
  let stopped = false;
  let client: pg.Client | null = null;
  /** The connection listening now (connected, LISTEN answered): the one the checks ask. */
  let listening: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let backoffMs = 100;
  /** When the check in flight was sent (null: none is). */
  let checkSince: number | null = null;

  const listen = async (c: pg.Client) => {
    await c.query(`LISTEN ${EVENTS_CHANNEL}`);
    if (client !== c) return;
    listening = c;
    opts.onClients('some'); // events may have arrived while not listening
  };
  const connect = async () => {
    if (stopped) return;
    const c = createClient({ ...config, application_name: 'bailing-hub-listen' });
    client = c;
    c.on('notification', (n) => {
      if (n.channel !== EVENTS_CHANNEL) return;
      const payload = n.payload ?? '';
      opts.onClients(payload === '*' || payload === '' ? 'some' : payload.split(','));
    });
    c.on('error', (err) => {
      opts.onError(err);
      reconnect(c);
    });
    c.on('end', () => reconnect(c));
    try {
      await c.connect();
      await listen(c);
      backoffMs = 100;
    } catch (err) {
      opts.onError(err);
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client) => {
    if (stopped || client !== c || retry) return;
    client = listening = null;
    checkSince = null;
    void c.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, backoffMs);
    retry.unref();
    backoffMs = Math.min(backoffMs * 2, 5_000);
  };
  const check = async () => {
    const c = listening;
    if (!c) return;
    if (checkSince !== null) {
      if (Date.now() - checkSince > stallMs) reconnect(c);
      return;
    }
    checkSince = Date.now();
    try {
      const { rows } = await c.query<{ listening: boolean }>(LISTENING_SQL, [EVENTS_CHANNEL]);
      if (listening !== c) return;
      checkSince = null;
      if (rows[0]?.listening !== true) {
        listening = null;
        await listen(c);
      }
    } catch (err) {
      if (client !== c) return;
      opts.onError(err);
      reconnect(c);
    }
  };
  const checks = setInterval(() => void check(), checkMs);
  checks.unref();
  void connect();
  return {
    async stop() {
      stopped = true;
      clearInterval(checks);
      if (retry) clearTimeout(retry);
      const c = client;
      client = listening = null;
      await c?.end().catch(() => undefined);
    },
  };
}
