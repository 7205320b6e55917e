/**
 * Every open SSE stream of this Hub process: the cap on concurrent streams per client, and the
 * timers all streams share — one heartbeat and one poll of the store for events other processes
 * (the operator CLI) appended, instead of two timers per stream. In-process changes wake streams
 * at once through the event bus; the poll only catches writes the bus cannot see.
 */
import type { ServerResponse } from 'node:http';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { createEventPages, type EventPages } from './event-pages.js';
import { openSseStream, type SseStream } from './sse-stream.js';

export interface StreamRegistry {
  /** Throws 429 `too_many_streams` when the client already has its maximum of open streams. */
  checkCapacity(clientId: string): void;
  /** Starts a stream on a response whose headers are written; it lives until either side closes. */
  open(clientId: string, res: ServerResponse, startAfter: number): SseStream;
  count(clientId?: string): number;
  /** Open streams per client (admin metrics). */
  countByClient(): Record<string, number>;
  closeAll(): void;
  readonly pages: EventPages;
}

export function createStreamRegistry(ctx: HubContext): StreamRegistry {
  const { settings, store, logger, bus } = ctx;
  const pages = createEventPages(store);
  const byClient = new Map<string, Set<SseStream>>();
  let total = 0;
  let heartbeat: NodeJS.Timeout | null = null;
  let poll: NodeJS.Timeout | null = null;
  let polledSeq: number | null = null;
  let polling = false;

  const pollOnce = async () => {
    if (polling) return;
    polling = true;
    try {
      if (polledSeq === null) {
        polledSeq = (await store.eventClientsAfter(Number.MAX_SAFE_INTEGER)).latest;
        return;
      }
      const { latest, clients } = await store.eventClientsAfter(polledSeq);
      polledSeq = Math.max(polledSeq, latest);
      for (const clientId of clients) if (byClient.has(clientId)) bus.notify(clientId);
    } catch (err) {
      logger.warn({ err: String(err) }, 'event poll failed; retried at the next interval');
    } finally {
      polling = false;
    }
  };

  const beat = () => {
    const now = Date.now();
    for (const set of byClient.values()) {
      for (const s of set) {
        const since = s.stalledSince();
        if (since !== null && now - since > settings.sseStallMs) {
          logger.info({ client_id: s.clientId }, 'closing an event stream whose reader stopped reading');
          s.close();
        } else s.heartbeat();
      }
    }
  };

  const startTimers = () => {
    if (heartbeat) return;
    heartbeat = setInterval(beat, settings.heartbeatMs);
    poll = setInterval(() => void pollOnce(), settings.eventPollMs);
    void pollOnce(); // sets the poll's starting point
  };
  const stopTimers = () => {
    if (heartbeat) clearInterval(heartbeat);
    if (poll) clearInterval(poll);
    heartbeat = poll = null;
    polledSeq = null;
  };

  return {
    pages,
    checkCapacity(clientId) {
      const open = byClient.get(clientId)?.size ?? 0;
      if (open >= settings.sseMaxStreamsPerClient) {
        throw new HubError(
          429,
          'too_many_streams',
          `this client already has ${open} open event streams (the limit is ${settings.sseMaxStreamsPerClient}); close one first`,
        );
      }
    },
    open(clientId, res, startAfter) {
      const stream = openSseStream(
        { store, pages, logger, nowMs: () => Date.now() },
        clientId,
        res,
        startAfter,
      );
      let set = byClient.get(clientId);
      if (!set) byClient.set(clientId, (set = new Set()));
      set.add(stream);
      total += 1;
      startTimers();
      const unsubscribe = bus.subscribe(clientId, stream.wake);
      void stream.closed.then(() => {
        unsubscribe();
        set.delete(stream);
        if (set.size === 0 && byClient.get(clientId) === set) byClient.delete(clientId);
        total -= 1;
        if (total === 0) stopTimers();
      });
      stream.wake();
      return stream;
    },
    count(clientId) {
      return clientId === undefined ? total : (byClient.get(clientId)?.size ?? 0);
    },
    countByClient: () => Object.fromEntries([...byClient].map(([id, set]) => [id, set.size])),
    closeAll() {
      for (const set of [...byClient.values()]) for (const s of [...set]) s.close();
    },
  };
}
