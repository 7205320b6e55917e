// Closing an event subscription ends it even while the Hub keeps the stream open and silent: the
// pending body read is cancelled, so the app's orderly shutdown cannot hang on it (seen under load
// before the explicit cancel). A real HTTP server on 127.0.0.1 that never ends its SSE response.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../src-main/hub-client/index.js';

let server: Server;
let url: string;
const open: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/agent/v1/events') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write(': connected\n\n');
    open.push(res); // never ended by the server
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('event subscription close', () => {
  it.each([1, 2, 3, 4, 5])('ends a subscription whose stream stays open (round %i)', async () => {
    const statuses: string[] = [];
    const sub = createHubClient({ baseUrl: url, token: 'bdc_test.token' }).subscribeEvents({
      reconnectDelayMs: 50,
      onEvent: () => {},
      onStatus: (s) => statuses.push(s),
    });
    for (const until = Date.now() + 5_000; !statuses.includes('open') && Date.now() < until;) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(statuses).toContain('open');
    sub.close();
    await sub.done; // the test's own timeout fails it if this never settles
    expect(statuses.at(-1)).toBe('closed');
  });
});
