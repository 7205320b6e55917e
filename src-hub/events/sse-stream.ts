/**
 * One SSE stream: writes a client's events after `last` from the store, a page at a time, and
 * waits for the socket to drain before the next page (backpressure). A slow reader therefore
 * costs one page in its socket buffer, never its whole history: it falls behind and catches up
 * from the store. Live events are not queued in memory either — a wake-up only says "read again".
 * A reader behind the client's retention horizon gets `stream.reset` first (../events/retention.ts).
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { HubStore } from '../store/types.js';
import type { EventPages } from './event-pages.js';

export interface SseStream {
  readonly clientId: string;
  /** Read and write whatever is new (coalesced: a pump already running reads again once). */
  wake(): void;
  /** A heartbeat comment, unless the socket is still draining (then the stream is obviously alive). */
  heartbeat(): void;
  /** Since when the socket has been waiting to drain (null when it is not). */
  stalledSince(): number | null;
  close(): void;
  readonly closed: Promise<void>;
}

export interface SseStreamDeps {
  store: HubStore;
  pages: EventPages;
  logger: Logger;
  nowMs: () => number;
}

export function openSseStream(
  deps: SseStreamDeps,
  clientId: string,
  res: ServerResponse,
  startAfter: number,
): SseStream {
  let last = startAfter;
  let isClosed = false;
  let pumping = false;
  let again = false;
  let stalled: number | null = null;
  let drainWaiter: (() => void) | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));

  /** Writes; resolves at once, or when the socket drained (or closed) if its buffer is full. */
  const write = (chunk: string | Buffer): Promise<void> | null => {
    if (res.write(chunk)) return null;
    stalled = deps.nowMs();
    return new Promise<void>((resolve) => {
      drainWaiter = resolve;
      res.once('drain', () => {
        stalled = null;
        drainWaiter = null;
        resolve();
      });
    });
  };

  const pumpOnce = async (): Promise<void> => {
    for (;;) {
      const page = await deps.pages.read(clientId, last);
      if (isClosed) return;
      // Checked after the read: events pruned before or while it ran left a gap the page cannot
      // show. Below the horizon, the page is dropped and the reader told (stream.reset) instead.
      const horizon = await deps.store.eventHorizon(clientId);
      if (isClosed) return;
      if (last < horizon) {
        const reset = JSON.stringify({
          seq: horizon,
          type: 'stream.reset',
          reason: 'events_pruned',
          pruned_through: horizon,
        });
        last = horizon;
        const w = write(`id: ${horizon}\nevent: stream.reset\ndata: ${reset}\n\n`);
        if (w) await w;
        continue;
      }
      if (page.count === 0) return;
      last = page.lastSeq;
      const w = write(page.buf);
      if (w) await w;
      if (isClosed || !page.full) return;
      // one page per stream per event-loop turn: a socket that drains at once (its kernel buffer
      // had room) must not let this stream write its whole history before anything else runs
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };

  const pump = async () => {
    if (isClosed) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        await pumpOnce();
      } while (again && !isClosed);
    } catch (err) {
      deps.logger.warn({ err: String(err) }, 'event stream read failed');
    } finally {
      pumping = false;
    }
  };

  const close = () => {
    if (isClosed) return;
    isClosed = true;
    drainWaiter?.();
    drainWaiter = null;
    // a socket that is not draining would hold the end (and its buffer) forever: drop it
    if (stalled !== null) res.destroy();
    else res.end();
    resolveClosed();
  };
  res.on('close', close);
  res.on('error', close);

  return {
    clientId,
    wake: () => void pump(),
    heartbeat() {
      if (!isClosed && stalled === null && res.writableLength === 0) res.write(': heartbeat\n\n');
    },
    stalledSince: () => stalled,
    close,
    closed,
  };
}
