/**
 * GET /agent/v1/events as Server-Sent Events (`id:` seq, `event:` type, `data:` HubEvent JSON).
 * Reconnects after a dropped stream with `Last-Event-ID`, so no event is skipped; stops for good
 * on 401/403 or when closed. Each event is validated against HubEventSchema; an invalid one is
 * reported through onError and skipped.
 */
import { HubEventSchema, type HubEvent } from '../../src-shared/hub-api.js';
import type { EventStreamState } from '../../src-shared/states.js';
import { HubClientError } from './errors.js';
import type { HttpCore } from './http.js';

export interface SubscribeOptions {
  lastEventId?: string | number | null;
  signal?: AbortSignal;
  onEvent: (event: HubEvent) => void;
  onError?: (err: Error) => void;
  onStatus?: (status: EventStreamState) => void;
  /** Delay before reconnecting (ms); a server `retry:` field overrides it. Default 1000. */
  reconnectDelayMs?: number;
}

export interface Subscription {
  close(): void;
  lastEventId(): string | null;
  /** Resolves when the subscription has stopped (closed, aborted or refused). */
  done: Promise<void>;
}

interface RawEvent {
  id: string | null;
  event: string;
  data: string;
}

/** Incremental SSE parser (WHATWG event-stream rules for id, event, data, retry and comments). */
export function createSseParser(
  onRaw: (ev: RawEvent) => void,
  onRetry: (ms: number) => void,
): (chunk: string) => void {
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | null = null;
  return (chunk: string) => {
    buffer += chunk;
    for (;;) {
      const m = /\r\n|\r|\n/.exec(buffer);
      if (!m) break;
      const line = buffer.slice(0, m.index);
      buffer = buffer.slice(m.index + m[0].length);
      if (line === '') {
        if (data.length > 0) onRaw({ id, event: event || 'message', data: data.join('\n') });
        data = [];
        event = '';
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
      else if (field === 'id' && !value.includes('\0')) id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
    }
  };
}

export function subscribeEvents(http: HttpCore, opts: SubscribeOptions): Subscription {
  const controller = new AbortController();
  if (opts.signal) {
    if (opts.signal.aborted) controller.abort();
    else opts.signal.addEventListener('abort', () => controller.abort(), { once: true });
  }
  let last: string | null =
    opts.lastEventId === undefined || opts.lastEventId === null ? null : String(opts.lastEventId);
  let delay = opts.reconnectDelayMs ?? 1000;
  let current: ReadableStreamDefaultReader<Uint8Array> | null = null;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      controller.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });

  async function once(): Promise<'again' | 'stop'> {
    const headers: Record<string, string> = {};
    if (last !== null) headers['last-event-id'] = last;
    const res = await http.open('/agent/v1/events', headers, controller.signal);
    opts.onStatus?.('open');
    if (!res.body) return 'again';
    const decoder = new TextDecoder();
    const parse = createSseParser(
      (raw) => {
        if (raw.id !== null) last = raw.id;
        let value: unknown;
        try {
          value = JSON.parse(raw.data);
        } catch {
          opts.onError?.(new Error(`event ${raw.id ?? '?'} is not JSON`));
          return;
        }
        const parsed = HubEventSchema.safeParse(value);
        if (!parsed.success || parsed.data.type !== raw.event) {
          opts.onError?.(new Error(`event ${raw.id ?? '?'} does not match the contract`));
          return;
        }
        opts.onEvent(parsed.data);
      },
      (ms) => {
        delay = ms;
      },
    );
    const reader = res.body.getReader();
    current = reader;
    // Closing cancels the read directly: an aborted fetch does not always end a pending body read.
    if (controller.signal.aborted) await reader.cancel().catch(() => {});
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parse(decoder.decode(value, { stream: true }));
      }
    } finally {
      current = null;
      reader.releaseLock();
    }
    return 'again';
  }

  const done = (async () => {
    while (!controller.signal.aborted) {
      try {
        await once();
      } catch (err) {
        if (controller.signal.aborted) break;
        if (err instanceof HubClientError && (err.status === 401 || err.status === 403)) {
          opts.onError?.(err);
          break;
        }
        opts.onError?.(err instanceof Error ? err : new Error('event stream failed'));
      }
      if (controller.signal.aborted) break;
      opts.onStatus?.('reconnecting');
      await wait(delay);
    }
    opts.onStatus?.('closed');
  })();

  return {
    close: () => {
      controller.abort();
      void current?.cancel().catch(() => {});
    },
    lastEventId: () => last,
    done,
  };
}
