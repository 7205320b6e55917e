// Events from every Hub instance reach the event streams of every instance, at once (LISTEN /
// NOTIFY: the streams' store poll is switched off here), and a stream resumes on another instance
// by the same ids without loss; and after an instance's LISTEN connection is terminated, a
// sibling's later events (and those appended while it reconnected) still reach its streams.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { createHub, type Hub } from '../../src-hub/index.js';
import { demoConfig, http, newInvocationId, token } from '../hub/helpers.js';
import { openEventStream } from '../hub/sse-reader.js';
import { createTestDatabase, TEST_SECRET_KEY, describeOnPostgres } from '../hub/store-mode.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * `count` Hub instances on one new database, with no store poll: only a notification (or the
 * catch-up after listening again) can tell their streams about another instance's events.
 */
async function startInstances(count: number): Promise<{ hubs: Hub[]; desk: string; storeUrl: string }> {
  const demo: DemoSystems = await startDemoSystems();
  cleanups.push(() => demo.close());
  const storeUrl = await createTestDatabase();
  const desk = token('desk');
  const config = demoConfig(demo, [{ client_id: 'desk', token: desk }]);
  const hubs: Hub[] = [];
  for (let n = 1; n <= count; n++) {
    const hub = await createHub({
      storeUrl,
      secretKey: TEST_SECRET_KEY,
      config,
      instanceId: `hub-${n}`,
      settings: { eventPollMs: 600_000 },
    });
    hubs.push(hub);
    cleanups.push(() => hub.close());
  }
  return { hubs, desk, storeUrl };
}

/** A run opened on `url`, and its i-th product edit sent there (answered succeeded): its invocation id. */
async function editsOn(url: string, desk: string): Promise<(i: number) => Promise<string>> {
  const decl = (
    await http(url, 'POST', '/agent/v1/tools/search', {
      token: desk,
      body: { query: 'update_product_content', authorization_refs: ['auth-shop-a'] },
    })
  ).body.declarations.find((d: { tool: string }) => d.tool === 'update_product_content');
  const run = await http(url, 'POST', '/agent/v1/runs', {
    token: desk,
    body: { agent_session_id: `s-${randomUUID()}`, turn_id: 't', authorization_ref: 'auth-shop-a' },
  });
  return async (i) => {
    const r = await http(url, 'POST', '/agent/v1/invocations', {
      token: desk,
      body: {
        invocation_id: newInvocationId(),
        run_id: run.body.run_id,
        authorization_ref: 'auth-shop-a',
        tool: 'update_product_content',
        declaration_revision: decl.declaration_revision,
        arguments: { product_id: 42, description: `edit ${i}` },
        host_call_id: `h${i}`,
      },
    });
    expect(r.body.state).toBe('succeeded');
    return r.body.invocation_id as string;
  };
}

describeOnPostgres('events across Hub instances', () => {
  it('a change on one instance reaches a stream on another at once; a reconnect to a third resumes by the same ids', async () => {
    const { hubs, desk } = await startInstances(3);
    const [a, b, c] = hubs as [Hub, Hub, Hub];
    const stream = await openEventStream(a.url, desk, 0);
    cleanups.push(() => stream.close());
    const already = stream.events.length;
    const edit = await editsOn(b.url, desk);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await edit(i));
    // two receipts per call (dispatching, succeeded), written by hub-2, read by a stream on hub-1
    await stream.until(
      (evs) => evs.slice(already).filter((e) => e.event.type === 'invocation.changed').length >= 6,
      10_000,
    );
    const seen = stream.events.slice(already).filter((e) => e.event.type === 'invocation.changed');
    expect(
      seen.map((e) => (e.event.type === 'invocation.changed' ? e.event.receipt.invocation_id : '')),
    ).toEqual(ids.flatMap((id) => [id, id]));
    const streamed = stream.events.map((e) => e.id);
    expect([...streamed].sort((x, y) => x - y)).toEqual(streamed);

    // a client that lost its connection to hub-1 after the third event resumes on hub-3
    const cut = stream.events[already + 2]!.id;
    const resumed = await openEventStream(c.url, desk, cut);
    cleanups.push(() => resumed.close());
    const rest = stream.events.filter((e) => e.id > cut).map((e) => e.id);
    await resumed.until((evs) => evs.length >= rest.length);
    expect(resumed.events.slice(0, rest.length).map((e) => e.id)).toEqual(rest);

    // a task paused through hub-3 reaches the stream on hub-1 too
    const task = await http(c.url, 'POST', '/agent/v1/tasks', {
      token: desk,
      body: {
        title: 'across',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 1,
        in_flight_limit: 1,
      },
    });
    await http(c.url, 'POST', `/agent/v1/tasks/${task.body.task_id}/pause`, { token: desk });
    await stream.until(
      (evs) => evs.some((e) => e.event.type === 'task.changed' && e.event.task.state === 'paused'),
      10_000,
    );
  });
  it("an instance's LISTEN connection terminated: a sibling's events still reach its stream, none lost", async () => {
    const { hubs, desk, storeUrl } = await startInstances(2);
    const [a, b] = hubs as [Hub, Hub];
    const stream = await openEventStream(a.url, desk, 0);
    cleanups.push(() => stream.close());
    const call = await editsOn(b.url, desk);
    const receipts = () =>
      stream.events
        .filter((e) => e.event.type === 'invocation.changed')
        .map((e) => (e.event.type === 'invocation.changed' ? e.event.receipt.invocation_id : ''));
    const ids = [await call(0)];
    await stream.until(() => receipts().length >= 2, 10_000);

    // the LISTEN connections of both instances cut by the server; calls go on at once on hub-2
    const admin = new pg.Client({ connectionString: storeUrl });
    await admin.connect();
    cleanups.push(() => admin.end());
    const cut = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE application_name = 'bailing-hub-listen' AND datname = current_database()`,
    );
    expect(cut.rowCount).toBe(2);
    for (let i = 1; i <= 3; i++) ids.push(await call(i));
    await stream.until(() => receipts().length >= 8, 10_000);
    expect(receipts()).toEqual(ids.flatMap((id) => [id, id]));
    const streamed = stream.events.map((e) => e.id);
    expect(new Set(streamed).size).toBe(streamed.length);
    expect([...streamed].sort((x, y) => x - y)).toEqual(streamed);
  });
});
