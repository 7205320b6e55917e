// Event retention: the SSE feed's events table is pruned by count and by age per client; a stream
// resuming below the client's horizon is told (stream.reset) instead of silently skipping events;
// receipts and the audit are never pruned; a failing pruning pass never stops the Hub.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../src-shared/hub-api.js';
import { HubConfigSchema } from '../../src-hub/config.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { startEnv, type HubEnv } from './helpers.js';
import { seedStoredEvents } from './store-mode.js';
import { openEventStream } from './sse-reader.js';

let env: HubEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const DAY = 24 * 3600_000;
type Reset = Extract<HubEvent, { type: 'stream.reset' }>;

async function threeEdits(e: HubEnv, tok?: string): Promise<string[]> {
  const ids: string[] = [];
  for (const n of [1, 2, 3]) {
    const r = await e.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: `edit ${n}` },
      tok,
    });
    expect(r.status).toBe(201);
    ids.push(r.body.invocation_id as string);
  }
  await e.hub.store.flushEvents(); // every event of these calls has its seq
  return ids;
}

const seqsOf = (e: HubEnv, client: string) =>
  e.sql<{ seq: number }>('SELECT seq FROM events WHERE client_id = ? ORDER BY seq', client).map((r) => r.seq);

describe('event retention', () => {
  it('keeps the newest N per client; a stream resuming below the horizon gets stream.reset first, then only what is left', async () => {
    env = await startEnv();
    const ids = await threeEdits(env);
    await threeEdits(env, env.other);
    const before = seqsOf(env, 'desk');
    const otherBefore = seqsOf(env, 'other');
    const auditBefore = env.sql('SELECT seq FROM audit').length;
    expect(before.length).toBeGreaterThan(3);

    const result = await env.hub.store.pruneEvents({ before: new Date(0).toISOString(), keepPerClient: 2 });
    const kept = before.slice(-2);
    const horizon = before[before.length - 3] ?? -1;
    expect(result.deleted).toBe(before.length - 2 + otherBefore.length - 2);
    expect(seqsOf(env, 'desk')).toEqual(kept);
    expect(await env.hub.store.eventHorizon('desk')).toBe(horizon);
    expect(await env.hub.store.eventHorizon('nobody')).toBe(0);

    const fromStart = await openEventStream(env.hub.url, env.desk, 0);
    await fromStart.until((evs) => evs.length >= 3);
    fromStart.close();
    expect(fromStart.events[0]).toEqual({
      id: horizon,
      event: {
        seq: horizon,
        type: 'stream.reset',
        reason: 'events_pruned',
        pruned_through: horizon,
      } satisfies Reset,
    });
    expect(fromStart.events.slice(1).map((e) => e.id)).toEqual(kept);

    // A reader that had already seen up to the horizon (or beyond) missed nothing: no reset.
    const caughtUp = await openEventStream(env.hub.url, env.desk, horizon);
    await caughtUp.until((evs) => evs.length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    caughtUp.close();
    expect(caughtUp.events.map((e) => e.event.type)).not.toContain('stream.reset');
    expect(caughtUp.events.map((e) => e.id)).toEqual(kept);

    // Receipts and the audit are not the feed: they are all still there.
    for (const id of ids)
      expect((await env.agent('GET', `/agent/v1/invocations/${id}`)).body.state).toBe('succeeded');
    expect(env.sql('SELECT seq FROM audit').length).toBe(auditBefore);
  });

  it('a live stream that has seen everything gets no reset when what it saw is pruned', async () => {
    env = await startEnv();
    const s = await openEventStream(env.hub.url, env.desk, 0);
    await threeEdits(env);
    const all = seqsOf(env, 'desk');
    await s.until((evs) => evs.length === all.length);
    await env.hub.store.pruneEvents({
      before: new Date(Date.now() + DAY).toISOString(),
      keepPerClient: 1_000,
    });
    expect(await env.hub.store.eventHorizon('desk')).toBe(all[all.length - 1]);
    await threeEdits(env);
    const fresh = seqsOf(env, 'desk');
    await s.until((evs) => evs.length === all.length + fresh.length);
    s.close();
    expect(s.events.map((e) => e.id)).toEqual([...all, ...fresh]);
  });

  it('a live stream whose unread events are pruned before it reads them is told (stream.reset), never skips silently', async () => {
    // No polling: this stream reads only when woken, so events can be written and pruned in between.
    env = await startEnv({ settings: { eventPollMs: 600_000 } });
    const s = await openEventStream(env.hub.url, env.desk, 0);
    await new Promise((r) => setTimeout(r, 100));
    // written straight into the store, so nothing wakes the stream (a PostgreSQL store's own
    // appends would notify it at once)
    const payload = JSON.stringify({ type: 'authorization.changed', authorization: {} });
    seedStoredEvents(env.dataDir, 'desk', 3, 'authorization.changed', payload, new Date().toISOString());
    const unread = seqsOf(env, 'desk');
    await env.hub.store.pruneEvents({
      before: new Date(Date.now() + DAY).toISOString(),
      keepPerClient: 1_000,
    });
    env.hub.ctx.bus.notify('desk');
    await s.until((evs) => evs.length >= 1);
    await threeEdits(env);
    const fresh = seqsOf(env, 'desk');
    await s.until((evs) => evs.length === 1 + fresh.length);
    s.close();
    const horizon = unread[unread.length - 1] ?? -1;
    expect(s.events[0]?.event).toEqual({
      seq: horizon,
      type: 'stream.reset',
      reason: 'events_pruned',
      pruned_through: horizon,
    });
    expect(s.events.slice(1).map((e) => e.id)).toEqual(fresh);
  });

  it('prunes by age at start (config event_retention_days) and streams continue after the horizon', async () => {
    env = await startEnv();
    await threeEdits(env);
    const old = seqsOf(env, 'desk');
    const later = new Date(Date.now() + 31 * DAY);
    await env.restart({ now: () => later, config: { ...env.config, event_retention_days: 30 } });
    const deadline = Date.now() + 10_000;
    while (seqsOf(env, 'desk').length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(seqsOf(env, 'desk')).toEqual([]);
    expect(await env.hub.store.eventHorizon('desk')).toBe(old[old.length - 1]);

    await threeEdits(env);
    const s = await openEventStream(env.hub.url, env.desk, 0);
    await s.until((evs) => evs.length === 1 + seqsOf(env!, 'desk').length);
    s.close();
    expect(s.events[0]?.event.type).toBe('stream.reset');
    expect(s.events.slice(1).every((e) => e.id > (old[old.length - 1] ?? Infinity))).toBe(true);
  });

  it('a failing pruning pass is logged and the Hub keeps serving (storage failure)', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({ write: (chunk: Buffer, _enc, cb) => (lines.push(chunk.toString()), cb()) }),
    );
    env = await startEnv();
    await env.hub.close();
    const store = createSqliteStore({ dataDir: env.dataDir });
    const failing = Object.assign(Object.create(store) as typeof store, {
      pruneEvents: () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error')),
    });
    await env.restart({ store: failing, logger });
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.includes('event pruning failed')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(lines.find((l) => l.includes('event pruning failed'))).toContain('SQLITE_IOERR');
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: 'still serving' },
    });
    expect(r.body.state).toBe('succeeded');
    expect(env.demo.shopA.ledger()).toHaveLength(1);
  });

  it('config: retention must be at least a day and 100 events per client', () => {
    expect(HubConfigSchema.safeParse({ event_retention_days: 0 }).success).toBe(false);
    expect(HubConfigSchema.safeParse({ event_retention_per_client: 10 }).success).toBe(false);
    expect(
      HubConfigSchema.safeParse({ event_retention_days: 7, event_retention_per_client: 5000 }).success,
    ).toBe(true);
  });
});
