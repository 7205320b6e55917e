/**
 * LISTEN on `bailing_events` over a dedicated connection: every instance hears which clients have
 * new events (from any instance, and from the operator CLI) and wakes their streams at once. A
 * lost connection is re-established with backoff; meanwhile the SSE streams' shared store poll
 * still finds new events, so a missed notification only delays delivery, never loses it.
 */
import pg from 'pg';
import type { ClientConfig } from 'pg';
import { EVENTS_CHANNEL } from './event-sequencer.js';

export interface EventListener {
  stop(): Promise<void>;
}

export function listenForEvents(
  config: ClientConfig,
  opts: { onClients(clients: string[] | 'some'): void; onError(err: unknown): void },
): EventListener {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  let backoffMs = 100;

  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client(config);
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
      await c.query(`LISTEN ${EVENTS_CHANNEL}`);
      backoffMs = 100;
      opts.onClients('some'); // events may have arrived while not listening
    } catch (err) {
      opts.onError(err);
      reconnect(c);
    }
  };
  const reconnect = (c: pg.Client) => {
    if (stopped || client !== c || retry) return;
    client = null;
    void c.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = null;
      void connect();
    }, backoffMs);
    retry.unref();
    backoffMs = Math.min(backoffMs * 2, 5_000);
  };
  void connect();
  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
