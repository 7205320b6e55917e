// SSE streams under many readers: a cap per client (429 too_many_streams), one shared poll of the
// store for other processes' writes (not a timer per stream), and a reader that stops reading is
// held to one page by backpressure and closed once it stalls.
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HubErrorBodySchema, HubMetricsSchema } from '../../src-shared/hub-api.js';
import { openHubContext } from '../../src-hub/index.js';
import { changeTask } from '../../src-hub/tasks/service.js';
import type { HubStore } from '../../src-hub/store/types.js';
import { authorizationEvent, seedEvents, startEnv, type HubEnv } from './helpers.js';
import { openEventStream, type Stream } from './sse-reader.js';
import { openStoreFor, storeFor } from './store-mode.js';

let env: HubEnv | null = null;
const streams: Stream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  await env?.close();
  env = null;
});

const createTask = async (e: HubEnv) =>
  (
    await e.agent('POST', '/agent/v1/tasks', {
      title: 'cap',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 3,
      in_flight_limit: 1,
    })
  ).body.task_id as string;

describe('event streams', () => {
  it('caps concurrent streams per client with a coded 429; a closed stream frees its slot; other clients are unaffected', async () => {
    env = await startEnv({ settings: { sseMaxStreamsPerClient: 3 } });
    for (let i = 0; i < 3; i++) streams.push(await openEventStream(env.hub.url, env.desk));
    const refused = await fetch(`${env.hub.url}/agent/v1/events`, {
      headers: { authorization: `Bearer ${env.desk}` },
    });
    expect(refused.status).toBe(429);
    const body = HubErrorBodySchema.parse(await refused.json());
    expect(body.error).toBe('too_many_streams');
    expect(body.message).toContain('3');

    streams.push(await openEventStream(env.hub.url, env.other)); // another client has its own slots

    streams.shift()!.close();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const r = await fetch(`${env.hub.url}/agent/v1/events`, {
        headers: { authorization: `Bearer ${env.desk}` },
      });
      if (r.status === 200) {
        await r.body?.cancel();
        break;
      }
      expect(r.status).toBe(429);
      await r.body?.cancel();
      if (Date.now() > deadline) throw new Error('the closed stream never freed its slot');
      await new Promise((res) => setTimeout(res, 20));
    }
  });

  it("one shared poll picks up another process's writes for every stream (not one poll per stream)", async () => {
    let polls = 0;
    const counting = (store: HubStore): HubStore =>
      new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'eventClientsAfter') polls += 1;
          return Reflect.get(target, prop, receiver) as unknown;
        },
      });
    const base = await startEnv();
    const { dataDir } = base;
    await base.hub.close();
    env = base;
    await env.restart({
      store: counting(await openStoreFor(dataDir)),
      settings: { eventPollMs: 100 },
    });
    const taskId = await createTask(env);
    for (let i = 0; i < 10; i++) streams.push(await openEventStream(env.hub.url, env.desk));
    const before = polls;
    await new Promise((res) => setTimeout(res, 1_000));
    const during = polls - before;
    // one timer for ten streams: about ten polls a second, never ten per stream
    expect(during).toBeGreaterThanOrEqual(3);
    expect(during).toBeLessThanOrEqual(20);

    // the operator CLI's path: another HubContext on the same data directory, no HTTP, no bus
    const cli = await openHubContext(await storeFor(dataDir));
    try {
      await changeTask(cli.ctx, null, taskId, 'pause', 'operator:test');
    } finally {
      await cli.ctx.store.close();
    }
    for (const s of streams)
      await s.until((evs) =>
        evs.some((e) => e.event.type === 'task.changed' && e.event.task.state === 'paused'),
      );

    for (const s of streams.splice(0)) s.close();
    await new Promise((res) => setTimeout(res, 300));
    const idle = polls;
    await new Promise((res) => setTimeout(res, 500));
    expect(polls - idle).toBe(0); // no streams, no polling
  });

  it('a reader that stops reading gets one page at a time and is closed when it stalls; others keep streaming', async () => {
    env = await startEnv({ settings: { heartbeatMs: 100, sseStallMs: 600 } });
    // a history well past one page and well past what the sockets' kernel buffers hold
    const events = 6_000;
    seedEvents(env.dataDir, 'desk', events, authorizationEvent(env.hub.hubId, 'x'.repeat(4_000)));

    const url = new URL(env.hub.url);
    const socket = connect(Number(url.port), url.hostname);
    let received = 0;
    await new Promise<void>((res) => socket.once('connect', () => res()));
    socket.write(
      `GET /agent/v1/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${env.desk}\r\n\r\n`,
    );
    socket.once('data', (chunk: Buffer) => {
      received += chunk.length;
      socket.pause(); // stop reading after the first bytes
    });
    const openStreams = async () =>
      HubMetricsSchema.parse((await env!.admin('GET', '/admin/v1/metrics')).body).event_streams;
    const deadline = Date.now() + 15_000;
    while ((await openStreams()).desk === undefined) {
      if (Date.now() > deadline) throw new Error('the stream never opened');
      await new Promise((res) => setTimeout(res, 20));
    }
    const reader = await openEventStream(env.hub.url, env.other);
    streams.push(reader);
    expect(await openStreams()).toEqual({ desk: 1, other: 1 });
    // the Hub closes the stream whose reader stopped reading; the other one stays
    while ((await openStreams()).desk !== undefined) {
      if (Date.now() > deadline) throw new Error('the Hub never closed the stalled stream');
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(await openStreams()).toEqual({ other: 1 });
    const closedByHub = new Promise<void>((res) => socket.once('close', () => res()));
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('error', () => undefined);
    socket.resume();
    await closedByHub;
    const history = events * 4_000;
    expect(received).toBeLessThan(history / 2); // backpressure: the Hub stopped writing, it did not buffer it all

    // the Hub still serves: a fresh full replay of the same history arrives complete and in order
    const full = await openEventStream(env.hub.url, env.desk, 0);
    streams.push(full);
    await full.until((evs) => evs.length >= events, 30_000);
    const ids = full.events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(events);
  });
});
