/**
 * Pages of a client's events, encoded once as SSE text and shared by every stream that reads them.
 *
 * A stream replays history one page at a time (at most `maxEvents` events / about `maxBytes` of
 * payload text, read from the store without parsing). Many streams of one client usually read the
 * same pages — 200 readers connecting without Last-Event-ID all start at 0 — so a page is read from
 * the store once (concurrent reads of one page share one store read) and its Buffer is written to
 * every socket: memory is bounded by the page cache (`cacheBytes`), not by history length times
 * subscribers. Only full pages are cached: their content can never change (seqs are assigned in
 * commit order and events are immutable; pruning is handled by the stream's horizon check).
 */
import type { HubStore, StoredEventText } from '../store/types.js';

export interface EventPage {
  /** `id:`/`event:`/`data:` blocks of every event of the page, ready to write. */
  buf: Buffer;
  count: number;
  /** Seq of the page's last event (the `afterSeq` it was read from when empty). */
  lastSeq: number;
  /** The page stopped at a bound: more events may follow at once. */
  full: boolean;
}

export interface EventPageLimits {
  maxEvents: number;
  maxBytes: number;
  /** Bytes of encoded full pages kept for other readers (least recently used pages go first). */
  cacheBytes: number;
}

export const DEFAULT_PAGE_LIMITS: EventPageLimits = {
  maxEvents: 256,
  maxBytes: 256 * 1024,
  cacheBytes: 32 * 1024 * 1024,
};

export interface EventPages {
  read(clientId: string, afterSeq: number): Promise<EventPage>;
  stats(): { pages: number; bytes: number };
}

/** One SSE block: the data line is `{"seq":N,...payload}` built from the stored text, not re-serialised. */
export function encodeEvent(e: StoredEventText): string {
  const rest = e.payload_json.trim();
  const data = rest === '{}' ? `{"seq":${e.seq}}` : `{"seq":${e.seq},${rest.slice(1)}`;
  return `id: ${e.seq}\nevent: ${e.type}\ndata: ${data}\n\n`;
}

export function createEventPages(store: HubStore, limits: EventPageLimits = DEFAULT_PAGE_LIMITS): EventPages {
  const cache = new Map<string, EventPage>();
  const loading = new Map<string, Promise<EventPage>>();
  let cachedBytes = 0;

  const remember = (key: string, page: EventPage) => {
    if (page.buf.length > limits.cacheBytes) return;
    cache.set(key, page);
    cachedBytes += page.buf.length;
    for (const [oldKey, old] of cache) {
      if (cachedBytes <= limits.cacheBytes) break;
      cache.delete(oldKey);
      cachedBytes -= old.buf.length;
    }
  };

  const load = async (clientId: string, afterSeq: number): Promise<EventPage> => {
    const events = await store.readEventPage(clientId, afterSeq, {
      maxEvents: limits.maxEvents,
      maxBytes: limits.maxBytes,
    });
    const bytes = events.reduce((n, e) => n + e.payload_json.length, 0);
    return {
      buf: Buffer.from(events.map(encodeEvent).join(''), 'utf8'),
      count: events.length,
      lastSeq: events.at(-1)?.seq ?? afterSeq,
      full: events.length >= limits.maxEvents || bytes >= limits.maxBytes,
    };
  };

  return {
    read(clientId, afterSeq) {
      const key = `${clientId}\u0000${afterSeq}`;
      const hit = cache.get(key);
      if (hit) {
        // move to the most recently used end
        cache.delete(key);
        cache.set(key, hit);
        return Promise.resolve(hit);
      }
      const pending = loading.get(key);
      if (pending) return pending;
      const p = load(clientId, afterSeq)
        .then((page) => {
          if (page.full) remember(key, page);
          return page;
        })
        .finally(() => loading.delete(key));
      loading.set(key, p);
      return p;
    },
    stats: () => ({ pages: cache.size, bytes: cachedBytes }),
  };
}
