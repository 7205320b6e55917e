// Server-Sent Events: invocation and task changes for this client, resumable with Last-Event-ID.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../src-shared/hub-api.js';
import { startEnv, type HubEnv } from './helpers.js';
import { openEventStream, type Stream } from './sse-reader.js';

let env: HubEnv;
beforeEach(async () => {
  env = await startEnv({ settings: { heartbeatMs: 200 } });
});
afterEach(async () => {
  await env.close();
});

const open = (tok: string, lastEventId?: number): Promise<Stream> =>
  openEventStream(env.hub.url, tok, lastEventId);

describe('events', () => {
  it('streams invocation and task changes with seq ids, heartbeats, and resumes after Last-Event-ID', async () => {
    const s = await open(env.desk);
    const task = await env.agent('POST', '/agent/v1/tasks', {
      title: 'live',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 3,
      in_flight_limit: 1,
    });
    const r = await env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: 'live' },
      taskId: task.body.task_id,
    });
    await s.until((evs) =>
      evs.some((e) => e.event.type === 'invocation.changed' && e.event.receipt.state === 'succeeded'),
    );
    const states = s.events
      .filter((e) => e.event.type === 'invocation.changed')
      .map((e) => (e.event as Extract<HubEvent, { type: 'invocation.changed' }>).receipt.state);
    expect(states).toEqual(['dispatching', 'succeeded']);
    expect(s.events[0]?.event.type).toBe('task.changed');
    // every task-bound invocation change carries the task's new accounting with it
    await s.until((evs) => evs.filter((e) => e.event.type === 'task.changed').length >= 3);
    const taskViews = s.events.flatMap((e) => (e.event.type === 'task.changed' ? [e.event.task] : []));
    expect(taskViews.map((t) => [t.writes_used, t.in_flight])).toEqual([
      [0, 0],
      [1, 1],
      [1, 0],
    ]);
    expect(taskViews.at(-1)?.counts.succeeded).toBe(1);
    const ids = s.events.map((e) => e.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(s.events.every((e) => e.id === e.event.seq)).toBe(true);
    await s.until(() => s.raw().includes(': heartbeat'));
    s.close();

    // another client sees none of it
    const o = await open(env.other);
    await new Promise((res) => setTimeout(res, 300));
    expect(o.events).toEqual([]);
    o.close();

    // resume: only events after Last-Event-ID, in order, nothing lost while disconnected
    const lastSeen = ids.at(-1)!;
    await env.agent('POST', `/agent/v1/tasks/${task.body.task_id}/pause`);
    const again = await open(env.desk, lastSeen);
    await again.until((evs) => evs.some((e) => e.event.type === 'task.changed'));
    expect(again.events.every((e) => e.id > lastSeen)).toBe(true);
    const t = again.events.find((e) => e.event.type === 'task.changed')!.event as Extract<
      HubEvent,
      { type: 'task.changed' }
    >;
    expect(t.task.state).toBe('paused');
    expect(r.body.state).toBe('succeeded');
    again.close();

    // from the start again: everything, durable across a restart
    await env.restart();
    const replay = await open(env.desk, 0);
    await replay.until((evs) => evs.length >= ids.length + 1);
    expect(replay.events.slice(0, ids.length).map((e) => e.id)).toEqual(ids);
    replay.close();
  });

  it('refuses a malformed Last-Event-ID and requires a token', async () => {
    const bad = await fetch(`${env.hub.url}/agent/v1/events`, {
      headers: { authorization: `Bearer ${env.desk}`, 'last-event-id': 'x' },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe('invalid_request');
    const anon = await fetch(`${env.hub.url}/agent/v1/events`);
    expect(anon.status).toBe(401);
  });

  it('authorization changes reach the grantees', async () => {
    const s = await open(env.desk);
    await env.admin('POST', '/admin/v1/authorizations/auth-shop-b/rebind', {
      account: 'new-account',
      on_behalf_of: 'someone@demo.local',
    });
    await s.until((evs) => evs.some((e) => e.event.type === 'authorization.changed'));
    const a = s.events.find((e) => e.event.type === 'authorization.changed')!.event as Extract<
      HubEvent,
      { type: 'authorization.changed' }
    >;
    expect(a.authorization).toMatchObject({
      authorization_ref: 'auth-shop-b',
      state: 'rebound',
      revision: 2,
      account: 'new-account',
    });
    s.close();
  });
});
