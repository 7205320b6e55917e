/** A test reader of the Hub's SSE feed: parses `id:`/`data:` blocks and validates them against the wire contract. */
import { expect } from 'vitest';
import { HubEventSchema, type HubEvent } from '../../src-shared/hub-api.js';

export interface Stream {
  events: Array<{ id: number; event: HubEvent }>;
  raw: () => string;
  close(): void;
  until(pred: (evs: Array<{ id: number; event: HubEvent }>) => boolean, ms?: number): Promise<void>;
}

export async function openEventStream(baseUrl: string, tok: string, lastEventId?: number): Promise<Stream> {
  const ctrl = new AbortController();
  const res = await fetch(`${baseUrl}/agent/v1/events`, {
    headers: {
      authorization: `Bearer ${tok}`,
      ...(lastEventId !== undefined ? { 'last-event-id': String(lastEventId) } : {}),
    },
    signal: ctrl.signal,
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const events: Stream['events'] = [];
  let buf = '';
  let all = '';
  void (async () => {
    const dec = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = dec.decode(chunk, { stream: true });
        buf += text;
        all += text;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const id = /^id: (\d+)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id && data) events.push({ id: Number(id), event: HubEventSchema.parse(JSON.parse(data)) });
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return {
    events,
    raw: () => all,
    close: () => ctrl.abort(),
    async until(pred, ms = 10_000) {
      const end = Date.now() + ms;
      while (!pred(events)) {
        if (Date.now() > end)
          throw new Error(`events so far: ${JSON.stringify(events.map((e) => e.event.type))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
